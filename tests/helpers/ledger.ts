import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Selectable } from 'kysely';
import type { CoinEntriesTable } from '../../src/server/db/types.js';
import type { TestApp } from './test-app.js';

/** A fresh Idempotency-Key, as a client makes one per attempt. */
export const newKey = () => randomUUID();

/** Headers carrying an Idempotency-Key (a new one unless given). */
export const idem = (key: string = newKey()) => ({ 'Idempotency-Key': key });

/** Gives a user coins through the admin API (a ledger entry like any other). */
export async function grant(app: TestApp, userAccount: string, coin: number): Promise<number> {
  const admin = await app.admin();
  const data = await admin.ok('userAddCoin', { body: { userAccount, coin, description: '测试发放' }, headers: idem() });
  return data.coin;
}

/** The stored balance of a user, straight from the database. */
export async function balanceOf(app: TestApp, userId: number): Promise<number> {
  const row = await app.built.context.db
    .selectFrom('users')
    .select('coin')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.coin);
}

export type EntryRow = Selectable<CoinEntriesTable>;

/** Ledger entries straight from the database (all of them, or one user's), oldest first, numbers normalised. */
export async function entriesOf(app: TestApp, userId?: number): Promise<EntryRow[]> {
  let q = app.built.context.db.selectFrom('coinEntries').selectAll();
  if (userId !== undefined) q = q.where('userId', '=', userId);
  const rows = await q.orderBy('id').execute();
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    userId: Number(r.userId),
    amount: Number(r.amount),
    balanceAfter: Number(r.balanceAfter),
    counterpartyId: r.counterpartyId === null ? null : Number(r.counterpartyId),
    actorId: r.actorId === null ? null : Number(r.actorId),
    createdAt: Number(r.createdAt),
  }));
}

/**
 * The ledger's invariants on one app, checked from the database itself and through coinLedgerCheck:
 * - every user's balance equals the sum of its entries, and no balance is negative;
 * - every user's entry count (kept beside the balance for the statement's total) equals its number of entries;
 * - each user's entries, in id order, form a running balance (balanceAfter = previous balanceAfter + amount);
 * - every transfer is one transfer_out and one transfer_in sharing a reference, summing to zero;
 * - coinLedgerCheck, asked by an admin, reports no mismatch.
 */
export async function expectLedgerConsistent(app: TestApp): Promise<void> {
  const users = await app.built.context.db
    .selectFrom('users')
    .select(['id', 'userAccount', 'coin', 'entryCount'])
    .execute();
  const entries = await entriesOf(app);
  const byUser = new Map<number, EntryRow[]>();
  for (const e of entries) (byUser.get(e.userId) ?? byUser.set(e.userId, []).get(e.userId)!).push(e);

  const problems: string[] = [];
  for (const u of users) {
    const balance = Number(u.coin);
    const own = byUser.get(Number(u.id)) ?? [];
    const sum = own.reduce((n, e) => n + e.amount, 0);
    if (balance < 0) problems.push(`${u.userAccount}: negative balance ${balance}`);
    if (balance !== sum) problems.push(`${u.userAccount}: balance ${balance} but entries sum to ${sum}`);
    if (Number(u.entryCount) !== own.length)
      problems.push(`${u.userAccount}: entry count ${u.entryCount} but ${own.length} entries`);
    let running = 0;
    for (const e of own) {
      running += e.amount;
      if (e.balanceAfter !== running)
        problems.push(`${u.userAccount}: entry ${e.id} has balanceAfter ${e.balanceAfter}, running sum ${running}`);
      if (e.balanceAfter < 0) problems.push(`${u.userAccount}: entry ${e.id} has negative balanceAfter`);
    }
  }
  const knownUsers = new Set(users.map((u) => Number(u.id)));
  for (const userId of byUser.keys()) if (!knownUsers.has(userId)) problems.push(`entries for unknown user ${userId}`);

  const transfers = new Map<string, EntryRow[]>();
  for (const e of entries)
    if (e.kind === 'transfer_out' || e.kind === 'transfer_in')
      (transfers.get(e.reference) ?? transfers.set(e.reference, []).get(e.reference)!).push(e);
  for (const [reference, pair] of transfers) {
    const out = pair.filter((e) => e.kind === 'transfer_out');
    const into = pair.filter((e) => e.kind === 'transfer_in');
    if (out.length !== 1 || into.length !== 1) {
      problems.push(`transfer ${reference}: ${out.length} out / ${into.length} in entries`);
      continue;
    }
    const [o, i] = [out[0]!, into[0]!];
    if (o.amount + i.amount !== 0 || o.amount >= 0)
      problems.push(`transfer ${reference}: amounts ${o.amount} / ${i.amount}`);
    if (o.counterpartyId !== i.userId || i.counterpartyId !== o.userId)
      problems.push(`transfer ${reference}: counterparties do not match`);
  }
  expect(problems, 'ledger invariants').toEqual([]);

  const check = await (await app.admin()).ok('coinLedgerCheck');
  expect(check.mismatches).toEqual([]);
  expect(check.users).toBe(users.length);
  expect(check.entries).toBe(entries.length);
  expect(check.totalBalance).toBe(users.reduce((n, u) => n + Number(u.coin), 0));
}
