import type { Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { mapPage, paginate, type Page, type PageQuery } from '../../db/paging.js';
import { asciiContains } from '../../db/search.js';
import type { ServiceState, ServicesTable } from '../../db/types.js';
import { readSettings, type FamilySettings, type ServiceSettings } from './families.js';

export interface ServiceFilter extends PageQuery {
  userId?: number;
  platformId?: number;
  state?: ServiceState;
}

function filtered(db: Db, filter: ServiceFilter = {}) {
  let q = db
    .selectFrom('services')
    .innerJoin('platforms', 'platforms.id', 'services.platformId')
    .innerJoin('users', 'users.id', 'services.userId');
  if (filter.userId !== undefined) q = q.where('services.userId', '=', filter.userId);
  if (filter.platformId !== undefined) q = q.where('services.platformId', '=', filter.platformId);
  if (filter.state) q = q.where('services.state', '=', filter.state);
  if (filter.searchText) q = q.where(asciiContains('users.userAccount', filter.searchText));
  return q;
}

/** A service with its platform's name and kind and its owner's account (the Service view). */
const withNames = (db: Db, filter?: ServiceFilter) =>
  filtered(db, filter)
    .selectAll('services')
    .select(['platforms.name as platformName', 'platforms.kind as kind', 'users.userAccount as userAccount']);

type StoredServiceRow = Awaited<ReturnType<ReturnType<typeof withNames>['executeTakeFirstOrThrow']>>;

/** A service row with its settings read (parsed once, typed by its kind's family). */
export type ServiceRow = Omit<StoredServiceRow, 'settings'> & { settings: ServiceSettings };

const read = (row: StoredServiceRow): ServiceRow => ({ ...row, settings: readSettings(row.kind, row.settings) });
const readOne = (row: StoredServiceRow | undefined) => (row ? read(row) : undefined);

export const findService = async (db: Db, id: number): Promise<ServiceRow | undefined> =>
  readOne(await withNames(db).where('services.id', '=', id).executeTakeFirst());

export const findByUserAndPlatform = async (
  db: Db,
  userId: number,
  platformId: number,
): Promise<ServiceRow | undefined> =>
  readOne(
    await withNames(db)
      .where('services.userId', '=', userId)
      .where('services.platformId', '=', platformId)
      .executeTakeFirst(),
  );

export const listForUser = async (db: Db, userId: number): Promise<ServiceRow[]> =>
  (await withNames(db, { userId }).orderBy('platforms.sort').orderBy('services.id').execute()).map(read);

export async function listServices(db: Db, filter: ServiceFilter): Promise<Page<ServiceRow>> {
  const page = await paginate(
    filter,
    (limit, offset) => withNames(db, filter).orderBy('services.id', 'desc').limit(limit).offset(offset).execute(),
    () => filtered(db, filter),
  );
  return mapPage(page, read);
}

/** Settings as stored: their values as JSON (the family is the platform kind's, read back with the row). */
export const storedSettings = (settings: FamilySettings): string => JSON.stringify(settings.values);

/** Inserts a draft, or answers nothing when the user already has a service on the platform (a concurrent save). */
export async function insertService(
  db: Db,
  row: { userId: number; platformId: number; settings: FamilySettings; now: number },
): Promise<void> {
  await db
    .insertInto('services')
    .values({
      userId: row.userId,
      platformId: row.platformId,
      settings: storedSettings(row.settings),
      state: 'draft',
      nextRunAt: null,
      createdAt: row.now,
      updatedAt: row.now,
    })
    .onConflict((oc) => oc.columns(['userId', 'platformId']).doNothing())
    .execute();
}

export async function updateService(db: Db, id: number, patch: Updateable<ServicesTable>): Promise<void> {
  await db.updateTable('services').set(patch).where('id', '=', id).execute();
}

/** The active services of one platform, settings read (re-planned when it comes back on shelf). */
export const activeOfPlatform = async (db: Db, platformId: number): Promise<ServiceRow[]> =>
  (await withNames(db, { platformId, state: 'active' }).execute()).map(read);

/** Runs of a platform not started yet (due, never attempted) end as skipped, with the reason; nothing was charged. */
export async function skipUnstartedRunsOfPlatform(db: Db, platformId: number, reason: string, now: number) {
  await db
    .updateTable('runs')
    .set({ state: 'skipped', result: reason, finishedAt: now })
    .where('platformId', '=', platformId)
    .where('state', '=', 'due')
    .where('attempts', '=', 0)
    .execute();
}

/** Pauses every active service of one user (a ban); answers how many it paused. */
export async function pauseActiveOfUser(db: Db, userId: number, now: number): Promise<number> {
  const result = await db
    .updateTable('services')
    .set({ state: 'paused', nextRunAt: null, updatedAt: now })
    .where('userId', '=', userId)
    .where('state', '=', 'active')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Pauses one service if it is still active; false when it was not (paused, stopped, or gone meanwhile). */
export async function pauseIfActive(db: Db, serviceId: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('services')
    .set({ state: 'paused', nextRunAt: null, updatedAt: now })
    .where('id', '=', serviceId)
    .where('state', '=', 'active')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Whose service this is; undefined when there is no such service. */
export async function ownerOf(db: Db, serviceId: number): Promise<number | undefined> {
  const row = await db.selectFrom('services').select('userId').where('id', '=', serviceId).executeTakeFirst();
  return row?.userId;
}
