import { Cron } from 'croner';
import { forFamily, type ByFamily, type ServiceSettings } from './families.js';

const at = (time: string, days: string) => {
  const [h, m] = time.split(':').map(Number);
  return `${m} ${h} * * ${days}`;
};

/**
 * When a service runs, by settings family (the kind's settings schema): cron patterns that croner evaluates in the
 * site's time zone. A new platform of an existing family needs nothing here; a new family fails the type check until
 * it has its entry.
 */
const SCHEDULES: ByFamily<string[]> = {
  // Days are 1 (Monday) … 7 (Sunday); cron counts Sunday as 0.
  ClockInSettings: (s) => {
    const days = [...s.days]
      .map((d) => d % 7)
      .sort()
      .join(',');
    return [s.checkInTime, s.checkOutTime].filter((t): t is string => !!t).map((t) => at(t, days));
  },
  // Each course once a day, at the start of its window; courses starting together share one run.
  CourseSettings: (s) => [...new Set(s.courses.map((c) => at(c.windowStart, '*')))],
};

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

/** The first scheduled time strictly after `after`, or null when the settings plan nothing (or their kind is gone). */
export function nextOccurrence(settings: ServiceSettings, after: number, timeZone: string): number | null {
  const patterns = forFamily(SCHEDULES, settings, []);
  let next: number | null = null;
  for (const p of patterns) {
    const t = cron(p, timeZone).nextRun(new Date(after))?.getTime();
    if (t !== undefined && (next === null || t < next)) next = t;
  }
  return next;
}
