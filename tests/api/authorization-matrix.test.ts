import { beforeAll, describe, expect, it } from 'vitest';
import type { OperationId } from '../../src/api/operations.js';
import type { OperationSpec, Role } from '../../src/server/http/openapi.js';
import type { ApiClient, CallResult } from '../helpers/client.js';
import { exampleRequest, openapi, operations } from '../helpers/contract.js';
import { isInvalid } from '../helpers/schema-mutations.js';
import { useTestApp } from '../helpers/test-app.js';

/**
 * Every operation of openapi.yaml, called with its example request by every kind of caller; the expected answer is
 * computed from the operation's x-roles. Each (operation, caller) cell gets its own freshly created account, so a
 * call that ends sessions or changes accounts (logout, password change, ban, delete) cannot disturb another cell.
 */
const app = useTestApp();

type Caller = Role | 'banned';
const CALLERS: readonly Caller[] = ['visitor', 'user', 'agent', 'admin', 'banned'];
const CJK = /[\u4e00-\u9fff]/;

type Expected = { allowed: true } | { allowed: false; status: number; code: number };

function expectedFor(op: OperationSpec, caller: Caller): Expected {
  if (op.roles.includes('visitor')) return { allowed: true };
  if (caller === 'visitor') return { allowed: false, status: 401, code: 40100 };
  // A banned user's session existed and was ended by the ban: 40001, whatever its role.
  if (caller === 'banned') return { allowed: false, status: 401, code: 40001 };
  return op.roles.includes(caller) ? { allowed: true } : { allowed: false, status: 403, code: 40101 };
}

/** A new client for one cell: nobody, a fresh account of the role, or a fresh user the seed admin then bans. */
async function freshCaller(caller: Caller): Promise<{ client: ApiClient; id?: number }> {
  if (caller === 'visitor') return { client: app().client() };
  if (caller === 'banned') {
    const banned = await app().newUser();
    await (await app().admin()).ok('userBan', { query: { id: banned.id } });
    return banned;
  }
  return app().newUser({ role: caller });
}

/**
 * The operation's example request as this caller sends it. Where x-roles admits logged-in non-admins (and not
 * visitors) to an operation that names a record by `id`, the contract lets them act on their own record only
 * (userUpdate: 其他角色只能改自己，否则 403 / 40101), so such an admitted caller names itself. Everyone else (admins,
 * visitors, callers x-roles refuses, banned users) sends the example exactly as openapi.yaml gives it.
 */
function requestFor(op: OperationSpec, caller: Caller, ownId: number | undefined) {
  const example = exampleRequest(op.operationId);
  const nonAdminMember =
    caller !== 'admin' && caller !== 'banned' && op.roles.includes(caller) && !op.roles.includes('visitor');
  if (ownId === undefined || !nonAdminMember) return example;
  const own = <T>(part: T): T =>
    part && typeof part === 'object' && !Array.isArray(part) && 'id' in part ? { ...part, id: ownId } : part;
  return {
    ...(example.query ? { query: own(example.query) } : {}),
    ...(example.body !== undefined ? { body: own(example.body) } : {}),
    ...(example.headers ? { headers: example.headers } : {}),
  };
}

const describeResult = (r: CallResult) => `${r.status} ${r.code} ${r.message}`;

/** Allowed by x-roles: never refused for who the caller is, and never a server error (missing example data is fine). */
function expectAllowed(r: CallResult) {
  expect(r.status, describeResult(r)).toBeLessThan(500);
  expect(r.status, describeResult(r)).not.toBe(401);
  expect([40100, 40001, 40101], describeResult(r)).not.toContain(r.code);
}

describe('example requests', () => {
  it.each(operations)('$operationId has a complete example request that its own schemas accept', (op) => {
    const raw = (openapi.paths as any)[op.path][op.method.toLowerCase()];
    const example = exampleRequest(op.operationId);
    for (const [name, value] of Object.entries(example.query ?? {}))
      expect(value, `query.${name} has no example`).toBeDefined();
    if (op.querySchema)
      expect(isInvalid(op, { name: 'example', part: 'query', query: example.query ?? {} })).toBe(false);
    if (raw.requestBody?.required) expect(example.body, 'the request body has no example').toBeDefined();
    if (op.bodySchema && example.body !== undefined)
      expect(isInvalid(op, { name: 'example', part: 'body', body: example.body })).toBe(false);
  });
});

describe('authorization matrix (x-roles)', () => {
  beforeAll(async () => {
    // A bystander account right after the seed admin (id 1), for the examples that name id 2 to act on.
    await app().newUser();
  });

  const cells = operations.flatMap((op) =>
    CALLERS.map((caller) => {
      const expected = expectedFor(op, caller);
      const outcome = expected.allowed ? 'is allowed' : `answers ${expected.status} / ${expected.code}`;
      return { op, caller, expected, title: `${op.operationId} as ${caller} ${outcome}` };
    }),
  );

  it.each(cells)('$title', async ({ op, caller, expected }) => {
    const { client, id } = await freshCaller(caller);
    const r = await client.call(op.operationId as OperationId, requestFor(op, caller, id));
    if (expected.allowed) {
      expectAllowed(r);
    } else {
      expect([r.status, r.code], describeResult(r)).toEqual([expected.status, expected.code]);
      expect(r.message).toMatch(CJK);
    }
  });
});

describe('anti-CSRF header (X-Requested-With)', () => {
  const stateChanging = operations
    .filter((op) => op.stateChanging)
    .flatMap((op) =>
      (['visitor', 'admin'] as const).map((caller) => ({ op, caller, title: `${op.operationId} as ${caller}` })),
    );

  it.each(stateChanging)(
    '$title without the header answers 403 / 40300 and changes nothing',
    async ({ op, caller }) => {
      const { client } = await freshCaller(caller);
      const r = await client.call(op.operationId as OperationId, {
        ...exampleRequest(op.operationId),
        withoutCsrf: true,
      });
      expect([r.status, r.code], describeResult(r)).toEqual([403, 40300]);
      expect(r.message).toMatch(CJK);
      // Refused before anything ran: the admin's session (which logout or a password change would end) still works.
      if (caller === 'admin') expect((await client.call('userGetLogin')).code).toBe(0);
    },
  );

  const safeGets = operations
    .filter((op) => op.method === 'GET' && !op.stateChanging)
    .flatMap((op) => op.roles.map((caller) => ({ op, caller, title: `${op.operationId} as ${caller}` })));

  it.each(safeGets)('$title works without the header (GET that changes nothing)', async ({ op, caller }) => {
    const { client, id } = await freshCaller(caller);
    const r = await client.call(op.operationId as OperationId, { ...requestFor(op, caller, id), withoutCsrf: true });
    expectAllowed(r);
    expect(r.code, describeResult(r)).not.toBe(40300);
  });
});
