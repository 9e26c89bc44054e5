import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { CoinEntriesTable } from '../../db/types.js';

export const findIdempotencyKey = (db: Db, actorId: number, key: string) =>
  db.selectFrom('idempotencyKeys').selectAll().where('actorId', '=', actorId).where('key', '=', key).executeTakeFirst();

/** Claims a key unless it is taken (answers false then); waits for an uncommitted holder of the key to finish. */
export async function claimIdempotencyKey(
  db: Db,
  row: { actorId: number; key: string; operation: string; requestHash: string; response: string; createdAt: number },
): Promise<boolean> {
  const claimed = await db
    .insertInto('idempotencyKeys')
    .values(row)
    .onConflict((oc) => oc.columns(['actorId', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();
  return claimed !== undefined;
}

export async function recordIdempotentResult(db: Db, actorId: number, key: string, response: string): Promise<void> {
  await db
    .updateTable('idempotencyKeys')
    .set({ response })
    .where('actorId', '=', actorId)
    .where('key', '=', key)
    .execute();
}

/**
 * One posting's change of a balance, refused (answers undefined) when it would go below zero: the database, not a
 * read-then-write, decides under concurrency whether the coins are there. Answers the balance after.
 */
export async function applyToBalance(trx: Db, userId: number, amount: number): Promise<number | undefined> {
  const row = await trx
    .updateTable('users')
    .set((eb) => ({ coin: eb('coin', '+', amount) }))
    .where('id', '=', userId)
    .where((eb) => eb(eb('coin', '+', amount), '>=', 0))
    .returning('coin')
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.coin);
}

export async function insertEntries(trx: Db, entries: Insertable<CoinEntriesTable>[]): Promise<void> {
  await trx.insertInto('coinEntries').values(entries).execute();
}
