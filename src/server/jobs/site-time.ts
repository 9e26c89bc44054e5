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
