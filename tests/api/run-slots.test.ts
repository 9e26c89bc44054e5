import { describe, expect, it } from 'vitest';
import { idem } from '../helpers/ledger.js';
import { addPlatform, runsOf, runUntil, siteTime, siteWallClock, startService } from '../helpers/services.js';
import { useTestApp } from '../helpers/test-app.js';

// A planned run records which of its service's times it is, so the run lists tell 签到 from 签退.
const app = useTestApp();

type Listed = { slot: string | null; trigger: string };

describe('the slot of a run', () => {
  it('plans one 签到 and one 签退 run a day for a service with both times, each named by its slot', async () => {
    // Monday 07:00 site time: the day's check-in at 08:30 and check-out at 17:30 are both ahead.
    app().clock.current = siteTime('2026-12-07T07:00');
    const platformId = await addPlatform(app(), { kind: 'gxy', price: 0, billingUnit: 'per_run' });
    const user = await app().newUser();
    const service = await startService(user.client, platformId, {
      days: [1, 2, 3, 4, 5],
      checkInTime: '08:30',
      checkOutTime: '17:30',
      notify: 'inbox',
    });
    await runUntil(app(), siteTime('2026-12-07T23:00'), { keepAlive: [user.client] });

    const runs = await runsOf(app(), service.id);
    expect(runs.map((r) => [siteWallClock(r.scheduledAt).time, r.slot])).toEqual([
      ['08:30', 'checkIn'],
      ['17:30', 'checkOut'],
    ]);
    // Both lists answer it, newest first: the user's and the admin's.
    const mine = await user.client.ok('runMy', { body: { serviceId: service.id } });
    expect(mine.records.map((r: Listed) => r.slot)).toEqual(['checkOut', 'checkIn']);
    const all = await (await app().admin()).ok('runListPage', { body: { serviceId: service.id } });
    expect(all.records.map((r: Listed) => r.slot)).toEqual(['checkOut', 'checkIn']);

    // A run made by hand is none of the times.
    const manual = await user.client.ok('serviceRunNow', { body: { id: service.id }, headers: idem() });
    expect(manual).toMatchObject({ trigger: 'manual', slot: null });
  });

  it('names a course service’s runs by the course slot', async () => {
    const platformId = await addPlatform(app(), { kind: 'wk', price: 0, billingUnit: 'per_run' });
    const user = await app().newUser();
    const courses = [{ name: '大学英语', windowStart: '19:00', windowEnd: '21:00' }];
    const service = await startService(user.client, platformId, { courses, notify: 'inbox' });
    await runUntil(app(), app().clock.current + 24 * 3600_000, { keepAlive: [user.client] });
    const runs = await runsOf(app(), service.id);
    expect(runs.map((r) => r.slot)).toEqual(['course']);
  });
});
