import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

/** Adds one hit to a fixed window and answers the window's count; one statement, so concurrent hits all count. */
export async function addHit(db: Db, bucket: string, windowStart: number): Promise<number> {
  const row = await db
    .insertInto('rateLimits')
    .values({ bucket, windowStart, hits: 1 })
    .onConflict((oc) => oc.columns(['bucket', 'windowStart']).doUpdateSet({ hits: sql`rate_limits.hits + 1` }))
    .returning('hits')
    .executeTakeFirstOrThrow();
  return row.hits;
}

export async function countHits(db: Db, bucket: string, windowStart: number): Promise<number> {
  const row = await db
    .selectFrom('rateLimits')
    .select('hits')
    .where('bucket', '=', bucket)
    .where('windowStart', '=', windowStart)
    .executeTakeFirst();
  return row?.hits ?? 0;
}

export async function clearBucket(db: Db, bucket: string): Promise<void> {
  await db.deleteFrom('rateLimits').where('bucket', '=', bucket).execute();
}

export async function deleteWindowsBefore(db: Db, before: number): Promise<void> {
  await db.deleteFrom('rateLimits').where('windowStart', '<', before).execute();
}
