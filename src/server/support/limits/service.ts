import type { Db } from '../../db/database.js';
import { lockName } from '../../db/locks.js';
import { tooManyRequests } from '../../lib/errors.js';
import * as repo from './repo.js';

/**
 * Counters kept in the database, so every server process on the same database shares them.
 * A limit is `max` hits per `windowMs`; the bucket names what is limited (e.g. `login-fail:acct:alice`).
 *
 * The window slides: hits are kept in slots of 1/60 of the window, and a hit counts from the moment it happens until
 * at least `windowMs` later (at most one slot more). So "10 per hour" holds for every hour, not only clock hours,
 * and a burst across a clock boundary gets no second allowance.
 */
export interface Limit {
  bucket: string;
  max: number;
  windowMs: number;
  message: string;
}

/** A limit on failures (wrong passwords): `max` failures within `windowMs` lock the bucket for `lockMs`. */
export interface Lockout extends Limit {
  lockMs: number;
}

const SLOTS_PER_WINDOW = 60;
const slotMs = (limit: Limit) => limit.windowMs / SLOTS_PER_WINDOW;
const slotOf = (limit: Limit, now: number) => now - (now % slotMs(limit));
/** Slots starting at or after this still count at `now`. */
const countedSince = (limit: Limit, now: number) => slotOf(limit, now) - limit.windowMs;
const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
const lockBucket = (lockout: Lockout) => `${lockout.bucket}#lock`;

async function windowOf(db: Db, limit: Limit, now: number) {
  const slots = await repo.slotsSince(db, limit.bucket, countedSince(limit, now));
  return { slots, total: slots.reduce((sum, s) => sum + s.hits, 0) };
}

/** Seconds until `excess` of the counted hits have left the window (oldest leave first). */
function secondsUntilFreed(
  limit: Limit,
  slots: { windowStart: number; hits: number }[],
  excess: number,
  now: number,
): number {
  let freed = 0;
  for (const slot of slots) {
    freed += slot.hits;
    if (freed >= excess) return seconds(slot.windowStart + slotMs(limit) + limit.windowMs - now);
  }
  return seconds(limit.windowMs);
}

/**
 * Inside the caller's transaction: checks the window and takes a slot in one step (the bucket is locked for the
 * transaction), so concurrent calls are admitted exactly up to `max`. A refused call takes nothing, and its
 * Retry-After is when the oldest admitted hit leaves the window.
 */
export async function take(trx: Db, limit: Limit, now: number): Promise<void> {
  await lockName(trx, `limit:${limit.bucket}`);
  const { slots, total } = await windowOf(trx, limit, now);
  if (total >= limit.max)
    throw tooManyRequests(limit.message, secondsUntilFreed(limit, slots, total - limit.max + 1, now));
  await repo.addHit(trx, limit.bucket, slotOf(limit, now));
}

/** Counts this call, or refuses it (uncounted) when the window already holds `max` hits. */
export function consume(db: Db, limit: Limit, now: number): Promise<void> {
  return db.transaction().execute((trx) => take(trx, limit, now));
}

/** One attempt that may fail; it counts as a failure from its start until it is settled. */
export interface Attempt {
  lockout: Lockout;
  slot: number;
}

async function lockedUntil(db: Db, lockout: Lockout, now: number): Promise<number | undefined> {
  const lockedAt = await repo.latestLockSince(db, lockBucket(lockout), now - lockout.lockMs);
  return lockedAt === undefined ? undefined : lockedAt + lockout.lockMs;
}

/**
 * Starts an attempt, refused while the bucket is locked. The attempt is counted before the caller checks anything,
 * so attempts sent all at once cannot slip past the limit: at most `max` are ever in flight or failed in a window.
 */
export async function beginAttempt(db: Db, lockout: Lockout, now: number): Promise<Attempt> {
  // A locked bucket is refused without a write.
  const locked = await lockedUntil(db, lockout, now);
  if (locked !== undefined) throw tooManyRequests(lockout.message, seconds(locked - now));
  const slot = slotOf(lockout, now);
  await db.transaction().execute(async (trx) => {
    await lockName(trx, `limit:${lockout.bucket}`);
    // Checked again under the bucket's lock: a lock set since, or `max` attempts failed or still in flight.
    const until = await lockedUntil(trx, lockout, now);
    if (until !== undefined) throw tooManyRequests(lockout.message, seconds(until - now));
    const { total } = await windowOf(trx, lockout, now);
    // Only while other attempts are still in flight: they either fail (and lock) or succeed very soon.
    if (total >= lockout.max) throw tooManyRequests(lockout.message, 1);
    await repo.addHit(trx, lockout.bucket, slot);
  });
  return { lockout, slot };
}

/** Starts attempts on several lockouts at once; when one refuses, the ones already started are taken back. */
export async function beginAttempts<T extends Lockout[]>(
  db: Db,
  lockouts: [...T],
  now: number,
): Promise<{ [K in keyof T]: Attempt }> {
  const started: Attempt[] = [];
  try {
    for (const lockout of lockouts) started.push(await beginAttempt(db, lockout, now));
  } catch (error) {
    for (const attempt of started) await cancelAttempt(db, attempt);
    throw error;
  }
  return started as { [K in keyof T]: Attempt };
}

/** The attempt failed: it stays counted; the `max`-th failure in the window locks the bucket for `lockMs`. */
export async function failAttempt(db: Db, attempt: Attempt, now: number): Promise<void> {
  const { lockout } = attempt;
  const { total } = await windowOf(db, lockout, now);
  if (total >= lockout.max) {
    await repo.insertLock(db, lockBucket(lockout), now);
    // The lock now speaks for these failures; after it the count starts afresh.
    await repo.clearBucket(db, lockout.bucket);
  }
}

/** The attempt turned out not to be a failure (or was never made): it stops counting. */
export async function cancelAttempt(db: Db, attempt: Attempt): Promise<void> {
  await repo.removeHit(db, attempt.lockout.bucket, attempt.slot);
}

/** The attempt succeeded: the earlier failures in the bucket are forgiven too (e.g. a login with the right password). */
export async function forgiveFailures(db: Db, attempt: Attempt): Promise<void> {
  await repo.clearBucket(db, attempt.lockout.bucket);
}
