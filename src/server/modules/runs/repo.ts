import type { Db } from '../../db/database.js';
import { paginate, type Page, type PageQuery } from '../../db/paging.js';
import { asciiContains } from '../../db/search.js';
import type { RunState } from '../../db/types.js';

export interface RunFilter extends PageQuery {
  userId?: number;
  serviceId?: number;
  platformId?: number;
  state?: RunState;
  /** A site-time-zone day (yyyy-mm-dd): the calendar's tap on a day. */
  day?: string;
}

function filtered(db: Db, filter: RunFilter) {
  let q = db
    .selectFrom('runs')
    .innerJoin('platforms', 'platforms.id', 'runs.platformId')
    .innerJoin('users', 'users.id', 'runs.userId');
  if (filter.userId !== undefined) q = q.where('runs.userId', '=', filter.userId);
  if (filter.serviceId !== undefined) q = q.where('runs.serviceId', '=', filter.serviceId);
  if (filter.platformId !== undefined) q = q.where('runs.platformId', '=', filter.platformId);
  if (filter.state) q = q.where('runs.state', '=', filter.state);
  if (filter.day) q = q.where('runs.day', '=', filter.day);
  if (filter.searchText) q = q.where(asciiContains('users.userAccount', filter.searchText));
  return q;
}

const withNames = (db: Db, filter: RunFilter) =>
  filtered(db, filter)
    .selectAll('runs')
    .select(['platforms.name as platformName', 'platforms.kind as kind', 'users.userAccount as userAccount']);

export type RunRow = Awaited<ReturnType<ReturnType<typeof withNames>['executeTakeFirstOrThrow']>>;

export const findRun = (db: Db, id: number): Promise<RunRow | undefined> =>
  withNames(db, {}).where('runs.id', '=', id).executeTakeFirst();

/** One page, newest scheduled first. */
export function listRuns(db: Db, filter: RunFilter): Promise<Page<RunRow>> {
  return paginate(
    filter,
    (limit, offset) =>
      withNames(db, filter)
        .orderBy('runs.scheduledAt', 'desc')
        .orderBy('runs.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
    () => filtered(db, filter),
  );
}

/** Successful runs of a user (optionally on one platform): in total and on one site-time-zone day. */
export async function countSucceeded(
  db: Db,
  userId: number,
  day: string,
  platformId?: number,
): Promise<{ today: number; total: number }> {
  let q = db.selectFrom('runs').where('userId', '=', userId).where('state', '=', 'succeeded');
  if (platformId !== undefined) q = q.where('platformId', '=', platformId);
  const row = await q
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      eb.fn.sum<number | null>(eb.case().when('day', '=', day).then(1).else(0).end()).as('today'),
    ])
    .executeTakeFirstOrThrow();
  return { today: Number(row.today ?? 0), total: Number(row.total) };
}
