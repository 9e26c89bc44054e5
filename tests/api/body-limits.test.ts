import { describe, expect, it } from 'vitest';
import type { OperationId } from '../../src/api/operations.js';
import { insertUsers } from '../helpers/batches.js';
import { operations } from '../helpers/contract.js';
import { useTestApp } from '../helpers/test-app.js';

// Each operation's body limit follows from its own contract (src/server/http/body-limit.ts): a body the contract
// admits is never refused for its size, and one byte past the limit is. Before this, one limit (256 KB) served every
// operation and refused a 15,000-line quota CSV that the contract allows (20,000 lines, 1,000,000 characters).
const app = useTestApp();
const TOO_LARGE = '请求内容过大';

const withBody = operations.filter((op) => op.bodyLimit !== undefined);

/** A JSON body of exactly `bytes` bytes that the schema refuses (an unknown field), so nothing runs. */
const paddedProbe = (bytes: number) => {
  const probe = '{"sizeProbe":0}';
  return probe.slice(0, -1) + ' '.repeat(bytes - probe.length) + '}';
};

describe('body limits from the contract', () => {
  it('has one for every operation with a body', () => {
    expect(withBody.length).toBeGreaterThan(40);
    for (const op of withBody) expect(op.bodyLimit, op.operationId).toBeGreaterThanOrEqual(4096);
  });

  it.each(withBody.map((op) => [op.operationId, op.bodyLimit!, op.roles, op.gatewayCallback] as const))(
    '%s takes a body of its limit (%i bytes) past the size check and refuses one byte more',
    async (operationId, limit, roles, gatewayCallback) => {
      // Whoever may call it: a visitor, an admin, or (注销账号, not an admin's) an ordinary user.
      const client = roles.includes('visitor')
        ? app().client()
        : roles.includes('admin')
          ? await app().admin()
          : (await app().newUser()).client;
      const inside = await client.call(operationId as OperationId, {
        rawBody: paddedProbe(limit),
        headers: { 'idempotency-key': `size-probe-${operationId}`.slice(0, 64) },
      });
      expect([inside.status, inside.message]).not.toEqual([400, TOO_LARGE]);
      const outside = await client.call(operationId as OperationId, {
        rawBody: paddedProbe(limit + 1),
        headers: { 'idempotency-key': `size-probe-${operationId}`.slice(0, 64) },
      });
      // A payment gateway reads only `success` / `fail`: a body over the limit is a `fail`, as any refusal is.
      if (gatewayCallback) expect([outside.status, outside.data]).toEqual([200, 'fail']);
      else expect([outside.status, outside.code, outside.message]).toEqual([400, 40000, TOO_LARGE]);
    },
  );

  it('accepts a 15,000-line quota CSV (the case a single 256 KB limit refused)', async () => {
    const admin = await app().admin();
    // Real accounts of 16 characters (the contract's longest), so every line is valid.
    const count = 15_000;
    await insertUsers(app().built.context.db, count, 'quota_size_', app().clock.current);
    const lines = Array.from({ length: count }, (_, i) => `quota_size_${i},1000`);
    const csv = `userAccount,amount\n${lines.join('\n')}\n`;
    expect(Buffer.byteLength(JSON.stringify({ csv, unit: 'runs', reason: '活动奖励' }))).toBeGreaterThan(256 * 1024);
    const started = await admin.call('taskQuotaGrant', { body: { csv, unit: 'runs', reason: '活动奖励' } });
    expect([started.status, started.code, started.message]).toEqual([200, 0, 'ok']);
  });
});
