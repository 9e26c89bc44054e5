import { describe, expect, it } from 'vitest';
import { csvTime } from '../../src/server/lib/csv-format.js';

// csvTime skips Intl for most instants (an export writes thousands); what it writes must be what Intl would write.
const formats = new Map<string, Intl.DateTimeFormat>();
const intl = (ms: number, timeZone: string) => {
  const format =
    formats.get(timeZone) ??
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
  formats.set(timeZone, format);
  const p = Object.fromEntries(format.formatToParts(ms).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
};

// Zones with daylight saving, half-hour offsets and half-hour clock changes, and a day skipped (Apia, 2011-12-30).
const ZONES = [
  'Asia/Shanghai',
  'America/New_York',
  'Europe/London',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Apia',
];

describe('csvTime', () => {
  it('writes every instant as Intl does, across clock changes in the site zone', () => {
    for (const zone of ZONES) {
      // Through 2011 and 2024 in steps that are not whole minutes, so every clock change falls between two steps.
      for (const year of zone === 'Pacific/Apia' ? [2011, 2024] : [2024]) {
        for (let ms = Date.UTC(year, 0, 1); ms < Date.UTC(year + 1, 0, 1); ms += 53 * 60_000 + 1_234) {
          if (csvTime(ms, zone) !== intl(ms, zone)) expect(`${zone} ${ms} ${csvTime(ms, zone)}`).toBe(intl(ms, zone));
        }
      }
    }
  }, 60_000);

  it('reads an ISO string and leaves null and an unreadable string as they are', () => {
    expect(csvTime('2024-03-10T07:30:15.999Z', 'America/New_York')).toBe('2024-03-10 03:30:15');
    expect(csvTime(Date.UTC(1969, 11, 31, 23, 59, 59, 500), 'UTC')).toBe('1969-12-31 23:59:59');
    expect(csvTime(null, 'UTC')).toBeNull();
    expect(csvTime('not a date', 'UTC')).toBe('not a date');
  });
});
