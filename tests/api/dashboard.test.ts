import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/operations.js';
import { addDays, siteDay } from '../../src/server/lib/site-time.js';
import type { RunState } from '../../src/server/db/types.js';
import { entriesOf, expectLedgerConsistent, grant, idem } from '../helpers/ledger.js';
import { addPlatform, siteTime, startService } from '../helpers/services.js';
import { insertRollup } from '../../src/server/modules/dashboard/repo.js';
import { useTestApp, type TestApp } from '../helpers/test-app.js';
import type { ApiClient } from '../helpers/client.js';

// The admin dashboard's figures and the clock-in calendar, checked against what the ledger, orders and runs tables
// hold. The site is in Asia/Shanghai (UTC+8): its midnight is 16:00 UTC, so a UTC bucketing would put the entries
// either side of it on the same day.
// The clock starts on the test's own day before the app is built, so the seeded admin, the start-up rollups and
// every session live on it too; nothing here depends on the real date.
const app = useTestApp({}, { startAt: siteTime('2026-11-22T12:00') });
const TZ = 'Asia/Shanghai';

const db = () => app().built.context.db;

async function addRun(
  a: TestApp,
  service: Schemas['Service'],
  local: string,
  state: RunState,
  trigger: 'schedule' | 'manual' = 'schedule',
): Promise<void> {
  const scheduledAt = siteTime(local);
  await db()
    .insertInto('runs')
    .values({
      serviceId: service.id,
      userId: service.userId,
      platformId: service.platformId,
      trigger,
      scheduledAt,
      day: siteDay(scheduledAt, TZ),
      state,
      nextAttemptAt: scheduledAt,
      createdAt: a.clock.current,
    })
    .execute();
}

/**
 * Buys a package online through the built-in sandbox gateway, as the phone and the cashier page do: the order with
 * the sandbox's method, the cashier's signed request, 付款, and the gateway's notice over the app's loopback, which
 * arrives on its own a moment later (orderCheck asks the gateway too): the order is paid online, not by an admin.
 */
async function payOnline(a: TestApp, buyer: ApiClient, packageId: number): Promise<Schemas['Order']> {
  const admin = await a.admin();
  const channels = await admin.ok<Schemas['PayChannelPage']>('payChannelListPage', {
    body: { current: 1, pageSize: 20 },
  });
  const sandbox = channels.records.find((c) => c.kind === 'sandbox')!;
  const { methods } = await buyer.ok<Schemas['PayMethods']>('payMethods');
  const method = methods.find((m) => m.channelId === sandbox.id)!.method;
  const placed = await buyer.ok<Schemas['OrderSubmitted']>('orderSubmit', {
    body: { packageId, channelId: sandbox.id, method },
    headers: idem(),
  });
  const cashier = a.client();
  const trade = await cashier.ok<Schemas['SandboxTrade']>('sandboxPaySubmit', {
    body: Object.fromEntries(new URL(placed.payUrl!).searchParams),
  });
  await cashier.ok('sandboxPayAct', { body: { tradeNo: trade.tradeNo, outcome: 'pay' } });
  for (let i = 0; i < 200; i++) {
    const order = await buyer.ok<Schemas['Order']>('orderCheck', { body: { orderNo: placed.orderNo } });
    if (order.status === 'paid') return order;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`order ${placed.orderNo} was not paid online`);
}

/** What the tables hold, summed here row by row, bucketed by the site day (in `tz`) of each row's time. */
async function fromTables(tz: string = TZ) {
  const entries = await entriesOf(app());
  const users = await db().selectFrom('users').select(['createdAt', 'coin', 'deletedAt']).execute();
  const orders = await db().selectFrom('orders').select(['status', 'paidAt', 'amount', 'paidBy']).execute();
  const runs = await db().selectFrom('runs').select(['day', 'state']).execute();
  const perDay = new Map<
    string,
    { issued: number; spent: number; revenue: number; online: number; newUsers: number; runs: string[] }
  >();
  const at = (day: string) =>
    perDay.get(day) ?? perDay.set(day, { issued: 0, spent: 0, revenue: 0, online: 0, newUsers: 0, runs: [] }).get(day)!;
  let issued = 0;
  let removed = 0;
  for (const e of entries) {
    if (e.kind === 'transfer_in' || e.kind === 'transfer_out') continue;
    if (e.amount > 0) {
      issued += e.amount;
      at(siteDay(e.createdAt, tz)).issued += e.amount;
    } else removed -= e.amount;
    if (e.kind === 'service_charge') at(siteDay(e.createdAt, tz)).spent -= e.amount;
  }
  // Accounts created that day, whether deleted since or not (a count that never changes once the day is over).
  for (const u of users) at(siteDay(Number(u.createdAt), tz)).newUsers += 1;
  for (const o of orders) {
    if (o.status !== 'paid') continue;
    const day = at(siteDay(Number(o.paidAt), tz));
    day.revenue += Number(o.amount);
    // Paid by the gateway's notice or query; every other paid order an admin confirmed.
    if (o.paidBy === 'online') day.online += Number(o.amount);
  }
  for (const r of runs) at(r.day).runs.push(r.state);
  const held = users.reduce((sum, u) => sum + Number(u.coin), 0);
  return { perDay, issued, removed, held, users: users.filter((u) => u.deletedAt === null).length };
}

describe('dashboard', () => {
  it('sums the ledger, orders, users and runs per site day, either side of local midnight', async () => {
    const a = app();
    const admin = await a.admin();
    const packageId = await admin.ok<number>('mallAdd', {
      body: { coinName: '看板套餐', amount: 4500, addCoin: 300, status: 1, sort: 0 },
    });
    const platformId = await addPlatform(a, { price: 2, billingUnit: 'per_run' });

    // The last second of 22 November, site time (15:59:59.999 UTC).
    a.clock.current = siteTime('2026-11-23T00:00') - 1;
    const alice = await a.newUser();
    await grant(a, alice.userAccount, 100);
    const lateOrder = await alice.client.ok<Schemas['Order']>('orderSubmit', { body: { packageId }, headers: idem() });
    await admin.ok('orderConfirm', { body: { id: lateOrder.id }, headers: idem() });

    // Midnight exactly: 23 November.
    a.clock.current = siteTime('2026-11-23T00:00');
    const bob = await a.newUser();
    await grant(a, alice.userAccount, 50);
    await admin.ok('userReduceCoin', {
      body: { userAccount: alice.userAccount, coin: 30, description: '测试扣除' },
      headers: idem(),
    });
    await alice.client.ok('userTransferCoin', {
      body: { userAccount: bob.userAccount, coin: 10 },
      headers: idem(),
    });
    const order = await bob.client.ok<Schemas['Order']>('orderSubmit', { body: { packageId }, headers: idem() });
    await admin.ok('orderConfirm', { body: { id: order.id }, headers: idem() });
    await bob.client.ok('orderSubmit', { body: { packageId }, headers: idem() }); // stays pending
    // Paid online through the sandbox gateway, at midnight too: counted apart from the admin's confirmations.
    const onlinePackage = await admin.ok<number>('mallAdd', {
      body: { coinName: '看板在线套餐', amount: 1990, addCoin: 100, status: 1, sort: 0 },
    });
    const carol = await a.newUser();
    const online = await payOnline(a, carol.client, onlinePackage);
    expect(online).toMatchObject({ paidBy: 'online', paidAt: siteTime('2026-11-23T00:00') });

    const service = await startService(alice.client, platformId);
    await addRun(a, service, '2026-11-22T23:59', 'succeeded');
    await addRun(a, service, '2026-11-23T00:00', 'succeeded', 'manual');
    await addRun(a, service, '2026-11-23T00:01', 'failed', 'manual');
    await addRun(a, service, '2026-11-23T00:02', 'refunded', 'manual');
    await addRun(a, service, '2026-11-23T00:03', 'skipped', 'manual');
    await addRun(a, service, '2026-11-23T09:00', 'due');

    a.clock.current = siteTime('2026-11-23T10:00');
    const held = await fromTables();
    const summary = await admin.ok<Schemas['DashboardSummary']>('dashboardSummary');
    expect(summary.today).toBe('2026-11-23');
    expect(summary.timeZone).toBe(TZ);
    expect(summary.coins).toEqual({
      issued: held.issued,
      removed: held.removed,
      spent: 0,
      held: held.held,
      balanced: true,
    });
    expect(summary.coins.issued - summary.coins.removed).toBe(summary.coins.held);
    expect(summary.users.total).toBe(held.users);
    // Bob and Carol; alice joined a millisecond before midnight, the admin on the 22nd when the app started.
    expect(summary.users.newToday).toBe(held.perDay.get('2026-11-23')?.newUsers);
    // Alice's order on the 22nd and Bob's today were confirmed by the admin, Carol's today paid online.
    expect(summary.orders).toEqual({
      pending: 1,
      confirmedToday: 2,
      revenueToday: 4500 + 1990,
      revenue30d: 9000 + 1990,
      revenueTodayOnline: 1990,
      revenueTodayManual: 4500,
      revenue30dOnline: 1990,
      revenue30dManual: 9000,
    });
    expect(summary.services).toEqual({
      active: expect.any(Number) as number,
      runsToday: 5,
      succeededToday: 1,
      endedToday: 3,
      successRate: 33,
    });
    expect(summary.services.active).toBeGreaterThanOrEqual(1);

    const { series } = await admin.ok<Schemas['DashboardSeries']>('dashboardSeries', { query: { days: 7 } });
    expect(series.map((d) => d.day)).toEqual([
      '2026-11-17',
      '2026-11-18',
      '2026-11-19',
      '2026-11-20',
      '2026-11-21',
      '2026-11-22',
      '2026-11-23',
    ]);
    for (const d of series) {
      const want = held.perDay.get(d.day);
      const runs = want?.runs ?? [];
      expect(d, d.day).toEqual({
        day: d.day,
        revenue: want?.revenue ?? 0,
        coinsIssued: want?.issued ?? 0,
        coinsSpent: want?.spent ?? 0,
        runsSucceeded: runs.filter((s) => s === 'succeeded').length,
        runsFailed: runs.filter((s) => s === 'failed' || s === 'refunded').length,
        runsSkipped: runs.filter((s) => s === 'skipped').length,
        newUsers: want?.newUsers ?? 0,
      });
    }
    // The rows either side of midnight, by hand: 22nd holds the seeded admin and alice, her 100 coins, her order and
    // one run.
    const [d22, d23] = series.slice(-2) as [Schemas['DashboardDay'], Schemas['DashboardDay']];
    expect(d22).toMatchObject({ revenue: 4500, runsSucceeded: 1, runsFailed: 0, newUsers: 2 });
    expect(d22.coinsIssued).toBeGreaterThanOrEqual(100 + 300);
    expect(d23).toMatchObject({ revenue: 4500 + 1990, runsSucceeded: 1, runsFailed: 2, runsSkipped: 1 });
    expect(d23.coinsIssued).toBeGreaterThanOrEqual(50 + 300);

    // The 22nd (and the days before) came from rollups, the 23rd (today) was summed live.
    const rolledDays = await db().selectFrom('dashboardDayRollups').select('day').where('timeZone', '=', TZ).execute();
    expect(rolledDays.map((r) => r.day)).toContain('2026-11-22');
    expect(rolledDays.map((r) => r.day)).not.toContain('2026-11-23');

    const ninety = await admin.ok<Schemas['DashboardSeries']>('dashboardSeries', { query: { days: 90 } });
    expect(ninety.series).toHaveLength(90);
    expect(ninety.series[0]!.day).toBe('2026-08-26');
    await expectLedgerConsistent(a);
  });

  it('answers only the ranges 7, 30 and 90, and only to an admin', async () => {
    const admin = await app().admin();
    expect((await admin.call('dashboardSeries', { query: { days: 14 } })).code).toBe(40000);
    const user = await app().newUser();
    for (const op of ['dashboardSummary', 'dashboardSeries'] as const) {
      const r = await user.client.call(op);
      expect([r.status, r.code]).toEqual([403, 40101]);
    }
  });
});

describe('calendar', () => {
  it('marks days with a success apart from days with only failed or skipped runs, for the caller only', async () => {
    const a = app();
    // Same clock as above (sessions stay valid); the runs are placed on past days of this month and the last.
    a.clock.current = siteTime('2026-11-23T11:00');
    const platformId = await addPlatform(a, { price: 0, billingUnit: 'per_run' });
    const otherPlatform = await addPlatform(a, { price: 0, billingUnit: 'per_run' });
    const carol = await a.newUser();
    const dave = await a.newUser();
    const mine = await startService(carol.client, platformId);
    const mineElsewhere = await startService(carol.client, otherPlatform);
    const his = await startService(dave.client, platformId);
    await addRun(a, mine, '2026-11-03T08:30', 'failed');
    await addRun(a, mine, '2026-11-03T09:30', 'succeeded', 'manual'); // a success after a failure: a success day
    await addRun(a, mine, '2026-11-04T08:30', 'failed');
    await addRun(a, mine, '2026-11-04T09:30', 'skipped', 'manual');
    await addRun(a, mine, '2026-11-05T08:30', 'refunded');
    await addRun(a, mine, '2026-11-06T08:30', 'due'); // not ended: no mark
    await addRun(a, mine, '2026-11-01T00:00', 'succeeded'); // local midnight: the 1st, not October
    await addRun(a, mine, '2026-10-31T23:59', 'succeeded');
    await addRun(a, mineElsewhere, '2026-11-07T08:30', 'succeeded');
    await addRun(a, his, '2026-11-08T08:30', 'succeeded');

    const cal = await carol.client.ok<Schemas['RunCalendar']>('runCalendar', { query: { month: '2026-11' } });
    expect(cal.days.map((d) => [d.day, d.mark, d.succeeded, d.failed, d.skipped])).toEqual([
      ['2026-11-01', 'succeeded', 1, 0, 0],
      ['2026-11-03', 'succeeded', 1, 1, 0],
      ['2026-11-04', 'unsuccessful', 0, 1, 1],
      ['2026-11-05', 'unsuccessful', 0, 1, 0],
      ['2026-11-07', 'succeeded', 1, 0, 0],
    ]);
    const onePlatform = await carol.client.ok<Schemas['RunCalendar']>('runCalendar', {
      query: { month: '2026-11', platformId: otherPlatform },
    });
    expect(onePlatform.days.map((d) => d.day)).toEqual(['2026-11-07']);
    const october = await carol.client.ok<Schemas['RunCalendar']>('runCalendar', { query: { month: '2026-10' } });
    expect(october.days.map((d) => d.day)).toEqual(['2026-10-31']);

    // Tapping a day lists that day's runs.
    const page = await carol.client.ok<Schemas['RunPage']>('runMy', { body: { day: '2026-11-04' } });
    expect(page.records.map((r) => r.state).sort()).toEqual(['failed', 'skipped']);

    // Another user's calendar: refused to a user, open to an admin.
    const refused = await dave.client.call('runCalendar', { query: { month: '2026-11', userId: carol.id } });
    expect([refused.status, refused.code]).toEqual([403, 40101]);
    const own = await dave.client.ok<Schemas['RunCalendar']>('runCalendar', {
      query: { month: '2026-11', userId: dave.id },
    });
    expect(own.days.map((d) => d.day)).toEqual(['2026-11-08']);
    const byAdmin = await (
      await a.admin()
    ).ok<Schemas['RunCalendar']>('runCalendar', { query: { month: '2026-11', userId: carol.id } });
    expect(byAdmin).toEqual(cal);
    expect((await carol.client.call('runCalendar', { query: { month: '2026-13' } })).code).toBe(40000);
  });
});

describe('dashboard rollups', () => {
  /** The rollup rows a time zone has, by day. */
  const rolled = async (timeZone: string) =>
    (
      await db()
        .selectFrom('dashboardDayRollups')
        .select('day')
        .where('timeZone', '=', timeZone)
        .orderBy('day')
        .execute()
    ).map((r) => r.day);

  /** Asks the dashboard now (summary and the 7-day series) and checks it against the tables summed row by row. */
  async function expectFiguresMatchTables(tz: string = TZ) {
    const a = app();
    const admin = await a.admin();
    const want = await fromTables(tz);
    const today = siteDay(a.clock.current, tz);
    const summary = await admin.ok<Schemas['DashboardSummary']>('dashboardSummary');
    const { series } = await admin.ok<Schemas['DashboardSeries']>('dashboardSeries', { query: { days: 7 } });
    expect(summary.today).toBe(today);
    expect(summary.timeZone).toBe(tz);
    expect(summary.coins).toEqual({
      issued: want.issued,
      removed: want.removed,
      spent: [...want.perDay.values()].reduce((sum, d) => sum + d.spent, 0),
      held: want.held,
      balanced: true,
    });
    const month = [...want.perDay.entries()].filter(([day]) => day > addDays(today, -30) && day <= today);
    const revenue30d = month.reduce((sum, [, d]) => sum + d.revenue, 0);
    const online30d = month.reduce((sum, [, d]) => sum + d.online, 0);
    const todays = want.perDay.get(today);
    expect(summary.orders.revenueToday).toBe(todays?.revenue ?? 0);
    expect(summary.orders.revenue30d).toBe(revenue30d);
    // Online and by hand, apart; together the whole.
    expect(summary.orders.revenueTodayOnline).toBe(todays?.online ?? 0);
    expect(summary.orders.revenueTodayManual).toBe((todays?.revenue ?? 0) - (todays?.online ?? 0));
    expect(summary.orders.revenue30dOnline).toBe(online30d);
    expect(summary.orders.revenue30dManual).toBe(revenue30d - online30d);
    expect(summary.users.newToday).toBe(want.perDay.get(today)?.newUsers ?? 0);
    expect(series.at(-1)!.day).toBe(today);
    for (const d of series) {
      const w = want.perDay.get(d.day);
      expect([d.day, d.coinsIssued, d.coinsSpent, d.revenue, d.newUsers]).toEqual([
        d.day,
        w?.issued ?? 0,
        w?.spent ?? 0,
        w?.revenue ?? 0,
        w?.newUsers ?? 0,
      ]);
    }
    return series;
  }

  it('serves finished days from rollups and today live, keeps a day live for a margin after midnight, and follows the clock', async () => {
    const a = app();
    const admin = await a.admin();
    const packageId = await admin.ok<number>('mallAdd', {
      body: { coinName: '汇总套餐', amount: 1990, addCoin: 100, status: 1, sort: 0 },
    });
    const midnight = siteTime('2026-11-25T00:00');
    a.clock.current = siteTime('2026-11-24T09:00');
    const erin = await a.newUser();
    await grant(a, erin.userAccount, 70);
    // The days before are over: asked now, they are rolled up (the first test's 22nd and 23rd among them).
    await expectFiguresMatchTables();
    expect(await rolled(TZ)).toContain('2026-11-23');
    expect(await rolled(TZ)).not.toContain('2026-11-24');

    // Midnight exactly belongs to the 25th.
    a.clock.current = midnight;
    await grant(a, erin.userAccount, 5);
    // Half a minute later the 24th is over, but within the margin: still summed live, not rolled up.
    a.clock.current = midnight + 30_000;
    await expectFiguresMatchTables();
    expect(await rolled(TZ)).not.toContain('2026-11-24');

    // A transaction that read the clock a millisecond before midnight commits now: its rows belong to the 24th.
    a.clock.current = midnight - 1;
    await grant(a, erin.userAccount, 9);
    const late = await erin.client.ok<Schemas['Order']>('orderSubmit', { body: { packageId }, headers: idem() });
    await admin.ok('orderConfirm', { body: { id: late.id }, headers: idem() });
    await a.newUser();

    a.clock.current = midnight + 60_000;
    const d24 = (await expectFiguresMatchTables()).find((d) => d.day === '2026-11-24')!;
    expect(d24.coinsIssued).toBeGreaterThanOrEqual(70 + 9 + 100);
    expect(d24.revenue).toBe(1990);

    // Past the margin the 24th is rolled up, late rows included; the clock moves on and the days keep adding up.
    a.clock.current = siteTime('2026-11-25T09:00');
    await grant(a, erin.userAccount, 11);
    await expectFiguresMatchTables();
    expect(await rolled(TZ)).toContain('2026-11-24');
    expect(await rolled(TZ)).not.toContain('2026-11-25');
    a.clock.current = siteTime('2026-11-28T15:00');
    await grant(a, erin.userAccount, 13);
    await expectFiguresMatchTables();
    expect(await rolled(TZ)).toEqual(expect.arrayContaining(['2026-11-25', '2026-11-26', '2026-11-27']));
    expect(await rolled(TZ)).not.toContain('2026-11-28');
    await expectLedgerConsistent(a);
  });

  it('never serves one time zone the rollups of another', async () => {
    const context = app().built.context;
    const shanghai = await rolled(TZ);
    expect(shanghai.length).toBeGreaterThan(0);
    const config = context.config;
    // The site moves to UTC: its days begin 8 hours later, so the entries of 16:00-24:00 UTC change day.
    context.config = { ...config, jobs: { ...config.jobs, timeZone: 'UTC' } };
    try {
      await expectFiguresMatchTables('UTC');
      expect((await rolled('UTC')).length).toBeGreaterThan(0);
    } finally {
      context.config = config;
    }
    // And back: the Shanghai rollups are as they were, and still right.
    expect(await rolled(TZ)).toEqual(shanghai);
    await expectFiguresMatchTables();
  });

  it('keeps the first rollup of a day when another server process writes the same day again', async () => {
    const row = () =>
      db()
        .selectFrom('dashboardDayRollups')
        .select(['coinsIssued', 'revenue'])
        .where('timeZone', '=', TZ)
        .where('day', '=', '2026-11-24')
        .executeTakeFirstOrThrow();
    const before = await row();
    const other = { issued: 1, removed: 2, spent: 3, paidOrders: 4, revenue: 5, newUsers: 6 };
    await insertRollup(db(), TZ, '2026-11-24', other, app().clock.current);
    expect(await row()).toEqual(before);
    await expectFiguresMatchTables();
  });
});
