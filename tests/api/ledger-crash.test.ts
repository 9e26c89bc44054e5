import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { BuiltApp } from '../../src/server/app.js';
import { createTestDatabase, dbKind, type TestDatabase } from '../helpers/database.js';
import { entriesOf, expectLedgerConsistent } from '../helpers/ledger.js';
import {
  children,
  ensureServerBuilt,
  HttpClient,
  inspect,
  kill,
  startServer,
  type Answer,
} from '../helpers/server-process.js';
import { ADMIN, PASSWORD, uniqueAccount, type TestApp } from '../helpers/test-app.js';

// The production server (dist/server/main.js) in a child process on this test's database, killed with SIGKILL in the
// middle of a concurrent transfer load, then started again on the same database. Whatever was in flight either
// committed whole or not at all: the invariants hold, no transfer has one side without the other, and a request
// retried with its key after the restart either replays the stored answer or, if it never committed, runs once.

const USERS = 12;
const OPENING_BALANCE = 2000;
const WORKERS = 16;
/** The kill comes after this many answered transfers (or after KILL_AFTER_MS, whichever is first). */
const KILL_AFTER_TRANSFERS = 300;
const KILL_AFTER_MS = 4000;

interface Transfer {
  key: string;
  payer: Member;
  payee: Member;
  coin: number;
  first: Answer;
  retry?: Answer;
}

interface Member {
  id: number;
  userAccount: string;
  client: HttpClient;
}

/** The ledger's state straight from the database: balances, entries, and the recorded idempotency keys. */
async function snapshot(app: TestApp) {
  const db = app.built.context.db;
  const users = await db.selectFrom('users').select(['id', 'coin']).execute();
  const entries = await entriesOf(app);
  const keys = await db.selectFrom('idempotencyKeys').select(['actorId', 'key', 'operation', 'response']).execute();
  return { balances: new Map(users.map((u) => [Number(u.id), Number(u.coin)])), entries, keys };
}

/** Transfer entries by reference; every reference must hold one transfer_out and one transfer_in of the opposite amount. */
function halfApplied(entries: Awaited<ReturnType<typeof entriesOf>>): string[] {
  const byReference = new Map<string, typeof entries>();
  for (const e of entries)
    if (e.kind === 'transfer_out' || e.kind === 'transfer_in')
      (byReference.get(e.reference) ?? byReference.set(e.reference, []).get(e.reference)!).push(e);
  const problems: string[] = [];
  for (const [reference, pair] of byReference) {
    const out = pair.filter((e) => e.kind === 'transfer_out');
    const into = pair.filter((e) => e.kind === 'transfer_in');
    if (out.length !== 1 || into.length !== 1) problems.push(`${reference}: ${out.length} out, ${into.length} in`);
    else if (
      out[0]!.amount !== -into[0]!.amount ||
      out[0]!.userId !== into[0]!.counterpartyId ||
      into[0]!.userId !== out[0]!.counterpartyId
    ) {
      problems.push(`${reference}: ${JSON.stringify(out[0])} / ${JSON.stringify(into[0])}`);
    }
  }
  return problems;
}

describe(`the production server killed mid-transfer (${dbKind()})`, () => {
  let db: TestDatabase | undefined;
  let inspector: BuiltApp | undefined;

  afterAll(async () => {
    await Promise.all([...children].map((child) => kill(child, 'SIGKILL')));
    await inspector?.fastify.close();
    await db?.drop();
  });

  it('SIGKILL under load leaves no transfer half applied, and retries after the restart replay or run once', async () => {
    await ensureServerBuilt();
    db = await createTestDatabase();
    const sessionSecret = randomBytes(32).toString('base64url');
    let server = await startServer(db, sessionSecret);
    const current = () => server;

    const admin = new HttpClient(current);
    await admin.ok('userLogin', ADMIN);
    const members: Member[] = [];
    for (let i = 0; i < USERS; i++) {
      const userAccount = uniqueAccount('k');
      const id: number = await admin.ok('userAdd', { userAccount, userPassword: PASSWORD });
      const client = new HttpClient(current);
      await client.ok('userLogin', { userAccount, userPassword: PASSWORD });
      await admin.ok(
        'userAddCoin',
        { userAccount, coin: OPENING_BALANCE, description: '期初余额' },
        `open-${id}-${randomBytes(6).toString('hex')}`,
      );
      members.push({ id, userAccount, client });
    }

    // The load: transfers between random members, each with its own key, until the server dies under them.
    const transfers: Transfer[] = [];
    let answered = 0;
    const load = Promise.all(
      Array.from({ length: WORKERS }, async (_, w) => {
        for (let n = 0; ; n++) {
          const payer = members[Math.floor(Math.random() * members.length)]!;
          const others = members.filter((m) => m !== payer);
          const payee = others[Math.floor(Math.random() * others.length)]!;
          const coin = 1 + Math.floor(Math.random() * 120);
          const key = `crash-${w}-${n}-${randomBytes(4).toString('hex')}`;
          const t: Transfer = {
            key,
            payer,
            payee,
            coin,
            first: { status: -1, code: -1, message: 'in flight', data: null },
          };
          transfers.push(t);
          t.first = await payer.client.call('userTransferCoin', { userAccount: payee.userAccount, coin }, key);
          if (t.first.status === 0) return; // the server is gone
          answered++;
        }
      }),
    );
    const started = Date.now();
    while (answered < KILL_AFTER_TRANSFERS && Date.now() - started < KILL_AFTER_MS)
      await new Promise((r) => setTimeout(r, 5));
    server.child.kill('SIGKILL');
    await load;
    await new Promise<void>((r) =>
      server.child.exitCode !== null || server.child.signalCode !== null ? r() : server.child.once('exit', () => r()),
    );
    children.delete(server.child);
    expect(server.child.signalCode).toBe('SIGKILL');

    const answeredOk = transfers.filter((t) => t.first.code === 0);
    const refused = transfers.filter((t) => t.first.status > 0 && t.first.code !== 0);
    const lost = transfers.filter((t) => t.first.status === 0);
    // Before the kill, every answer is a success or 积分不足; never a server error.
    expect(refused.filter((t) => t.first.status !== 400 || t.first.code !== 40000).map((t) => t.first)).toEqual([]);
    expect(answeredOk.length).toBeGreaterThan(0);
    // The workers were all waiting on an answer when the server died: those requests may or may not have committed.
    expect(lost.length).toBeGreaterThan(0);

    // Restarted on the same database (same session secret: the sessions in the database stay valid).
    server = await startServer(db, sessionSecret);
    const app = await inspect(db);
    inspector = app.built;

    // Right after the restart, before any retry: the ledger is whole.
    await expectLedgerConsistent(app);
    const before = await snapshot(app);
    expect(halfApplied(before.entries), 'transfers half applied after the crash').toEqual([]);
    const transferKeys = before.keys.filter((k) => k.operation === 'transfer');
    // A recorded key always carries its answer (recorded in the same transaction as the movement) …
    expect(
      transferKeys.filter((k) => k.response === '').map((k) => k.key),
      'keys recorded without an answer',
    ).toEqual([]);
    // … and the keys and the transfers match one to one.
    const recordedReferences = transferKeys.map((k) => JSON.parse(k.response).reference as string);
    const outReferences = before.entries.filter((e) => e.kind === 'transfer_out').map((e) => e.reference);
    expect(new Set(recordedReferences).size).toBe(recordedReferences.length);
    expect([...recordedReferences].sort()).toEqual([...outReferences].sort());
    // Every transfer answered before the kill is there.
    const committed = new Set(outReferences);
    expect(answeredOk.filter((t) => !committed.has(t.first.data.reference)).map((t) => t.key)).toEqual([]);

    // Retries with the same keys: every request the kill cut off, and a sample of answered ones.
    const recordedKeys = new Set(transferKeys.map((k) => `${k.actorId}:${k.key}`));
    const sample = answeredOk.filter((_, i) => i % Math.max(1, Math.floor(answeredOk.length / 25)) === 0);
    await Promise.all(
      [...lost, ...sample].map(async (t) => {
        t.retry = await t.payer.client.call(
          'userTransferCoin',
          { userAccount: t.payee.userAccount, coin: t.coin },
          t.key,
        );
      }),
    );
    const outcome = { replayed: 0, ranOnce: 0, refused: 0 };
    const problems: string[] = [];
    for (const t of [...lost, ...sample]) {
      const r = t.retry!;
      const wasRecorded = recordedKeys.has(`${t.payer.id}:${t.key}`);
      if (t.first.code === 0) {
        if (!isDeepStrictEqual([r.status, r.code, r.data], [200, 0, t.first.data]))
          problems.push(`retry of answered ${t.key}: ${JSON.stringify(r)} vs ${JSON.stringify(t.first.data)}`);
        continue;
      }
      if (r.code === 0) {
        // Committed before the kill: the stored answer comes back. Never committed: it runs now, once.
        if (wasRecorded) outcome.replayed++;
        else outcome.ranOnce++;
        if (r.data.coin !== t.coin || r.data.payee.userAccount !== t.payee.userAccount)
          problems.push(`retry of ${t.key} answered ${JSON.stringify(r.data)}`);
        if (wasRecorded !== committed.has(r.data.reference))
          problems.push(
            `retry of ${t.key}: recorded ${wasRecorded}, reference known ${committed.has(r.data.reference)}`,
          );
      } else if (r.status === 400 && r.code === 40000 && !wasRecorded) {
        outcome.refused++; // never committed, and now the payer lacks the coins: nothing moved, as before
      } else {
        problems.push(`retry of ${t.key} (recorded ${wasRecorded}) answered ${r.status} ${r.code} ${r.message}`);
      }
    }
    expect(problems).toEqual([]);
    console.log(
      `ledger crash (${dbKind()}): ${transfers.length} transfers started, ${answeredOk.length} answered ok and ${refused.length} refused before the kill, ` +
        `${lost.length} cut off (${transferKeys.length - answeredOk.length} of those had committed); after the restart their retries ` +
        `replayed ${outcome.replayed}, ran once ${outcome.ranOnce}, refused ${outcome.refused}; ${sample.length} answered ones replayed identically`,
    );
    expect(outcome.replayed + outcome.ranOnce + outcome.refused).toBe(lost.length);

    // Afterwards: one pair of entries per successful key, and each balance is the opening balance plus what moved.
    const after = await snapshot(app);
    expect(halfApplied(after.entries)).toEqual([]);
    const succeeded = transfers.filter((t) => t.first.code === 0 || t.retry?.code === 0);
    const references = new Set(
      succeeded.map((t) => (t.first.code === 0 ? t.first.data : t.retry!.data).reference as string),
    );
    expect(references.size).toBe(succeeded.length);
    expect(after.entries.filter((e) => e.kind === 'transfer_out').length).toBe(succeeded.length);
    const expected = new Map(members.map((m) => [m.id, OPENING_BALANCE]));
    for (const t of succeeded) {
      expected.set(t.payer.id, expected.get(t.payer.id)! - t.coin);
      expected.set(t.payee.id, expected.get(t.payee.id)! + t.coin);
    }
    expect(Object.fromEntries(members.map((m) => [m.userAccount, after.balances.get(m.id)]))).toEqual(
      Object.fromEntries(members.map((m) => [m.userAccount, expected.get(m.id)])),
    );
    await expectLedgerConsistent(app);
    // And the restarted production server's own ledger check agrees.
    const check = await admin.ok('coinLedgerCheck');
    expect(check.mismatches).toEqual([]);
    expect(check.totalBalance).toBe(USERS * OPENING_BALANCE);

    await kill(server.child, 'SIGTERM');
    expect(server.child.exitCode, server.output()).toBe(0);
  }, 180_000);
});
