import { beforeAll, describe, expect, it } from 'vitest';
import type { OperationId } from '../../src/api/operations.js';
import type { ApiClient } from '../helpers/client.js';
import { operations } from '../helpers/contract.js';
import { badRequests, isInvalid, type BadRequest } from '../helpers/schema-mutations.js';
import { useTestApp } from '../helpers/test-app.js';

/**
 * Every operation with a query or body schema, fed invalid input generated from that schema (see schema-mutations.ts).
 * The caller is allowed by x-roles and sends the anti-CSRF header, so only the input can be what fails: 400 / 40000
 * with one Chinese sentence and nothing internal.
 */
const app = useTestApp();

const CJK = /[\u4e00-\u9fff]/;
/** English words of a stack trace, a driver or a validator; none belongs in a message shown to a user. */
const INTERNAL_WORDS =
  /\b(error|exception|stack|trace|undefined|null|NaN|object|select|insert|update|delete|from|where|sql|sqlite|postgres|constraint|column|relation|syntax|unexpected|token|must|should|ajv|fastify|schema|instancePath)\b|\bat .+:\d+|node:|\.[jt]s\b/i;

const cases = operations.flatMap((op) =>
  badRequests(op).map((req) => ({ op, req, title: `${op.operationId} ${req.name}` })),
);

/** A caller x-roles admits: a fresh admin where admins may call (never the shared seed session), else that role. */
const callers = new Map<string, ApiClient>();
async function callerFor(roles: readonly string[]): Promise<ApiClient> {
  const role = roles.includes('admin') ? 'admin' : roles.includes('visitor') ? 'visitor' : roles[0]!;
  if (!callers.has(role)) {
    callers.set(
      role,
      role === 'visitor' ? app().client() : (await app().newUser({ role: role as 'user' | 'agent' | 'admin' })).client,
    );
  }
  return callers.get(role)!;
}

function send(client: ApiClient, operationId: OperationId, req: BadRequest) {
  return client.call(operationId, {
    ...(req.query ? { query: req.query } : {}),
    ...(req.headers ? { headers: req.headers } : {}),
    ...(req.noBody
      ? {}
      : req.rawBody !== undefined
        ? { rawBody: req.rawBody }
        : req.body !== undefined
          ? { body: req.body }
          : {}),
  });
}

describe('bad input is refused with 400 / 40000 and a Chinese message', () => {
  it('generates cases for every operation that takes a query or a body', () => {
    for (const op of operations) {
      if (op.querySchema || op.bodySchema) expect(badRequests(op).length, op.operationId).toBeGreaterThan(0);
    }
  });

  it.each(cases)('$title', async ({ op, req }) => {
    expect(isInvalid(op, req), `the generated request is not invalid per openapi.yaml: ${JSON.stringify(req)}`).toBe(
      true,
    );
    const r = await send(await callerFor(op.roles), op.operationId as OperationId, req);
    // A payment gateway reads nothing but `success` / `fail`: bad input is a `fail` (and changes nothing).
    if (op.gatewayCallback) {
      expect(r.data).toBe('fail');
      return;
    }
    expect([r.status, r.code], r.message).toEqual([400, 40000]);
    expect(r.message).toMatch(CJK);
    expect(r.message).not.toMatch(INTERNAL_WORDS);
    // A field's problem is told by its Chinese title, never by its raw property name.
    if (req.field) expect(r.message).not.toContain(req.field);
  });
});

describe('free text is stored verbatim', () => {
  const HOSTILE = `<script>alert(1)</script>' OR 1=1 --`;
  let admin: ApiClient;
  beforeAll(async () => {
    admin = await callerFor(['admin']);
  });

  it('keeps SQL-looking and HTML text in site information exactly as sent', async () => {
    const before = await admin.ok('basicInformationGet', { query: { id: 1 } });
    await admin.ok('basicInformationUpdate', {
      body: {
        id: 1,
        noticeBar: HOSTILE,
        noticeAnnouncementTitle: `"; DROP TABLE users; --`,
        noticeAnnouncement: `${HOSTILE}\n<img src=x onerror=alert(1)>`,
      },
    });
    const after = await app()
      .client()
      .ok('basicInformationGet', { query: { id: 1 } });
    expect(after.noticeBar).toBe(HOSTILE);
    expect(after.noticeAnnouncementTitle).toBe(`"; DROP TABLE users; --`);
    expect(after.noticeAnnouncement).toBe(`${HOSTILE}\n<img src=x onerror=alert(1)>`);
    expect(after.websiteName).toBe(before.websiteName);
  });

  it('keeps SQL-looking and HTML text in a nickname and finds it by search', async () => {
    const { client, id } = await app().newUser();
    const name = `<b>x</b>' OR 1=1 --`;
    await client.ok('userUpdate', { body: { id, userName: name } });
    expect((await client.ok('userGetLogin')).userName).toBe(name);
    const found = await admin.ok('userList', { query: { searchText: `' OR 1=1 --` } });
    expect(found.map((u: { id: number }) => u.id)).toEqual([id]);
  });
});
