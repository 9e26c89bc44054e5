import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { noPermission } from '../../lib/errors.js';
import { giveWay } from '../../lib/give-way.js';
import { addDays, siteDay, siteDayStart } from '../../lib/site-time.js';
import type { SessionUser } from '../sessions/service.js';
import * as repo from './repo.js';
import { rolledUp, type Coverage } from './rollups.js';

// Between two aggregate statements the dashboard gives way (lib/give-way.ts): better-sqlite3 answers synchronously,
// so otherwise its statements would run back to back and hold the event loop for their sum.

const DAY_MS = 86_400_000;

/** `count` site days ending today, each with the instants bounding it (offsets looked up per day, DST included). */
export function siteDays(now: number, timeZone: string, count: number): repo.DayBounds[] {
  const today = siteDay(now, timeZone);
  return Array.from({ length: count }, (_, i) => {
    const day = addDays(today, i - count + 1);
    return { day, lo: siteDayStart(day, timeZone), hi: siteDayStart(addDays(day, 1), timeZone) };
  });
}

/** Coins per site day, revenue and new users: the series' figures and the summary's 30-day revenue. */
interface DayTotals {
  revenue: number;
  issued: number;
  spent: number;
  newUsers: number;
}

/**
 * The figures of `days`: read from the rollups where a day has one, summed live (over index ranges) for the others,
 * which are today, yesterday within the margin, and days before any activity.
 */
async function perDay(app: AppContext, timeZone: string, days: repo.DayBounds[]): Promise<Map<string, DayTotals>> {
  const out = new Map<string, DayTotals>();
  for (const r of await repo.rollupsBetween(app.db, timeZone, days[0]!.day, days.at(-1)!.day)) out.set(r.day, r);
  const live = days.filter((d) => !out.has(d.day));
  if (live.length === 0) return out;
  await giveWay();
  const revenue = await repo.revenuePerDay(app.db, live);
  await giveWay();
  const coins = await repo.coinsPerDay(app.db, live);
  await giveWay();
  const users = await repo.newUsersPerDay(app.db, live);
  for (const { day } of live) {
    out.set(day, {
      revenue: revenue.find((r) => r.day === day)?.revenue ?? 0,
      issued: coins.find((r) => r.day === day)?.issued ?? 0,
      spent: coins.find((r) => r.day === day)?.spent ?? 0,
      newUsers: users.find((r) => r.day === day)?.users ?? 0,
    });
  }
  return out;
}

/** All-time coin totals: the rollups of the covered span plus the live entries outside it. */
async function coinTotals(app: AppContext, timeZone: string, covered: Coverage | null): Promise<repo.CoinTotals> {
  if (!covered) return repo.coinTotalsOutside(app.db, 0, 0);
  // Bounded by the span just read: another process may add a day meanwhile, which the live part already counts.
  const rolled = await repo.rollupTotals(app.db, timeZone, covered.first, covered.last);
  await giveWay();
  const live = await repo.coinTotalsOutside(app.db, covered.lo, covered.hi);
  return {
    issued: rolled.issued + live.issued,
    removed: rolled.removed + live.removed,
    spent: rolled.spent + live.spent,
  };
}

/**
 * Revenue of [lo, hi) split by how it arrived: `online` is what a payment channel's notice (or its order query)
 * settled; everything else an admin confirmed by hand (`manual`, which is also what every order paid before channels
 * existed was marked). The two always add up to the whole.
 */
async function revenueSplit(app: AppContext, lo: number, hi: number): Promise<{ online: number; manual: number }> {
  let online = 0;
  let manual = 0;
  for (const { paidBy, revenue } of await repo.revenueByPaidBy(app.db, lo, hi)) {
    if (paidBy === 'online') online += revenue;
    else manual += revenue;
  }
  return { online, manual };
}

export async function summary(app: AppContext): Promise<Schemas['DashboardSummary']> {
  const now = app.now();
  const timeZone = app.config.jobs.timeZone;
  const month = siteDays(now, timeZone, 30);
  const today = month.at(-1)!;
  const covered = await rolledUp(app, timeZone);
  const users = await repo.userFigures(app.db, today.lo, now - 7 * DAY_MS);
  await giveWay();
  const coins = await coinTotals(app, timeZone, covered);
  await giveWay();
  const orders = await repo.orderFigures(app.db, today.lo);
  await giveWay();
  // Revenue from the orders themselves (one index range each), so the two ways always add up to the total shown.
  const splitToday = await revenueSplit(app, today.lo, today.hi);
  await giveWay();
  const split30d = await revenueSplit(app, month[0]!.lo, today.hi);
  await giveWay();
  const services = await repo.serviceFigures(app.db, today.day);
  await giveWay();
  const quota = await repo.quotaOutstanding(app.db, now);
  return {
    today: today.day,
    timeZone,
    users: { total: users.total, newToday: users.newToday, active7d: users.active7d },
    coins: { ...coins, held: users.held, balanced: coins.issued - coins.removed === users.held },
    orders: {
      ...orders,
      revenueToday: splitToday.online + splitToday.manual,
      revenue30d: split30d.online + split30d.manual,
      revenueTodayOnline: splitToday.online,
      revenueTodayManual: splitToday.manual,
      revenue30dOnline: split30d.online,
      revenue30dManual: split30d.manual,
    },
    services: {
      ...services,
      successRate: services.endedToday === 0 ? null : Math.round((100 * services.succeededToday) / services.endedToday),
    },
    quota,
  };
}

export async function series(app: AppContext, range: Schemas['DashboardRange']): Promise<Schemas['DashboardSeries']> {
  const timeZone = app.config.jobs.timeZone;
  const days = siteDays(app.now(), timeZone, range);
  await rolledUp(app, timeZone);
  const figures = await perDay(app, timeZone, days);
  await giveWay();
  const runs = await repo.runsPerDay(app.db, days[0]!.day, days.at(-1)!.day);
  const runsOf = new Map(runs.map((r) => [r.day, r]));
  return {
    days: range,
    timeZone,
    series: days.map(({ day }) => ({
      day,
      revenue: figures.get(day)?.revenue ?? 0,
      coinsIssued: figures.get(day)?.issued ?? 0,
      coinsSpent: figures.get(day)?.spent ?? 0,
      runsSucceeded: runsOf.get(day)?.succeeded ?? 0,
      runsFailed: runsOf.get(day)?.failed ?? 0,
      runsSkipped: runsOf.get(day)?.skipped ?? 0,
      newUsers: figures.get(day)?.newUsers ?? 0,
    })),
  };
}

/** A month's days with ended runs, for the caller or (an admin only) for any user. */
export async function calendar(
  app: AppContext,
  actor: SessionUser,
  query: { month: string; userId?: number; platformId?: number },
): Promise<Schemas['RunCalendar']> {
  const userId = query.userId ?? actor.id;
  if (userId !== actor.id && actor.userRole !== 'admin') throw noPermission('只能查看自己的打卡日历');
  // Days compare as text; every day of the month sorts between -01 and -31.
  const days = await repo.calendarDays(app.db, userId, `${query.month}-01`, `${query.month}-31`, query.platformId);
  return {
    month: query.month,
    days: days.map((d) => ({ ...d, mark: d.succeeded > 0 ? 'succeeded' : 'unsuccessful' })),
  };
}
