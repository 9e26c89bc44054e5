import { describe, expect, it } from 'vitest';
import { addDays, siteDay, siteDayStart } from '../../src/server/lib/site-time.js';
import { siteDays } from '../../src/server/modules/dashboard/service.js';

// The dashboard buckets rows by site day with instants computed here (SQLite has no time zones). A zone with daylight
// saving has 23- and 25-hour days; a fixed offset would put an hour of rows on the wrong day twice a year.
describe('site days', () => {
  it('starts a Shanghai day at 16:00 UTC the day before', () => {
    expect(siteDayStart('2026-11-23', 'Asia/Shanghai')).toBe(Date.parse('2026-11-22T16:00:00Z'));
    expect(siteDay(siteDayStart('2026-11-23', 'Asia/Shanghai') - 1, 'Asia/Shanghai')).toBe('2026-11-22');
  });

  it('gives a DST switch day its 23 or 25 hours (Berlin, New York)', () => {
    const hours = (day: string, zone: string) =>
      (siteDayStart(addDays(day, 1), zone) - siteDayStart(day, zone)) / 3.6e6;
    expect(hours('2026-03-29', 'Europe/Berlin')).toBe(23);
    expect(hours('2026-10-25', 'Europe/Berlin')).toBe(25);
    expect(hours('2026-03-08', 'America/New_York')).toBe(23);
    expect(hours('2026-11-01', 'America/New_York')).toBe(25);
    expect(siteDayStart('2026-03-30', 'Europe/Berlin')).toBe(Date.parse('2026-03-29T22:00:00Z'));
    expect(siteDayStart('2026-03-29', 'Europe/Berlin')).toBe(Date.parse('2026-03-28T23:00:00Z'));
  });

  it('lists a range of days ending today, each bounded by its own midnights, with no gap or overlap', () => {
    const now = Date.parse('2026-03-30T10:00:00Z');
    const days = siteDays(now, 'Europe/Berlin', 7);
    expect(days.map((d) => d.day)).toEqual([
      '2026-03-24',
      '2026-03-25',
      '2026-03-26',
      '2026-03-27',
      '2026-03-28',
      '2026-03-29',
      '2026-03-30',
    ]);
    for (let i = 1; i < days.length; i++) expect(days[i]!.lo).toBe(days[i - 1]!.hi);
    for (const d of days) expect(siteDay(d.lo, 'Europe/Berlin')).toBe(d.day);
    for (const d of days) expect(siteDay(d.hi - 1, 'Europe/Berlin')).toBe(d.day);
  });
});
