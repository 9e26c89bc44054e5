import type { AppContext } from '../modules/context.js';
import { timeSlices } from '../lib/give-way.js';
import { nextOccurrence, slotAt } from '../modules/services/schedules.js';
import { advanceCursor, enqueue, servicesDue } from '../modules/runs/queue-repo.js';
import { siteDay } from '../lib/site-time.js';
import { runChanged } from '../modules/runs/live.js';

/** A scheduled time missed by more than this (the site was down) is not worth a late check-in; it is passed over. */
export const MISSED_GRACE_MS = 60 * 60 * 1000;
const SERVICES_PER_PASS = 500;

/**
 * Enqueues every run whose time has come and moves each service's cursor to its next occurrence. Safe to run in any
 * number of processes at once: a run exists once by its unique key, and a cursor moves only from the value read.
 * Each service's runs and cursor are statements of their own, and the pass gives way to requests once a slice of time
 * is spent (a pass may plan hundreds of services at a busy minute).
 */
export async function planDue(app: AppContext): Promise<number> {
  const now = app.now();
  const timeZone = app.config.jobs.timeZone;
  let enqueued = 0;
  const pace = timeSlices();
  for (const service of await servicesDue(app.db, now, SERVICES_PER_PASS)) {
    await pace();
    const { settings } = service;
    const from = Number(service.nextRunAt);
    // A service of a kind no longer declared plans nothing: its cursor is cleared.
    let at: number | null = settings.family === null ? null : from;
    if (at !== null && at < now - MISSED_GRACE_MS) at = nextOccurrence(settings, now - MISSED_GRACE_MS - 1, timeZone);
    while (at !== null && at <= now) {
      const run = {
        serviceId: service.id,
        userId: service.userId,
        platformId: service.platformId,
        scheduledAt: at,
        // Which of the settings' times this is (签到 or 签退): the name the run lists show.
        slot: slotAt(settings, at, timeZone),
        day: siteDay(at, timeZone),
        now,
      };
      const id = await enqueue(app.db, run);
      // Only the planner that inserted it tells: another process planning the same minute inserted nothing.
      if (id !== undefined) await runChanged(app.db, { ...run, id }, 'planned');
      enqueued++;
      at = nextOccurrence(settings, at, timeZone);
    }
    await advanceCursor(app.db, service.id, from, at);
  }
  return enqueued;
}
