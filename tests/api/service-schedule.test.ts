import { describe, expect, it } from 'vitest';
import { idem } from '../helpers/ledger.js';
import {
  addPlatform,
  checkinsOf,
  runsOf,
  runUntil,
  siteTime,
  siteWallClock,
  startService,
  WEEKDAYS_0830,
} from '../helpers/services.js';
import { useTestApp } from '../helpers/test-app.js';

// The planner on a fake clock: weeks of schedule in milliseconds, in the site's time zone (Asia/Shanghai).
const app = useTestApp();

describe('the schedule of a service', () => {
  it('plans a Monday-to-Friday 08:30 service exactly once per weekday over two weeks, none on weekends', async () => {
    // Sunday evening, site time; the clock only moves forward from here.
    app().clock.current = siteTime('2026-11-29T20:00');
    const platformId = await addPlatform(app(), { price: 0, billingUnit: 'per_run' });
    const user = await app().newUser();
    // 07:30 in Shanghai is 23:30 UTC the evening before: the weekday must come from the site's zone, not UTC's.
    const early = await addPlatform(app(), { kind: 'xxy', price: 0, billingUnit: 'per_run' });
    const service = await startService(user.client, platformId, WEEKDAYS_0830);
    const before = await startService(user.client, early, { ...WEEKDAYS_0830, checkInTime: '07:30' });
    expect(service.nextRunAt).toBe(siteTime('2026-11-30T08:30'));

    await runUntil(app(), siteTime('2026-12-13T23:59'), { keepAlive: [user.client] });
    // Ticking again at the same moment (another process planning the same minute) adds nothing.
    await app().built.scheduler.tick();

    for (const [id, time] of [
      [service.id, '08:30'],
      [before.id, '07:30'],
    ] as const) {
      const runs = await runsOf(app(), id);
      const days = runs.map((r) => siteWallClock(r.scheduledAt));
      expect(days.map((d) => d.day)).toEqual([
        '2026-11-30',
        '2026-12-01',
        '2026-12-02',
        '2026-12-03',
        '2026-12-04',
        '2026-12-07',
        '2026-12-08',
        '2026-12-09',
        '2026-12-10',
        '2026-12-11',
      ]);
      expect(days.every((d) => d.weekday <= 5 && d.time === time)).toBe(true);
      expect(runs.every((r) => r.state === 'succeeded' && r.attempts === 1)).toBe(true);
      expect(new Set(runs.map((r) => r.scheduledAt)).size).toBe(runs.length);
      // The sandbox received each run once.
      const checkins = await checkinsOf(app(), id);
      expect(checkins.map((c) => Number(c.runId)).sort()).toEqual(runs.map((r) => r.id).sort());
      expect(checkins.every((c) => Number(c.deliveries) === 1)).toBe(true);
    }
    // The 07:30 runs fall on the previous UTC date: Sunday 23:30 UTC is Monday in Shanghai.
    const first = (await runsOf(app(), before.id))[0]!;
    expect(new Date(first.scheduledAt).getUTCDay()).toBe(0);
    expect(first.day).toBe('2026-11-30');

    // The counts of the seed: today (Friday 12-11 is past; it is Sunday 12-13 now) and in total.
    expect(await user.client.ok('userClockCount')).toEqual({ today: 0, total: 20 });
    const mine = await user.client.ok('serviceMy');
    expect(mine.map((s: { succeeded: number }) => s.succeeded)).toEqual([10, 10]);
  });

  it('counts today in the site time zone, and plans nothing for a paused service or a shelved platform', async () => {
    const platformId = await addPlatform(app(), { kind: 'qzt', price: 0, billingUnit: 'per_run' });
    const other = await addPlatform(app(), { kind: 'sxzs', price: 0, billingUnit: 'per_run' });
    const user = await app().newUser();
    const everyDay = { days: [1, 2, 3, 4, 5, 6, 7], checkInTime: '09:00', checkOutTime: '18:00', notify: 'inbox' };
    const paused = await startService(user.client, platformId, everyDay);
    const shelved = await startService(user.client, other, everyDay);
    const day = siteWallClock(app().clock.current).day;
    await runUntil(app(), siteTime(`${day}T23:00`) + 24 * 3600_000, { keepAlive: [user.client] });
    // Next day 23:00: that day's 09:00 and 18:00 ran for both.
    expect(await user.client.ok('userClockCount')).toEqual({ today: 4, total: 4 });

    // A run queued but not started when the platform goes off shelf is skipped (reason shown, nothing charged);
    // nothing new is planned after it.
    const queued = await user.client.ok('serviceRunNow', { body: { id: shelved.id }, headers: idem() });
    await user.client.ok('servicePause', { body: { id: paused.id } });
    await (await app().admin()).ok('platformShelf', { body: { id: other, status: 0 } });
    await runUntil(app(), app().clock.current + 2 * 24 * 3600_000, { keepAlive: [user.client] });
    expect((await runsOf(app(), paused.id)).length).toBe(2);
    const afterShelving = await runsOf(app(), shelved.id);
    expect(afterShelving.map((r) => [r.trigger, r.state])).toEqual([
      ['schedule', 'succeeded'],
      ['schedule', 'succeeded'],
      ['manual', 'skipped'],
    ]);
    expect(afterShelving[2]).toMatchObject({ id: queued.id, result: '平台已下架，本次跳过', charged: 0 });
    // The shelved platform's page says it is not open; the run list is kept.
    const page = await user.client.ok('platformOverview', { query: { kind: 'sxzs' } });
    expect(page).toMatchObject({ kind: { code: 'sxzs' }, platform: null, service: null });
    const runs = await user.client.ok('runMy', { body: { serviceId: shelved.id } });
    expect(runs.total).toBe(3);
  });

  it('plans nothing more for a deleted account', async () => {
    const platformId = await addPlatform(app(), { kind: 'zxjy', price: 0, billingUnit: 'per_run' });
    const user = await app().newUser();
    const service = await startService(user.client, platformId, {
      days: [1, 2, 3, 4, 5, 6, 7],
      checkInTime: '12:00',
      notify: 'inbox',
    });
    await runUntil(app(), app().clock.current + 24 * 3600_000);
    expect((await runsOf(app(), service.id)).length).toBe(1);
    await (await app().admin()).ok('userDelete', { body: { id: user.id } });
    await runUntil(app(), app().clock.current + 3 * 24 * 3600_000);
    expect((await runsOf(app(), service.id)).length).toBe(1);
  });

  it('runs a course service once a day per distinct window start', async () => {
    const platformId = await addPlatform(app(), { kind: 'hzj', price: 0, billingUnit: 'per_run' });
    const user = await app().newUser();
    const courses = [
      { name: '大学英语', windowStart: '19:00', windowEnd: '21:00' },
      { name: '思政', windowStart: '19:00', windowEnd: '20:00' },
      { name: '高等数学', windowStart: '07:00', windowEnd: '08:00' },
    ];
    const service = await startService(user.client, platformId, { courses, notify: 'inbox' });
    const from = app().clock.current;
    await runUntil(app(), from + 3 * 24 * 3600_000, { keepAlive: [user.client] });
    const times = (await runsOf(app(), service.id)).map((r) => siteWallClock(r.scheduledAt).time);
    expect(times.length).toBe(6);
    expect(new Set(times)).toEqual(new Set(['07:00', '19:00']));
  });

  it('runs a service now once per Idempotency-Key', async () => {
    const platformId = await addPlatform(app(), { kind: 'xyb', price: 0, billingUnit: 'per_run' });
    const user = await app().newUser();
    const service = await startService(user.client, platformId);
    const key = idem();
    const first = await user.client.ok('serviceRunNow', { body: { id: service.id }, headers: key });
    const again = await user.client.ok('serviceRunNow', { body: { id: service.id }, headers: key });
    expect(again.id).toBe(first.id);
    expect(first).toMatchObject({ state: 'due', trigger: 'manual' });
    await app().built.scheduler.tick();
    const runs = await user.client.ok('runMy', { body: { serviceId: service.id } });
    expect(runs.records.map((r: { id: number; state: string }) => [r.id, r.state])).toEqual([[first.id, 'succeeded']]);
  });
});
