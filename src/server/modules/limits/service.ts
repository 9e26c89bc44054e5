import type { Db } from '../../db/database.js';
import { tooManyRequests } from '../../http/errors.js';
import { addHit, clearBucket, countHits } from './repo.js';

/**
 * Fixed-window counters kept in the database, so every server process on the same database shares them.
 * A limit is `max` hits per `windowMs`; the bucket names what is limited (e.g. `login-fail:acct:alice`).
 */
export interface Limit {
  bucket: string;
  max: number;
  windowMs: number;
  message: string;
}

const windowOf = (limit: Limit, now: number) => now - (now % limit.windowMs);
const retryAfter = (limit: Limit, now: number) => Math.ceil((windowOf(limit, now) + limit.windowMs - now) / 1000);

/** Counts this call and refuses it once the window is full. */
export async function consume(db: Db, limit: Limit, now: number): Promise<void> {
  const hits = await addHit(db, limit.bucket, windowOf(limit, now));
  if (hits > limit.max) throw tooManyRequests(limit.message, retryAfter(limit, now));
}

/** Refuses while the window is full, without counting (for lockouts counted only on failure). */
export async function ensureBelow(db: Db, limit: Limit, now: number): Promise<void> {
  if ((await countHits(db, limit.bucket, windowOf(limit, now))) >= limit.max) {
    throw tooManyRequests(limit.message, retryAfter(limit, now));
  }
}

export async function record(db: Db, limit: Limit, now: number): Promise<void> {
  await addHit(db, limit.bucket, windowOf(limit, now));
}

export const reset = (db: Db, limit: Limit) => clearBucket(db, limit.bucket);
