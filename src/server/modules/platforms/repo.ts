import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { paginate, type Page, type PageQuery } from '../../db/paging.js';
import { keyContains, withSearchKeys } from '../../db/search.js';
import type { PlatformsTable } from '../../db/types.js';

export interface PlatformListQuery extends PageQuery {
  kind?: string;
  status?: number;
}

function filtered(db: Db, query: PlatformListQuery = {}) {
  let q = db.selectFrom('platforms');
  if (query.kind) q = q.where('platforms.kind', '=', query.kind);
  if (query.status !== undefined) q = q.where('platforms.onShelf', '=', query.status);
  if (query.searchText) q = q.where(keyContains('platforms.nameKey', query.searchText));
  return q;
}

/** Platforms with the number of services on each (all, and active), by sort value then id. */
const withServiceCount = (db: Db, query?: PlatformListQuery) =>
  filtered(db, query)
    .selectAll('platforms')
    .select((eb) =>
      eb
        .selectFrom('services')
        .select((s) => s.fn.countAll<number>().as('n'))
        .whereRef('services.platformId', '=', 'platforms.id')
        .as('services'),
    )
    // What a platform batch (run all, pause all) touches: the admin is told this number before confirming.
    .select((eb) =>
      eb
        .selectFrom('services')
        .select((s) => s.fn.countAll<number>().as('n'))
        .whereRef('services.platformId', '=', 'platforms.id')
        .where('services.state', '=', 'active')
        .as('activeServices'),
    )
    .orderBy('platforms.sort')
    .orderBy('platforms.id');

export type PlatformRow = Awaited<ReturnType<ReturnType<typeof withServiceCount>['executeTakeFirstOrThrow']>>;

export const findPlatform = (db: Db, id: number): Promise<PlatformRow | undefined> =>
  withServiceCount(db).where('platforms.id', '=', id).executeTakeFirst();

export const listOnShelf = (db: Db): Promise<PlatformRow[]> => withServiceCount(db, { status: 1 }).execute();

/** The platform a kind's page shows: its first on-shelf record by sort value. */
export const firstOnShelf = (db: Db, kind: string): Promise<PlatformRow | undefined> =>
  withServiceCount(db, { kind, status: 1 }).limit(1).executeTakeFirst();

export function listPlatforms(db: Db, query: PlatformListQuery): Promise<Page<PlatformRow>> {
  return paginate(
    query,
    (limit, offset) => withServiceCount(db, query).limit(limit).offset(offset).execute(),
    () => filtered(db, query),
  );
}

const SEARCH_KEYS = { nameKey: 'name' } as const;

export async function insertPlatform(db: Db, row: Insertable<PlatformsTable>): Promise<number> {
  const inserted = await db
    .insertInto('platforms')
    .values(withSearchKeys(row, SEARCH_KEYS))
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

/** The start-up seed: one record per kind, once (the unique seed_kind makes concurrent starts harmless). */
export async function seedPlatform(db: Db, row: Insertable<PlatformsTable>): Promise<void> {
  await db
    .insertInto('platforms')
    .values(withSearchKeys(row, SEARCH_KEYS))
    .onConflict((oc) => oc.column('seedKind').doNothing())
    .execute();
}

export const seededKinds = async (db: Db): Promise<Set<string>> =>
  new Set(
    (await db.selectFrom('platforms').select('seedKind').where('seedKind', 'is not', null).execute()).map(
      (r) => r.seedKind!,
    ),
  );

export async function updatePlatform(db: Db, id: number, patch: Updateable<PlatformsTable>): Promise<void> {
  await db.updateTable('platforms').set(withSearchKeys(patch, SEARCH_KEYS)).where('id', '=', id).execute();
}
