import { Cron } from 'croner';
import type { Schemas } from '../../../api/operations.js';

/**
 * When a service runs, by settings family (the kind's settings schema): cron patterns that croner evaluates in the
 * site's time zone. A new platform of an existing family needs nothing here; a new family adds one entry.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- settings arrive validated by their family schema; each entry names its own type
type Patterns = (settings: any) => string[];

const at = (time: string, days: string) => {
  const [h, m] = time.split(':').map(Number);
  return `${m} ${h} * * ${days}`;
};

const FAMILIES: Record<string, Patterns> = {
  // Days are 1 (Monday) … 7 (Sunday); cron counts Sunday as 0.
  ClockInSettings: (s: Schemas['ClockInSettings']) => {
    const days = [...s.days]
      .map((d) => d % 7)
      .sort()
      .join(',');
    return [s.checkInTime, s.checkOutTime].filter((t): t is string => !!t).map((t) => at(t, days));
  },
  // Each course once a day, at the start of its window; courses starting together share one run.
  CourseSettings: (s: Schemas['CourseSettings']) => [...new Set(s.courses.map((c) => at(c.windowStart, '*')))],
};

export const hasSchedule = (settingsSchema: string): boolean => settingsSchema in FAMILIES;

const crons = new Map<string, Cron>();
function cron(pattern: string, timeZone: string): Cron {
  const key = `${timeZone} ${pattern}`;
  let c = crons.get(key);
  if (!c) {
    c = new Cron(pattern, { timezone: timeZone });
    crons.set(key, c);
  }
  return c;
}

/** The first scheduled time strictly after `after`, or null when the settings plan nothing. */
export function nextOccurrence(
  settingsSchema: string,
  settings: unknown,
  after: number,
  timeZone: string,
): number | null {
  const patterns = FAMILIES[settingsSchema]?.(settings) ?? [];
  let next: number | null = null;
  for (const p of patterns) {
    const t = cron(p, timeZone).nextRun(new Date(after))?.getTime();
    if (t !== undefined && (next === null || t < next)) next = t;
  }
  return next;
}
