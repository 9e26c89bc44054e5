import { sql, type Insertable } from 'kysely';
import { compiledOnce } from '../../db/compiled-once.js';
import type { Db } from '../../db/database.js';
import type { CoinEntriesTable } from '../../db/types.js';

// Every operation that moves coins runs the key's three statements and the balance update: they are compiled once
// (db/compiled-once.ts), as Kysely's building was a fifth of a transfer's CPU.

const keyLookup = compiledOnce(
  (db: Db, actorId: number, key: string) =>
    db.selectFrom('idempotencyKeys').selectAll().where('actorId', '=', actorId).where('key', '=', key),
  [-1, '<key>'] as const,
);

export const findIdempotencyKey = async (db: Db, actorId: number, key: string) =>
  (await keyLookup(db, actorId, key))[0];

type KeyClaim = [actorId: number, key: string, operation: string, requestHash: string, createdAt: number];

const keyClaim = compiledOnce(
  (db: Db, ...[actorId, key, operation, requestHash, createdAt]: KeyClaim) =>
    db
      .insertInto('idempotencyKeys')
      .values({ actorId, key, operation, requestHash, response: sql<string>`''`, createdAt })
      .onConflict((oc) => oc.columns(['actorId', 'key']).doNothing())
      .returning('key'),
  [-1, '<key>', '<operation>', '<hash>', -2] as KeyClaim,
);

/**
 * Claims a key unless it is taken (answers false then); waits for an uncommitted holder of the key to finish. The
 * claim's response is empty until recordIdempotentResult stores it, in the same transaction.
 */
export async function claimIdempotencyKey(
  db: Db,
  row: { actorId: number; key: string; operation: string; requestHash: string; createdAt: number },
): Promise<boolean> {
  const claimed = await keyClaim(db, row.actorId, row.key, row.operation, row.requestHash, row.createdAt);
  return claimed.length > 0;
}

const resultRecord = compiledOnce(
  (db: Db, response: string, actorId: number, key: string) =>
    db.updateTable('idempotencyKeys').set({ response }).where('actorId', '=', actorId).where('key', '=', key),
  ['<response>', -1, '<key>'] as const,
);

export async function recordIdempotentResult(db: Db, actorId: number, key: string, response: string): Promise<void> {
  await resultRecord(db, response, actorId, key);
}

/**
 * One posting's change of a balance, refused (answers undefined) when it would go below zero: the database, not a
 * read-then-write, decides under concurrency whether the coins are there. Answers the balance after.
 */
const balanceChange = compiledOnce(
  (trx: Db, amount: number, userId: number, floor: number) =>
    trx
      .updateTable('users')
      .set((eb) => ({ coin: eb('coin', '+', amount) }))
      .where('id', '=', userId)
      .where('coin', '>=', floor)
      .returning('coin'),
  [-1, -2, -3] as const,
);

export async function applyToBalance(trx: Db, userId: number, amount: number): Promise<number | undefined> {
  // coin + amount >= 0, written as coin >= -amount so that each parameter appears once.
  const [row] = await balanceChange(trx, amount, userId, -amount);
  return row === undefined ? undefined : Number(row.coin);
}

type EntryValues = [
  userId: number,
  amount: number,
  balanceAfter: number,
  kind: CoinEntriesTable['kind'],
  counterpartyId: number | null,
  reference: string,
  description: string,
  actorId: number | null,
  createdAt: number,
];

const entryInsert = compiledOnce(
  (
    trx: Db,
    ...[userId, amount, balanceAfter, kind, counterpartyId, reference, description, actorId, createdAt]: EntryValues
  ) =>
    trx
      .insertInto('coinEntries')
      .values({ userId, amount, balanceAfter, kind, counterpartyId, reference, description, actorId, createdAt }),
  [-1, -2, -3, '<kind>' as CoinEntriesTable['kind'], -4, '<reference>', '<description>', -5, -6] as EntryValues,
);

/** The movement's entries, one compiled statement each (a movement has two or three). */
export async function insertEntries(trx: Db, entries: Insertable<CoinEntriesTable>[]): Promise<void> {
  for (const e of entries)
    await entryInsert(
      trx,
      e.userId,
      e.amount,
      e.balanceAfter,
      e.kind,
      e.counterpartyId ?? null,
      e.reference,
      e.description,
      e.actorId ?? null,
      e.createdAt,
    );
}
