import { Cron } from 'croner';
import type { Schemas } from '../../../api/operations.js';
import { forFamily, type ByFamily, type ServiceSettings } from './families.js';

const at = (time: string, days: string) => {
  const [h, m] = time.split(':').map(Number);
  return `${m} ${h} * * ${days}`;
};

/** Which of its settings' times a planned run is: the name a run list shows it by (签到, 签退). */
export type RunSlot = Schemas['RunSlot'];

/** One of a service's times: a cron pattern and the slot a run at that time belongs to. */
interface Slot {
  readonly slot: RunSlot;
  readonly pattern: string;
}

/**
 * When a service runs, by settings family (the kind's settings schema): cron patterns that croner evaluates in the
 * site's time zone, each named by its slot (the RunSlot enum in openapi.yaml). A new platform of an existing family
 * needs nothing here; a new family fails the type check until it has its entry, its slot names with it.
 */
const SCHEDULES: ByFamily<Slot[]> = {
  // Days are 1 (Monday) … 7 (Sunday); cron counts Sunday as 0. Check-in comes first: a check-out at the same minute
  // is the same run, a check-in.
  ClockInSettings: (s) => {
    const days = [...s.days]
      .map((d) => d % 7)
      .sort()
      .join(',');
    const slots: Slot[] = [{ slot: 'checkIn', pattern: at(s.checkInTime, days) }];
    if (s.checkOutTime) slots.push({ slot: 'checkOut', pattern: at(s.checkOutTime, days) });
    return slots;
  },
  // Each course once a day, at the start of its window; courses starting together share one run.
  CourseSettings: (s) =>
    [...new Set(s.courses.map((c) => at(c.windowStart, '*')))].map((pattern) => ({ slot: 'course', pattern })),
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
  let next: number | null = null;
  for (const { pattern } of forFamily(SCHEDULES, settings, [])) {
    const t = cron(pattern, timeZone).nextRun(new Date(after))?.getTime();
    if (t !== undefined && (next === null || t < next)) next = t;
  }
  return next;
}

/**
 * The slot of a scheduled time: the first of the settings' times that falls on it, or null when none does (the
 * settings changed since it was planned, or their kind is gone).
 */
export function slotAt(settings: ServiceSettings, at: number, timeZone: string): RunSlot | null {
  for (const { slot, pattern } of forFamily(SCHEDULES, settings, [])) {
    const next = cron(pattern, timeZone).nextRun(new Date(at - 1));
    if (next?.getTime() === at) return slot;
  }
  return null;
}
