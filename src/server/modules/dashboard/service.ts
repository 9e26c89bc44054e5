import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../../context.js';
import { noPermission } from '../../http/errors.js';
import { addDays, siteDay, siteDayStart } from '../../jobs/site-time.js';
import type { SessionUser } from '../sessions/service.js';
import * as repo from './repo.js';

const DAY_MS = 86_400_000;

/**
 * Lets queued I/O (other requests) run between two aggregate statements. better-sqlite3 answers synchronously, so
 * without this the dashboard's statements would run back to back and hold the event loop for their sum.
 */
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `count` site days ending today, each with the instants bounding it (offsets looked up per day, DST included). */
export function siteDays(now: number, timeZone: string, count: number): repo.DayBounds[] {
  const today = siteDay(now, timeZone);
  return Array.from({ length: count }, (_, i) => {
    const day = addDays(today, i - count + 1);
    return { day, lo: siteDayStart(day, timeZone), hi: siteDayStart(addDays(day, 1), timeZone) };
  });
}

export async function summary(app: AppContext): Promise<Schemas['DashboardSummary']> {
  const now = app.now();
  const timeZone = app.config.jobs.timeZone;
  const [month] = siteDays(now, timeZone, 30);
  const today = siteDays(now, timeZone, 1)[0]!;
  const users = await repo.userFigures(app.db, today.lo, now - 7 * DAY_MS);
  await breathe();
  const coins = await repo.coinTotals(app.db);
  await breathe();
  const orders = await repo.orderFigures(app.db, today.lo, month!.lo);
  await breathe();
  const services = await repo.serviceFigures(app.db, today.day);
  await breathe();
  const quota = await repo.quotaOutstanding(app.db, now);
  return {
    today: today.day,
    timeZone,
    users: { total: users.total, newToday: users.newToday, active7d: users.active7d },
    coins: { ...coins, held: users.held, balanced: coins.issued - coins.removed === users.held },
    orders,
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
  const revenue = await repo.revenuePerDay(app.db, days);
  await breathe();
  const coins = await repo.coinsPerDay(app.db, days);
  await breathe();
  const runs = await repo.runsPerDay(app.db, days[0]!.day, days.at(-1)!.day);
  await breathe();
  const users = await repo.newUsersPerDay(app.db, days);
  // At most 90 days and four short lists: filling the days without data is cheap.
  const byDay = <T extends { day: string }>(list: T[]) => new Map(list.map((r) => [r.day, r]));
  const [revenueOf, coinsOf, runsOf, usersOf] = [byDay(revenue), byDay(coins), byDay(runs), byDay(users)];
  return {
    days: range,
    timeZone,
    series: days.map(({ day }) => ({
      day,
      revenue: revenueOf.get(day)?.revenue ?? 0,
      coinsIssued: coinsOf.get(day)?.issued ?? 0,
      coinsSpent: coinsOf.get(day)?.spent ?? 0,
      runsSucceeded: runsOf.get(day)?.succeeded ?? 0,
      runsFailed: runsOf.get(day)?.failed ?? 0,
      runsSkipped: runsOf.get(day)?.skipped ?? 0,
      newUsers: usersOf.get(day)?.users ?? 0,
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
