import { compiledOnce } from '../../db/compiled-once.js';
import type { Db } from '../../db/database.js';
import type { SiteInformationTable } from '../../db/types.js';
import { direction, paginate, type PageQuery } from '../../db/paging.js';
import { keyContains, withSearchKeys } from '../../db/search.js';
import type { Insertable, Updateable } from 'kysely';

/** The record the site shows; the others are an admin's drafts. */
export const LIVE_SITE_ID = 1;

// Read inside every transfer (its cap): compiled once (db/compiled-once.ts).
const siteById = compiledOnce(
  (db: Db, id: number) => db.selectFrom('siteInformation').selectAll().where('id', '=', id),
  [-1] as const,
);

export const findSite = async (db: Db, id: number) => (await siteById(db, id))[0];
/** The record the site shows (its name, cap, rebate, policy version); undefined only before the first start seeds it. */
export const findLiveSite = (db: Db) => findSite(db, LIVE_SITE_ID);

/** The seed's name for the site, used wherever it has none (before the first start, or cleared on /system). */
export const DEFAULT_SITE_NAME = '积分商城';
/** The name users see: a passkey's site, an authenticator app's issuer, the home-screen icon's label. */
export const liveSiteName = async (db: Db): Promise<string> =>
  (await findLiveSite(db))?.websiteName.trim() || DEFAULT_SITE_NAME;

const SEARCH_KEYS = {
  coinNameKey: 'coinName',
  noticeBarKey: 'noticeBar',
  pointsNotificationKey: 'pointsNotification',
} as const;

export async function insertSite(db: Db, row: Insertable<SiteInformationTable>): Promise<number> {
  const inserted = await db
    .insertInto('siteInformation')
    .values(withSearchKeys(row, SEARCH_KEYS))
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export async function updateSite(db: Db, id: number, patch: Updateable<SiteInformationTable>): Promise<void> {
  await db.updateTable('siteInformation').set(withSearchKeys(patch, SEARCH_KEYS)).where('id', '=', id).execute();
}

export async function deleteSite(db: Db, id: number): Promise<void> {
  await db.deleteFrom('siteInformation').where('id', '=', id).execute();
}

export const SITE_SORT_COLUMNS = {
  id: 'id',
  websiteName: 'websiteName',
  updatedAt: 'updatedAt',
  status: 'status',
} as const;

export interface SiteListQuery extends PageQuery {
  id?: number;
  addCoin?: number;
  amount?: number;
  status?: number;
  userId?: number;
  coinName?: string;
  noticeBar?: string;
  pointsNotification?: string;
  sortField?: keyof typeof SITE_SORT_COLUMNS;
}

function filtered(db: Db, query: SiteListQuery) {
  let q = db.selectFrom('siteInformation');
  for (const key of ['id', 'addCoin', 'amount', 'status', 'userId'] as const) {
    const value = query[key];
    if (value !== undefined) q = q.where(key, '=', value);
  }
  for (const [field, key] of [
    ['coinName', 'coinNameKey'],
    ['noticeBar', 'noticeBarKey'],
    ['pointsNotification', 'pointsNotificationKey'],
  ] as const) {
    const value = query[field];
    if (value) q = q.where(keyContains(key, value));
  }
  return q;
}

export function listSites(db: Db, query: SiteListQuery, withTotal: boolean) {
  return paginate(
    query,
    (limit, offset) =>
      filtered(db, query)
        .selectAll()
        .orderBy(SITE_SORT_COLUMNS[query.sortField ?? 'id'], direction(query.sortOrder))
        .orderBy('id')
        .limit(limit)
        .offset(offset)
        .execute(),
    withTotal ? () => filtered(db, query) : undefined,
  );
}
