import * as events from '../notices/events.js';
import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import type { Db } from '../../db/database.js';
import { mapPage, type Page } from '../../db/paging.js';
import type { ServiceState } from '../../db/types.js';
import { badParams, conflict, notFound } from '../../lib/errors.js';
import { siteDay } from '../../lib/site-time.js';
import { writeAudit } from '../../support/audit/repo.js';
import { balance as quotaBalance } from '../quotas/service.js';
import { idempotent } from '../coins/idempotency.js';
import { findKindOr404, kindOf } from '../platforms/kinds.js';
import * as platforms from '../platforms/repo.js';
import { requirePlatform, toView as platformView } from '../platforms/service.js';
import * as runs from '../runs/repo.js';
import { toView as runView } from '../runs/service.js';
import type { SessionUser } from '../sessions/service.js';
import { charge } from './billing.js';
import type { ServiceSettings } from './families.js';
import * as repo from './repo.js';
import { nextOccurrence } from './schedules.js';
import { runChanged } from '../runs/live.js';

const NOT_FOUND = '服务不存在';
const CLOSED = '该平台暂未开放';
const nullableNumber = (v: number | string | null) => (v === null ? null : Number(v));

export const toView = (r: repo.ServiceRow): Schemas['Service'] => ({
  id: r.id,
  userId: r.userId,
  userAccount: r.userAccount,
  platformId: r.platformId,
  platformName: r.platformName,
  kind: r.kind,
  settings: r.settings.values,
  state: r.state,
  nextRunAt: nullableNumber(r.nextRunAt),
  succeeded: Number(r.succeeded),
  failed: Number(r.failed),
  lastRunState: r.lastRunState,
  lastRunAt: nullableNumber(r.lastRunAt),
  sandboxMode: r.sandboxMode,
  createdAt: Number(r.createdAt),
  updatedAt: Number(r.updatedAt),
});

/**
 * The service named by id, if the caller may act on it: its owner always, an admin only where `adminToo`. Anyone
 * else gets 404, the same answer as for a service that does not exist, so ids reveal nothing.
 */
async function requireService(db: Db, actor: SessionUser, id: number, adminToo = false): Promise<repo.ServiceRow> {
  const row = await repo.findService(db, id);
  if (!row || (row.userId !== actor.id && !(adminToo && actor.userRole === 'admin'))) throw notFound(NOT_FOUND);
  return row;
}

/** The next scheduled time after `now` for a service's settings. */
const nextRun = (app: AppContext, settings: ServiceSettings, now: number): number | null =>
  nextOccurrence(settings, now, app.config.jobs.timeZone);

export async function save(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['ServiceSaveRequest'],
): Promise<Schemas['Service']> {
  const platform = await requirePlatform(app, input.platformId);
  const kind = kindOf(platform.kind);
  if (!kind) throw notFound('平台不存在');
  const settings = app.settings.check(kind.settings, input.settings);
  const now = app.now();
  const existing = await repo.findByUserAndPlatform(app.db, actor.id, platform.id);
  if (!existing) {
    if (Number(platform.onShelf) !== 1) throw badParams(CLOSED);
    await repo.insertService(app.db, { userId: actor.id, platformId: platform.id, settings, now });
  }
  const row = existing ?? (await repo.findByUserAndPlatform(app.db, actor.id, platform.id))!;
  // A running service is planned again from its new settings.
  const nextRunAt = row.state === 'active' ? nextRun(app, settings, now) : row.nextRunAt;
  await repo.updateService(app.db, row.id, { settings: repo.storedSettings(settings), nextRunAt, updatedAt: now });
  return toView((await repo.findService(app.db, row.id))!);
}

/** Starts (or restarts) a service; a one-off platform is paid at the first start, in the same transaction. */
export async function start(app: AppContext, actor: SessionUser, id: number, key: string): Promise<Schemas['Service']> {
  return idempotent(app, { actorId: actor.id, key, operation: 'serviceStart', request: { id } }, async (trx) => {
    const service = await requireService(trx, actor, id);
    const platform = await platforms.findPlatform(trx, service.platformId);
    if (!platform || Number(platform.onShelf) !== 1) throw badParams(CLOSED);
    if (service.state === 'active') return toView(service);
    const now = app.now();
    if (platform.billingUnit === 'one_off') {
      const paid = await charge(trx, {
        userId: actor.id,
        serviceId: id,
        platformId: platform.id,
        billingUnit: platform.billingUnit,
        period: 'once',
        runId: null,
        price: Number(platform.price),
        description: `${platform.name}：开通服务`,
        now,
        metrics: app.metrics,
      });
      if (paid.kind === 'insufficient') throw badParams('积分不足');
    }
    await repo.updateService(trx, id, {
      state: 'active',
      nextRunAt: nextRun(app, service.settings, now),
      updatedAt: now,
    });
    return toView((await repo.findService(trx, id))!);
  });
}

async function changeState(
  app: AppContext,
  actor: SessionUser,
  id: number,
  to: ServiceState,
  from: ServiceState[],
  adminToo: boolean,
): Promise<Schemas['Service']> {
  const service = await requireService(app.db, actor, id, adminToo);
  if (!from.includes(service.state)) throw conflict(to === 'paused' ? '服务不在运行中' : '服务未启动');
  const now = app.now();
  await app.db.transaction().execute(async (trx) => {
    await repo.updateService(trx, id, { state: to, nextRunAt: null, updatedAt: now });
    if (service.userId !== actor.id) {
      if (to === 'paused')
        await events.servicePaused(trx, { userId: service.userId, platformName: service.platformName }, now);
      await writeAudit(
        trx,
        {
          actorId: actor.id,
          action: `service.${to}`,
          targetType: 'service',
          targetId: id,
          before: { state: service.state },
          after: { state: to },
        },
        now,
      );
    }
  });
  return toView((await repo.findService(app.db, id))!);
}

/** Pauses: no new runs; runs already due are skipped. An admin may pause anyone's service. */
export const pause = (app: AppContext, actor: SessionUser, id: number) =>
  changeState(app, actor, id, 'paused', ['active'], true);

export const stop = (app: AppContext, actor: SessionUser, id: number) =>
  changeState(app, actor, id, 'stopped', ['active', 'paused'], false);

/** Enqueues one run now; the worker claims, charges and executes it like a planned one. */
export async function runNow(app: AppContext, actor: SessionUser, id: number, key: string): Promise<Schemas['Run']> {
  return idempotent(app, { actorId: actor.id, key, operation: 'serviceRunNow', request: { id } }, async (trx) => {
    const service = await requireService(trx, actor, id);
    if (service.state !== 'active' && service.state !== 'paused') throw conflict('请先启动服务');
    const platform = await platforms.findPlatform(trx, service.platformId);
    if (!platform || Number(platform.onShelf) !== 1) throw badParams(CLOSED);
    const runId = await enqueueManualRun(trx, service, app.now(), app.config.jobs.timeZone);
    return runView((await runs.findRun(trx, runId))!);
  });
}

/** Enqueues one manual run of a service (a user's 'run now', an admin's batch), inside the caller's transaction. */
export async function enqueueManualRun(
  trx: Db,
  service: { id: number; userId: number; platformId: number },
  now: number,
  timeZone: string,
): Promise<number> {
  // A run's time is its key: two taps in the same millisecond (on two processes) take the next free millisecond.
  let id: number | undefined;
  for (let at = now; id === undefined; at++) {
    id = await runs.insertManualRun(trx, {
      serviceId: service.id,
      userId: service.userId,
      platformId: service.platformId,
      scheduledAt: at,
      day: siteDay(at, timeZone),
      createdAt: now,
    });
  }
  await runChanged(trx, { ...service, id, serviceId: service.id }, 'planned');
  return id;
}

export const get = async (app: AppContext, actor: SessionUser, id: number) =>
  toView(await requireService(app.db, actor, id, true));

export const mine = async (app: AppContext, actor: SessionUser) =>
  (await repo.listForUser(app.db, actor.id)).map(toView);

export async function listPage(app: AppContext, query: Schemas['ServiceQuery']): Promise<Page<Schemas['Service']>> {
  return mapPage(await repo.listServices(app.db, query), toView);
}

/** Admin: how the sandbox platform answers this service (a demonstration of retries, refunds and timeouts). */
export async function setSandboxMode(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['ServiceSandboxRequest'],
): Promise<Schemas['Service']> {
  const service = await requireService(app.db, actor, input.id, true);
  const now = app.now();
  await app.db.transaction().execute(async (trx) => {
    await repo.updateService(trx, input.id, { sandboxMode: input.mode, updatedAt: now });
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: 'service.sandbox',
        targetType: 'service',
        targetId: input.id,
        before: { mode: service.sandboxMode },
        after: { mode: input.mode },
      },
      now,
    );
  });
  return toView((await repo.findService(app.db, input.id))!);
}

/** A platform page: the kind's on-shelf platform (or null: '该平台暂未开放'), the caller's service there, its counts. */
export async function overview(
  app: AppContext,
  actor: SessionUser,
  code: string,
): Promise<Schemas['PlatformOverview']> {
  const kind = findKindOr404(code);
  const platform = await platforms.firstOnShelf(app.db, kind.code);
  const none = { runs: 0, days: 0 };
  if (!platform) return { kind: { ...kind }, platform: null, service: null, today: 0, total: 0, quota: none };
  const service = await repo.findByUserAndPlatform(app.db, actor.id, platform.id);
  const counts = await runs.countSucceeded(app.db, actor.id, siteDay(app.now(), app.config.jobs.timeZone), platform.id);
  const quota = await quotaBalance(app.db, actor.id, app.now(), platform.id);
  return {
    kind: { ...kind },
    platform: platformView(platform),
    service: service ? toView(service) : null,
    ...counts,
    quota,
  };
}
