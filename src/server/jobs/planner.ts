import type { AppContext } from '../context.js';
import { kindOf } from '../modules/platforms/kinds.js';
import { nextOccurrence } from '../modules/services/schedules.js';
import { advanceCursor, enqueue, servicesDue } from './queue.js';
import { siteDay } from '../lib/site-time.js';

/** A scheduled time missed by more than this (the site was down) is not worth a late check-in; it is passed over. */
export const MISSED_GRACE_MS = 60 * 60 * 1000;
const SERVICES_PER_PASS = 500;

/**
 * Enqueues every run whose time has come and moves each service's cursor to its next occurrence. Safe to run in any
 * number of processes at once: a run exists once by its unique key, and a cursor moves only from the value read.
 */
export async function planDue(app: AppContext): Promise<number> {
  const now = app.now();
  const timeZone = app.config.jobs.timeZone;
  let enqueued = 0;
  for (const service of await servicesDue(app.db, now, SERVICES_PER_PASS)) {
    const schema = kindOf(service.kind)?.settings;
    const from = Number(service.nextRunAt);
    if (!schema) {
      await advanceCursor(app.db, service.id, from, null);
      continue;
    }
    const settings: unknown = JSON.parse(service.settings);
    let at: number | null = from;
    if (at < now - MISSED_GRACE_MS) at = nextOccurrence(schema, settings, now - MISSED_GRACE_MS - 1, timeZone);
    while (at !== null && at <= now) {
      await enqueue(app.db, {
        serviceId: service.id,
        userId: service.userId,
        platformId: service.platformId,
        scheduledAt: at,
        day: siteDay(at, timeZone),
        now,
      });
      enqueued++;
      at = nextOccurrence(schema, settings, at, timeZone);
    }
    await advanceCursor(app.db, service.id, from, at);
  }
  return enqueued;
}
