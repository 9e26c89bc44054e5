import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

/** Adds one hit to a slot and answers the slot's count; one statement, so concurrent hits all count. */
export async function addHit(db: Db, bucket: string, windowStart: number): Promise<number> {
  const row = await db
    .insertInto('rateLimits')
    .values({ bucket, windowStart, hits: 1 })
    .onConflict((oc) => oc.columns(['bucket', 'windowStart']).doUpdateSet({ hits: sql`rate_limits.hits + 1` }))
    .returning('hits')
    .executeTakeFirstOrThrow();
  return row.hits;
}

/** Takes back one hit of a slot (a refused call, or an attempt that turned out not to be a failure). */
export async function removeHit(db: Db, bucket: string, windowStart: number): Promise<void> {
  await db
    .updateTable('rateLimits')
    .set({ hits: sql`hits - 1` })
    .where('bucket', '=', bucket)
    .where('windowStart', '=', windowStart)
    .where('hits', '>', 0)
    .execute();
}

/** The bucket's slots from `since` on, oldest first. */
export function slotsSince(db: Db, bucket: string, since: number): Promise<{ windowStart: number; hits: number }[]> {
  return db
    .selectFrom('rateLimits')
    .select(['windowStart', 'hits'])
    .where('bucket', '=', bucket)
    .where('windowStart', '>=', since)
    .orderBy('windowStart')
    .execute();
}

/** Records a lock that started at `lockedAt` (kept as a row whose window start is the lock's start). */
export async function insertLock(db: Db, bucket: string, lockedAt: number): Promise<void> {
  await db
    .insertInto('rateLimits')
    .values({ bucket, windowStart: lockedAt, hits: 1 })
    .onConflict((oc) => oc.columns(['bucket', 'windowStart']).doNothing())
    .execute();
}

/** The start of the newest lock that began after `since`, if any. */
export async function latestLockSince(db: Db, bucket: string, since: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('rateLimits')
    .select('windowStart')
    .where('bucket', '=', bucket)
    .where('windowStart', '>', since)
    .orderBy('windowStart', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.windowStart;
}

export async function clearBucket(db: Db, bucket: string): Promise<void> {
  await db.deleteFrom('rateLimits').where('bucket', '=', bucket).execute();
}

export async function deleteWindowsBefore(db: Db, before: number): Promise<void> {
  await db.deleteFrom('rateLimits').where('windowStart', '<', before).execute();
}
