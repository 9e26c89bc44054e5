import type { AppContext } from '../context.js';
import type { Db } from '../../db/database.js';
import { giveWay } from '../../lib/give-way.js';
import { addDays, siteDay, siteDayStart } from '../../lib/site-time.js';
import * as repo from './repo.js';

// Finished site days are summed once and kept (dashboard_day_rollups, migration 0014); the dashboard then reads a
// few hundred rollup rows plus the live rows of the days not rolled up yet (today, and yesterday for a few minutes
// after midnight), instead of a million ledger rows. Days of the site's own time zone rather than UTC 15-minute
// buckets: a day is one row and one short statement to build, a 90-day series reads 90 rows, not 8,640, and a
// change of TZ_SITE is rare enough that rebuilding the new zone's days once (lazily, as below) is cheap.
//
// Why a finished day's figures never change, so one row per day is safe to keep: coin_entries is append-only
// (a database trigger refuses updates and deletes); an order goes pending -> paid or pending -> cancelled once
// (orders/repo.ts settlePending), so a paid order stays paid with its paid_at; users are never deleted (deleted_at
// marks them) and created_at is never updated. The only way a row lands in a finished day is a transaction that read
// the clock before midnight and committed after it (or a server whose clock is a little behind): the margin below.

/**
 * How long after a site midnight the day before is rolled up; until then it is summed live like today. Generous
 * against transactions that stamp created_at when they start and commit seconds later, and against clocks of several
 * server processes that differ by a few seconds; the only cost is one more live day in those minutes.
 */
export const ROLLUP_MARGIN_MS = 10 * 60_000;

/** The contiguous span of rolled-up days of a time zone: the days first..last and the instants [lo, hi) they cover. */
export interface Coverage {
  first: string;
  last: string;
  lo: number;
  hi: number;
}

const DAY_MS = 86_400_000;
const daysBetween = (a: string, b: string) => Math.round((Date.parse(b) - Date.parse(a)) / DAY_MS);

/** The last site day that ended at least the margin ago. */
export function lastFinishedDay(now: number, timeZone: string): string {
  // The day holding `now - margin` started before that instant, so the day before it ended at least the margin ago,
  // while the day itself has not (its end is after now - margin).
  return addDays(siteDay(now - ROLLUP_MARGIN_MS, timeZone), -1);
}

/** One fill at a time per database and time zone in this process: the screen asks two operations at once. */
const filling = new WeakMap<Db, Map<string, Promise<Coverage | null>>>();

/**
 * Rolls up every finished day that has no rollup yet (lazily, on a dashboard request), and answers the span now
 * covered, or null when there is none (then every figure is summed live). One day at a time, a short read and a
 * one-row insert, with a turn of the event loop between days: on SQLite a statement holds the loop while it runs,
 * and building 120 days in one statement would hold it for seconds.
 */
export function rolledUp(app: AppContext, timeZone: string): Promise<Coverage | null> {
  let byZone = filling.get(app.db);
  if (!byZone) filling.set(app.db, (byZone = new Map<string, Promise<Coverage | null>>()));
  const running = byZone.get(timeZone);
  if (running) return running;
  const started = fill(app, timeZone).finally(() => byZone.delete(timeZone));
  byZone.set(timeZone, started);
  return started;
}

async function fill(app: AppContext, timeZone: string): Promise<Coverage | null> {
  const { db } = app;
  const lastFinished = lastFinishedDay(app.now(), timeZone);
  const firstAt = await repo.firstActivity(db);
  if (firstAt !== null) {
    for (const day of await missingDays(db, timeZone, siteDay(firstAt, timeZone), lastFinished)) {
      const lo = siteDayStart(day, timeZone);
      const hi = siteDayStart(addDays(day, 1), timeZone);
      const figures = await repo.figuresBetween(db, lo, hi);
      await repo.insertRollup(db, timeZone, day, figures, app.now());
      await giveWay();
    }
  }
  const span = await repo.rollupSpan(db, timeZone);
  // Only a gap-free span can stand for "every entry between lo and hi" in the all-time totals.
  if (span.first === null || span.last === null || span.count !== daysBetween(span.first, span.last) + 1) return null;
  return {
    first: span.first,
    last: span.last,
    lo: siteDayStart(span.first, timeZone),
    hi: siteDayStart(addDays(span.last, 1), timeZone),
  };
}

/**
 * The days from..through without a rollup. The rolled days are one run (each fill goes day by day, oldest first,
 * whichever process does it), so two index reads tell what is missing: days before the run (rows older than any
 * rollup, e.g. imported) and after it. Should a gap ever appear (rows deleted by hand), the days are listed.
 */
async function missingDays(db: Db, timeZone: string, from: string, through: string): Promise<string[]> {
  const range = (a: string, b: string) =>
    a > b ? [] : Array.from({ length: daysBetween(a, b) + 1 }, (_, i) => addDays(a, i));
  if (from > through) return [];
  const span = await repo.rollupSpan(db, timeZone);
  if (span.first === null || span.last === null) return range(from, through);
  if (span.count === daysBetween(span.first, span.last) + 1)
    return [...range(from, addDays(span.first, -1)), ...range(addDays(span.last, 1), through)];
  const rolled = await repo.rolledDays(db, timeZone);
  return range(from, through).filter((day) => !rolled.has(day));
}
