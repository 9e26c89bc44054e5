import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/database.js';

// The dashboard's aggregates: every figure is summed by the database over the indexes of migration 0013 or read from
// the day rollups of migration 0014, so the server never walks rows in JavaScript. Times are UTC epoch ms; a site day
// is the half-open range [lo, hi) that the service computes from TZ_SITE (SQLite has no time zones). Runs carry their
// site day already (runs.day).

/** One site-time-zone day and the instants bounding it. */
export interface DayBounds {
  day: string;
  lo: number;
  hi: number;
}

// PostgreSQL and SQLite both return sums as text or bigint strings in places; every figure passes through this.
const n = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

/** Transfers move coins between users and create or remove none, so the issued/removed totals leave them out. */
const TRANSFER = sql`('transfer_in', 'transfer_out')`;

/** The days as a table (day, lo, hi); casts give PostgreSQL the types its untyped parameters lack. */
const daysTable = (days: readonly DayBounds[]): RawBuilder<unknown> =>
  sql`days(day, lo, hi) AS (VALUES ${sql.join(
    days.map((d) => sql`(CAST(${d.day} AS varchar(10)), CAST(${d.lo} AS bigint), CAST(${d.hi} AS bigint))`),
  )})`;

async function rows<R>(db: Db, query: RawBuilder<R>): Promise<R[]> {
  return (await query.execute(db)).rows;
}

export async function userFigures(db: Db, todayLo: number, activeSince: number) {
  const [r] = await rows<{ total: unknown; newToday: unknown; active: unknown; held: unknown }>(
    db,
    sql`SELECT
          SUM(CASE WHEN deleted_at IS NULL THEN 1 ELSE 0 END) AS total,
          SUM(CASE WHEN deleted_at IS NULL AND created_at >= ${todayLo} THEN 1 ELSE 0 END) AS new_today,
          SUM(CASE WHEN deleted_at IS NULL AND last_login_at >= ${activeSince} THEN 1 ELSE 0 END) AS active,
          SUM(coin) AS held
        FROM users`,
  );
  return { total: n(r?.total), newToday: n(r?.newToday), active7d: n(r?.active), held: n(r?.held) };
}

export interface CoinTotals {
  issued: number;
  removed: number;
  spent: number;
}

/**
 * Coin totals of the entries outside [lo, hi) (the span the rollups cover; without rollups, lo = hi = 0 and every
 * entry counts): two index ranges of coin_entries_created, normally just the days not yet rolled up.
 */
export async function coinTotalsOutside(db: Db, lo: number, hi: number): Promise<CoinTotals> {
  const [r] = await rows<{ issued: unknown; removed: unknown; spent: unknown }>(
    db,
    sql`SELECT
          SUM(CASE WHEN kind NOT IN ${TRANSFER} AND amount > 0 THEN amount ELSE 0 END) AS issued,
          SUM(CASE WHEN kind NOT IN ${TRANSFER} AND amount < 0 THEN -amount ELSE 0 END) AS removed,
          SUM(CASE WHEN kind = 'service_charge' THEN -amount ELSE 0 END) AS spent
        FROM coin_entries WHERE created_at < ${lo} OR created_at >= ${hi}`,
  );
  return { issued: n(r?.issued), removed: n(r?.removed), spent: n(r?.spent) };
}

/** Every figure a day's rollup row holds. */
export interface DayFigures extends CoinTotals {
  paidOrders: number;
  revenue: number;
  newUsers: number;
}

/**
 * Fen refunded in [lo, hi) of payments that had credited their order: revenue is counted on the day an order was paid
 * and a refund taken off on the day it was made, so a finished day's figures never change (the order stays paid).
 */
const refundedIn = (lo: number, hi: number) =>
  sql`SELECT SUM(amount) FROM gateway_payments
      WHERE credited = 1 AND refund_state = 'refunded' AND refunded_at >= ${lo} AND refunded_at < ${hi}`;

/**
 * One day's figures, summed over the index ranges [lo, hi) of coin_entries_created, orders_paid and users_created:
 * the rows of a single day, so the statement stays short (a few ms at ~10,000 entries a day).
 */
export async function figuresBetween(db: Db, lo: number, hi: number): Promise<DayFigures> {
  const [r] = await rows<Record<keyof DayFigures, unknown>>(
    db,
    sql`SELECT c.issued AS issued, c.removed AS removed, c.spent AS spent,
          o.paid AS paid_orders, o.revenue AS revenue, u.users AS new_users
        FROM
          (SELECT
             SUM(CASE WHEN kind NOT IN ${TRANSFER} AND amount > 0 THEN amount ELSE 0 END) AS issued,
             SUM(CASE WHEN kind NOT IN ${TRANSFER} AND amount < 0 THEN -amount ELSE 0 END) AS removed,
             SUM(CASE WHEN kind = 'service_charge' THEN -amount ELSE 0 END) AS spent
           FROM coin_entries WHERE created_at >= ${lo} AND created_at < ${hi}) c,
          (SELECT COUNT(*) AS paid,
             COALESCE(SUM(amount), 0) - COALESCE((${refundedIn(lo, hi)}), 0) AS revenue
           FROM orders WHERE status = 'paid' AND paid_at >= ${lo} AND paid_at < ${hi}) o,
          (SELECT COUNT(*) AS users FROM users WHERE created_at >= ${lo} AND created_at < ${hi}) u`,
  );
  return {
    issued: n(r?.issued),
    removed: n(r?.removed),
    spent: n(r?.spent),
    paidOrders: n(r?.paidOrders),
    revenue: n(r?.revenue),
    newUsers: n(r?.newUsers),
  };
}

/** The earliest instant any rolled-up figure has a row at (index ends only), or null on an empty database. */
export async function firstActivity(db: Db): Promise<number | null> {
  const [r] = await rows<{ entry: unknown; paid: unknown; joined: unknown }>(
    db,
    sql`SELECT (SELECT MIN(created_at) FROM coin_entries) AS entry,
               (SELECT MIN(paid_at) FROM orders WHERE status = 'paid') AS paid,
               (SELECT MIN(created_at) FROM users) AS joined`,
  );
  const found = [r?.entry, r?.paid, r?.joined].filter((v) => v !== null && v !== undefined).map(Number);
  return found.length === 0 ? null : Math.min(...found);
}

/** Which days of a time zone are rolled up: the first, the last and how many (all days between when contiguous). */
export async function rollupSpan(db: Db, timeZone: string) {
  const [r] = await rows<{ first: string | null; last: string | null; count: unknown }>(
    db,
    sql`SELECT MIN(day) AS first, MAX(day) AS last, COUNT(*) AS count
        FROM dashboard_day_rollups WHERE time_zone = ${timeZone}`,
  );
  return { first: r?.first ?? null, last: r?.last ?? null, count: n(r?.count) };
}

export async function rolledDays(db: Db, timeZone: string): Promise<Set<string>> {
  const found = await db.selectFrom('dashboardDayRollups').select('day').where('timeZone', '=', timeZone).execute();
  return new Set(found.map((r) => r.day));
}

/**
 * Records a finished day's figures. Several server processes may roll up the same day at once: the first insert
 * wins and the others change nothing (their figures are the same, the day being over).
 */
export async function insertRollup(db: Db, timeZone: string, day: string, f: DayFigures, now: number) {
  await db
    .insertInto('dashboardDayRollups')
    .values({
      timeZone,
      day,
      coinsIssued: f.issued,
      coinsRemoved: f.removed,
      coinsSpent: f.spent,
      paidOrders: f.paidOrders,
      revenue: f.revenue,
      newUsers: f.newUsers,
      createdAt: now,
    })
    .onConflict((oc) => oc.columns(['timeZone', 'day']).doNothing())
    .execute();
}

/** The sum of a time zone's rollups of the days first..last (the summary's all-time coin totals). */
export async function rollupTotals(db: Db, timeZone: string, first: string, last: string): Promise<CoinTotals> {
  const [r] = await rows<{ issued: unknown; removed: unknown; spent: unknown }>(
    db,
    sql`SELECT SUM(coins_issued) AS issued, SUM(coins_removed) AS removed, SUM(coins_spent) AS spent
        FROM dashboard_day_rollups WHERE time_zone = ${timeZone} AND day >= ${first} AND day <= ${last}`,
  );
  return { issued: n(r?.issued), removed: n(r?.removed), spent: n(r?.spent) };
}

/** A time zone's rollup rows for the days first..last (yyyy-mm-dd compares as text). */
export async function rollupsBetween(db: Db, timeZone: string, first: string, last: string) {
  const found = await db
    .selectFrom('dashboardDayRollups')
    .selectAll()
    .where('timeZone', '=', timeZone)
    .where('day', '>=', first)
    .where('day', '<=', last)
    .execute();
  return found.map((r) => ({
    day: r.day,
    issued: n(r.coinsIssued),
    removed: n(r.coinsRemoved),
    spent: n(r.coinsSpent),
    paidOrders: n(r.paidOrders),
    revenue: n(r.revenue),
    newUsers: n(r.newUsers),
  }));
}

/** Pending orders, and how many were paid today (the revenue comes from revenueByPaidBy). */
export async function orderFigures(db: Db, todayLo: number) {
  const [pending] = await rows<{ c: unknown }>(db, sql`SELECT COUNT(*) AS c FROM orders WHERE status = 'pending'`);
  const [paid] = await rows<{ confirmedToday: unknown }>(
    db,
    sql`SELECT COUNT(*) AS confirmed_today FROM orders WHERE status = 'paid' AND paid_at >= ${todayLo}`,
  );
  return { pending: n(pending?.c), confirmedToday: n(paid?.confirmedToday) };
}

/**
 * Revenue (fen) of the orders paid in [lo, hi), by how each was paid (orders.paid_by: online, manual; null for none),
 * over the orders_paid index range; the service decides what each way counts as.
 */
export async function revenueByPaidBy(
  db: Db,
  lo: number,
  hi: number,
): Promise<{ paidBy: string | null; revenue: number }[]> {
  const found = await rows<{ paidBy: string | null; revenue: unknown }>(
    db,
    sql`SELECT paid_by, SUM(amount) AS revenue
        FROM orders WHERE status = 'paid' AND paid_at >= ${lo} AND paid_at < ${hi}
        GROUP BY paid_by`,
  );
  // Refunds go through a payment channel: taken off the online revenue of their day.
  const [refunds] = await rows<{ fen: unknown }>(db, sql`SELECT (${refundedIn(lo, hi)}) AS fen`);
  return [
    ...found.map((r) => ({ paidBy: r.paidBy, revenue: n(r.revenue) })),
    ...(n(refunds?.fen) > 0 ? [{ paidBy: 'online', revenue: -n(refunds?.fen) }] : []),
  ];
}

export async function serviceFigures(db: Db, today: string) {
  const [active] = await rows<{ c: unknown }>(db, sql`SELECT COUNT(*) AS c FROM services WHERE state = 'active'`);
  const [runs] = await rows<{ total: unknown; succeeded: unknown; ended: unknown }>(
    db,
    sql`SELECT
          COUNT(*) AS total,
          SUM(CASE WHEN state = 'succeeded' THEN 1 ELSE 0 END) AS succeeded,
          SUM(CASE WHEN state IN ('succeeded', 'failed', 'refunded') THEN 1 ELSE 0 END) AS ended
        FROM runs WHERE day = ${today}`,
  );
  return {
    active: n(active?.c),
    runsToday: n(runs?.total),
    succeededToday: n(runs?.succeeded),
    endedToday: n(runs?.ended),
  };
}

/** Units still usable on grants neither revoked nor expired, by unit. */
export async function quotaOutstanding(db: Db, now: number) {
  const found = await rows<{ unit: string; remaining: unknown }>(
    db,
    sql`SELECT unit, SUM(remaining) AS remaining FROM quota_grants
        WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${now}) GROUP BY unit`,
  );
  const of = (unit: string) => n(found.find((r) => r.unit === unit)?.remaining);
  return { runs: of('runs'), days: of('days') };
}

export interface CoinDay {
  day: string;
  issued: number;
  spent: number;
}

/** Coins issued (positive, not transfers) and spent on services, per site day. */
export async function coinsPerDay(db: Db, days: readonly DayBounds[]): Promise<CoinDay[]> {
  const found = await rows<{ day: string; issued: unknown; spent: unknown }>(
    db,
    sql`WITH ${daysTable(days)}
        SELECT d.day AS day,
          SUM(CASE WHEN e.kind NOT IN ${TRANSFER} AND e.amount > 0 THEN e.amount ELSE 0 END) AS issued,
          SUM(CASE WHEN e.kind = 'service_charge' THEN -e.amount ELSE 0 END) AS spent
        FROM days d JOIN coin_entries e ON e.created_at >= d.lo AND e.created_at < d.hi
        GROUP BY d.day`,
  );
  return found.map((r) => ({ day: r.day, issued: n(r.issued), spent: n(r.spent) }));
}

/** Revenue (fen) of orders paid on each site day, less the refunds made that day. */
export async function revenuePerDay(db: Db, days: readonly DayBounds[]): Promise<{ day: string; revenue: number }[]> {
  const found = await rows<{ day: string; revenue: unknown }>(
    db,
    sql`WITH ${daysTable(days)}
        SELECT d.day AS day, SUM(o.amount) AS revenue
        FROM days d JOIN orders o ON o.status = 'paid' AND o.paid_at >= d.lo AND o.paid_at < d.hi
        GROUP BY d.day`,
  );
  const refunds = await rows<{ day: string; fen: unknown }>(
    db,
    sql`WITH ${daysTable(days)}
        SELECT d.day AS day, SUM(p.amount) AS fen
        FROM days d JOIN gateway_payments p ON p.credited = 1 AND p.refund_state = 'refunded'
          AND p.refunded_at >= d.lo AND p.refunded_at < d.hi
        GROUP BY d.day`,
  );
  const net = new Map(found.map((r) => [r.day, n(r.revenue)]));
  for (const r of refunds) net.set(r.day, (net.get(r.day) ?? 0) - n(r.fen));
  return [...net].map(([day, revenue]) => ({ day, revenue }));
}

/** Accounts created on each site day. */
export async function newUsersPerDay(db: Db, days: readonly DayBounds[]): Promise<{ day: string; users: number }[]> {
  const found = await rows<{ day: string; users: unknown }>(
    db,
    sql`WITH ${daysTable(days)}
        SELECT d.day AS day, COUNT(*) AS users
        FROM days d JOIN users u ON u.created_at >= d.lo AND u.created_at < d.hi
        GROUP BY d.day`,
  );
  return found.map((r) => ({ day: r.day, users: n(r.users) }));
}

export interface RunDay {
  day: string;
  succeeded: number;
  failed: number;
  skipped: number;
}

const runOutcomes = sql`
  SUM(CASE WHEN state = 'succeeded' THEN 1 ELSE 0 END) AS succeeded,
  SUM(CASE WHEN state IN ('failed', 'refunded') THEN 1 ELSE 0 END) AS failed,
  SUM(CASE WHEN state = 'skipped' THEN 1 ELSE 0 END) AS skipped`;

const toRunDay = (r: { day: string; succeeded: unknown; failed: unknown; skipped: unknown }): RunDay => ({
  day: r.day,
  succeeded: n(r.succeeded),
  failed: n(r.failed),
  skipped: n(r.skipped),
});

/** Runs per site day by outcome, from runs_day_state alone. */
export async function runsPerDay(db: Db, first: string, last: string): Promise<RunDay[]> {
  const found = await rows<{ day: string; succeeded: unknown; failed: unknown; skipped: unknown }>(
    db,
    sql`SELECT day, ${runOutcomes} FROM runs WHERE day >= ${first} AND day <= ${last} GROUP BY day`,
  );
  return found.map(toRunDay);
}

/** One user's ended runs per day of a month (optionally on one platform), from runs_user_day. */
export async function calendarDays(
  db: Db,
  userId: number,
  first: string,
  last: string,
  platformId?: number,
): Promise<RunDay[]> {
  const platform = platformId === undefined ? sql`` : sql`AND platform_id = ${platformId}`;
  const found = await rows<{ day: string; succeeded: unknown; failed: unknown; skipped: unknown }>(
    db,
    sql`SELECT day, ${runOutcomes} FROM runs
        WHERE user_id = ${userId} AND day >= ${first} AND day <= ${last}
          AND state IN ('succeeded', 'failed', 'refunded', 'skipped') ${platform}
        GROUP BY day ORDER BY day`,
  );
  return found.map(toRunDay);
}
