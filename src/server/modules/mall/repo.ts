import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { paginate, type Page, type PageQuery } from '../../db/paging.js';
import { keyContains, withSearchKeys } from '../../db/search.js';
import type { MallPackagesTable } from '../../db/types.js';

export interface PackageListQuery extends PageQuery {
  status?: number;
}

function filtered(db: Db, query: PackageListQuery = {}) {
  let q = db.selectFrom('mallPackages');
  if (query.status !== undefined) q = q.where('mallPackages.status', '=', query.status);
  if (query.searchText) q = q.where(keyContains('mallPackages.coinNameKey', query.searchText));
  return q;
}

/** Packages with the number of orders referring to each (the `orders` field of MallPackage), by sort value then id. */
const withOrderCount = (db: Db, query?: PackageListQuery) =>
  filtered(db, query)
    .selectAll('mallPackages')
    .select((eb) =>
      eb
        .selectFrom('orders')
        .select((o) => o.fn.countAll<number>().as('n'))
        .whereRef('orders.packageId', '=', 'mallPackages.id')
        .as('orders'),
    )
    .orderBy('mallPackages.sort')
    .orderBy('mallPackages.id');

export type PackageRow = Awaited<ReturnType<ReturnType<typeof withOrderCount>['executeTakeFirstOrThrow']>>;

export const findPackage = (db: Db, id: number): Promise<PackageRow | undefined> =>
  withOrderCount(db).where('mallPackages.id', '=', id).executeTakeFirst();

/** On-shelf packages: what users may see and buy. */
export const listOnShelf = (db: Db): Promise<PackageRow[]> => withOrderCount(db, { status: 1 }).execute();

/** One page of all packages (on and off shelf); `total` counts the whole match. */
export function listPackages(db: Db, query: PackageListQuery): Promise<Page<PackageRow>> {
  return paginate(
    query,
    (limit, offset) => withOrderCount(db, query).limit(limit).offset(offset).execute(),
    () => filtered(db, query),
  );
}

const SEARCH_KEYS = { coinNameKey: 'coinName' } as const;

export async function insertPackage(db: Db, row: Insertable<MallPackagesTable>): Promise<number> {
  const inserted = await db
    .insertInto('mallPackages')
    .values(withSearchKeys(row, SEARCH_KEYS))
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export async function updatePackage(db: Db, id: number, patch: Updateable<MallPackagesTable>): Promise<void> {
  await db.updateTable('mallPackages').set(withSearchKeys(patch, SEARCH_KEYS)).where('id', '=', id).execute();
}

export async function deletePackage(db: Db, id: number): Promise<void> {
  await db.deleteFrom('mallPackages').where('id', '=', id).execute();
}

/** Redeem codes generated for the package: they refer to it as orders do. */
export async function countRedeemCodes(db: Db, packageId: number): Promise<number> {
  const row = await db
    .selectFrom('redeemCodes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('packageId', '=', packageId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
