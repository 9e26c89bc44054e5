/** Calendar facts in the site's time zone (TZ_SITE). Recurrence itself is croner's; this only names days. */
const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar day (yyyy-mm-dd) of an instant in a time zone: "today" for counts and per-day billing. */
export function siteDay(ms: number, timeZone: string): string {
  let format = dayFormats.get(timeZone);
  if (!format) {
    // en-CA writes dates as yyyy-mm-dd.
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dayFormats.set(timeZone, format);
  }
  return format.format(ms);
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** How far a time zone's wall clock is ahead of UTC at an instant, in ms (changes across a DST switch). */
export function zoneOffsetAt(ms: number, timeZone: string): number {
  let format = offsetFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    offsetFormats.set(timeZone, format);
  }
  const parts = format.formatToParts(ms);
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return wall - (ms - (ms % 1000));
}

/**
 * The instant a site day (yyyy-mm-dd) begins: its local midnight as UTC epoch ms. The offset is looked up for that
 * very day (twice, in case midnight sits on the other side of a DST switch), never assumed constant; SQLite knows no
 * time zones, so day buckets are bounded by these instants.
 */
export function siteDayStart(day: string, timeZone: string): number {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const wallMidnight = Date.UTC(y, m - 1, d);
  const guess = wallMidnight - zoneOffsetAt(wallMidnight, timeZone);
  return wallMidnight - zoneOffsetAt(guess, timeZone);
}

/** The calendar day `delta` days after `day` (negative: before); plain date arithmetic, no time zone involved. */
export function addDays(day: string, delta: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + delta)).toISOString().slice(0, 10);
}

const clockFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * An instant as a person reads it in the site's time zone, month to minute (11-26 18:39): how a run is named in the
 * words a user reads (a notice, a statement line), instead of its database id.
 */
export function siteClock(ms: number, timeZone: string): string {
  let format = clockFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    clockFormats.set(timeZone, format);
  }
  const parts = format.formatToParts(ms);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('month')}-${part('day')} ${part('hour')}:${part('minute')}`;
}
