import type { Db } from '../../db/database.js';

export const findIdempotencyKey = (db: Db, actorId: number, key: string) =>
  db.selectFrom('idempotencyKeys').selectAll().where('actorId', '=', actorId).where('key', '=', key).executeTakeFirst();

export async function insertIdempotencyKey(
  db: Db,
  row: { actorId: number; key: string; operation: string; requestHash: string; response: string; createdAt: number },
): Promise<void> {
  await db.insertInto('idempotencyKeys').values(row).execute();
}

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
