import type { Db } from '../../db/database.js';
import { tooManyRequests } from '../../http/errors.js';
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
function secondsUntilFreed(limit: Limit, slots: { windowStart: number; hits: number }[], excess: number, now: number): number {
  let freed = 0;
  for (const slot of slots) {
    freed += slot.hits;
    if (freed >= excess) return seconds(slot.windowStart + slotMs(limit) + limit.windowMs - now);
  }
  return seconds(limit.windowMs);
}

/** Counts this call and refuses it (uncounted) when the window already holds `max` hits. */
export async function consume(db: Db, limit: Limit, now: number): Promise<void> {
  const slot = slotOf(limit, now);
  await repo.addHit(db, limit.bucket, slot);
  const { slots, total } = await windowOf(db, limit, now);
  if (total <= limit.max) return;
  await repo.removeHit(db, limit.bucket, slot);
  const others = slots.map((s) => (s.windowStart === slot ? { ...s, hits: s.hits - 1 } : s));
  throw tooManyRequests(limit.message, secondsUntilFreed(limit, others, total - limit.max, now));
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
  // Checked before counting (a locked bucket costs no write) and again after (a lock set in between still holds).
  let until = await lockedUntil(db, lockout, now);
  if (until !== undefined) throw tooManyRequests(lockout.message, seconds(until - now));
  const slot = slotOf(lockout, now);
  await repo.addHit(db, lockout.bucket, slot);
  until = await lockedUntil(db, lockout, now);
  if (until !== undefined) {
    await repo.removeHit(db, lockout.bucket, slot);
    throw tooManyRequests(lockout.message, seconds(until - now));
  }
  const { total } = await windowOf(db, lockout, now);
  if (total > lockout.max) {
    // Only while other attempts are still in flight: they either fail (and lock) or succeed very soon.
    await repo.removeHit(db, lockout.bucket, slot);
    throw tooManyRequests(lockout.message, 1);
  }
  return { lockout, slot };
}

/** Starts attempts on several lockouts at once; when one refuses, the ones already started are taken back. */
export async function beginAttempts<T extends Lockout[]>(db: Db, lockouts: [...T], now: number): Promise<{ [K in keyof T]: Attempt }> {
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
