import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { mapPage, type Page } from '../../db/paging.js';
import { notFound } from '../../lib/errors.js';
import { siteDay } from '../../lib/site-time.js';
import type { SessionUser } from '../sessions/service.js';
import { ownerOf } from '../services/repo.js';
import * as repo from './repo.js';

const nullableNumber = (v: number | string | null) => (v === null ? null : Number(v));

export const toView = (r: repo.RunRow): Schemas['Run'] => ({
  id: r.id,
  serviceId: r.serviceId,
  userId: r.userId,
  userAccount: r.userAccount,
  platformId: r.platformId,
  platformName: r.platformName,
  kind: r.kind,
  trigger: r.trigger,
  slot: r.slot,
  scheduledAt: Number(r.scheduledAt),
  state: r.state,
  attempts: Number(r.attempts),
  startedAt: nullableNumber(r.startedAt),
  finishedAt: nullableNumber(r.finishedAt),
  // A retry's time matters only while the run waits for it.
  nextAttemptAt: r.state === 'due' && Number(r.attempts) > 0 ? Number(r.nextAttemptAt) : null,
  result: r.result,
  charged: Number(r.charged),
  paidByQuota: r.quotaGrantId !== null,
  chargeReference: r.chargeReference,
  refundReference: r.refundReference,
  createdAt: Number(r.createdAt),
});

async function page(app: AppContext, filter: repo.RunFilter): Promise<Page<Schemas['Run']>> {
  return mapPage(await repo.listRuns(app.db, filter), toView);
}

/** The caller's runs only: the filter is forced to the caller, and naming another user's service is a 404 like any other. */
export async function myRuns(
  app: AppContext,
  actor: SessionUser,
  query: Schemas['RunQuery'],
): Promise<Page<Schemas['Run']>> {
  if (query.serviceId !== undefined) {
    if ((await ownerOf(app.db, query.serviceId)) !== actor.id) throw notFound('服务不存在');
  }
  return page(app, { ...query, userId: actor.id });
}

export const allRuns = (app: AppContext, query: Schemas['RunAdminQuery']) => page(app, query);

export const today = (app: AppContext) => siteDay(app.now(), app.config.jobs.timeZone);

/** The seed's clock-in counts: successful runs today (site time zone) and in total. */
export const clockCount = (app: AppContext, actor: SessionUser): Promise<Schemas['ClockCount']> =>
  repo.countSucceeded(app.db, actor.id, today(app));
