import type { Db } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';
import type { SiteInformationTable } from '../../db/types.js';
import { direction, ilike, pageWindow, type PageQuery } from '../../db/paging.js';
import type { Insertable, Updateable } from 'kysely';

/** Every page load reads the site record: built once, run many times. */
export const findSite = preparedQuery((db, id: number) => db.selectFrom('siteInformation').selectAll().where('id', '=', id), [0] as [number]);

export async function insertSite(db: Db, row: Insertable<SiteInformationTable>): Promise<number> {
  const inserted = await db.insertInto('siteInformation').values(row).returning('id').executeTakeFirstOrThrow();
  return inserted.id;
}

export async function updateSite(db: Db, id: number, patch: Updateable<SiteInformationTable>): Promise<void> {
  await db.updateTable('siteInformation').set(patch).where('id', '=', id).execute();
}

export async function deleteSite(db: Db, id: number): Promise<void> {
  await db.deleteFrom('siteInformation').where('id', '=', id).execute();
}

export const SITE_SORT_COLUMNS = { id: 'id', websiteName: 'websiteName', updatedAt: 'updatedAt', status: 'status' } as const;

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
  for (const key of ['coinName', 'noticeBar', 'pointsNotification'] as const) {
    const value = query[key];
    if (value) q = q.where(ilike(key, value));
  }
  return q;
}

export async function listSites(db: Db, query: SiteListQuery, withTotal: boolean) {
  const { pageSize, offset } = pageWindow(query);
  const records = await filtered(db, query)
    .selectAll()
    .orderBy(SITE_SORT_COLUMNS[query.sortField ?? 'id'], direction(query.sortOrder))
    .orderBy('id')
    .limit(pageSize)
    .offset(offset)
    .execute();
  if (!withTotal) return { records, total: records.length };
  const count = await filtered(db, query).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { records, total: Number(count.n) };
}
