import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { mapPage, type Page } from '../../db/paging.js';
import type { SiteInformationRow } from '../../db/types.js';
import { badParams, notFound } from '../../lib/errors.js';
import { writeAudit } from '../../support/audit/repo.js';
import { publish } from '../../live/events.js';
import type { SessionUser } from '../sessions/service.js';
import * as repo from './repo.js';
import { LIVE_SITE_ID } from './repo.js';
import { refreshAnalyticsOrigin } from './analytics.js';
import type { SessionState } from '../sessions/service.js';
import { forgetLiveSite, liveSiteFromMemory } from './live-site-cache.js';

type Fields = Omit<Schemas['BasicInformationUpdateRequest'], 'id'>;

/** `timeZone`: the site's (TZ_SITE), which the web app shows every time in. */
const toView = (r: SiteInformationRow, timeZone: string): Schemas['BasicInformation'] => ({
  id: r.id,
  websiteName: r.websiteName,
  noticeBar: r.noticeBar,
  noticeAnnouncementTitle: r.noticeAnnouncementTitle,
  noticeAnnouncement: r.noticeAnnouncement,
  pointsNotification: r.pointsNotification,
  coinName: r.coinName,
  addCoin: r.addCoin,
  amount: r.amount,
  rebatePercent: r.rebatePercent,
  status: r.status as 0 | 1,
  analyticsUrl: r.analyticsUrl,
  userId: r.userId,
  updatedAt: r.updatedAt,
  timeZone,
  policyVersion: r.policyVersion,
});

/** Only the fields the caller sent, so an update never blanks what it did not mention. */
function pickFields(input: Fields): Fields {
  const keys = [
    'websiteName',
    'noticeBar',
    'noticeAnnouncementTitle',
    'noticeAnnouncement',
    'pointsNotification',
    'coinName',
    'addCoin',
    'amount',
    'rebatePercent',
    'status',
    'analyticsUrl',
  ] as const;
  return Object.fromEntries(keys.filter((k) => input[k] !== undefined).map((k) => [k, input[k]]));
}

async function requireSite(app: AppContext, id: number): Promise<SiteInformationRow> {
  const row = await repo.findSite(app.db, id);
  if (!row) throw notFound('站点信息不存在');
  return row;
}

/** The live record comes from memory for up to a second (live-site-cache.ts); drafts (admins only) from the table. */
export async function get(app: AppContext, id: number): Promise<Schemas['BasicInformation']> {
  if (id === LIVE_SITE_ID)
    return liveSiteFromMemory(app.db, async () => toView(await requireSite(app, id), app.config.jobs.timeZone));
  return toView(await requireSite(app, id), app.config.jobs.timeZone);
}

/** Record 1 is public; other records are drafts only an admin may read (404 to others, so ids reveal nothing). */
export async function getFor(
  app: AppContext,
  id: number,
  session: () => Promise<SessionState>,
): Promise<Schemas['BasicInformation']> {
  if (id !== LIVE_SITE_ID) {
    const caller = await session();
    if (caller.kind !== 'active' || caller.user.userRole !== 'admin') throw notFound('站点信息不存在');
  }
  return get(app, id);
}

export async function add(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['BasicInformationAddRequest'],
): Promise<number> {
  const now = app.now();
  const fields = pickFields(input);
  const id = await repo.insertSite(app.db, {
    websiteName: input.websiteName,
    noticeBar: fields.noticeBar ?? '',
    noticeAnnouncementTitle: fields.noticeAnnouncementTitle ?? '',
    noticeAnnouncement: fields.noticeAnnouncement ?? '',
    pointsNotification: fields.pointsNotification ?? '',
    coinName: fields.coinName ?? '积分',
    addCoin: fields.addCoin ?? 0,
    amount: fields.amount ?? 0,
    rebatePercent: fields.rebatePercent ?? 0,
    status: fields.status ?? 0,
    analyticsUrl: fields.analyticsUrl ?? '',
    userId: actor.id,
    createdAt: now,
    updatedAt: now,
  });
  await writeAudit(
    app.db,
    { actorId: actor.id, action: 'site.add', targetType: 'site', targetId: id, after: fields },
    now,
  );
  return id;
}

export async function update(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['BasicInformationUpdateRequest'],
): Promise<void> {
  const before = await requireSite(app, input.id);
  const fields = pickFields(input);
  const now = app.now();
  await app.db.transaction().execute(async (trx) => {
    await repo.updateSite(trx, input.id, { ...fields, userId: actor.id, updatedAt: now });
    const previous = Object.fromEntries(Object.keys(fields).map((k) => [k, before[k as keyof SiteInformationRow]]));
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: 'site.update',
        targetType: 'site',
        targetId: input.id,
        before: previous,
        after: fields,
      },
      now,
    );
    // Every open screen shows the live record (its name, notice bar, announcement): all of them read it again.
    if (input.id === LIVE_SITE_ID) await publish(trx, { kind: 'site' }, { everyone: true });
  });
  forgetLiveSite();
  if (input.id === LIVE_SITE_ID) await refreshAnalyticsOrigin(app);
}

export async function remove(app: AppContext, actor: SessionUser, id: number): Promise<void> {
  if (id === LIVE_SITE_ID) throw badParams('正在使用的站点信息（编号 1）不能删除');
  const before = await requireSite(app, id);
  const now = app.now();
  await app.db.transaction().execute(async (trx) => {
    await repo.deleteSite(trx, id);
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: 'site.delete',
        targetType: 'site',
        targetId: id,
        before: toView(before, app.config.jobs.timeZone),
      },
      now,
    );
  });
}

export async function list(app: AppContext, query: repo.SiteListQuery): Promise<Schemas['BasicInformation'][]> {
  return (await repo.listSites(app.db, query, false)).records.map((r) => toView(r, app.config.jobs.timeZone));
}

export async function listPage(app: AppContext, query: repo.SiteListQuery): Promise<Page<Schemas['BasicInformation']>> {
  return mapPage(await repo.listSites(app.db, query, true), (r) => toView(r, app.config.jobs.timeZone));
}
