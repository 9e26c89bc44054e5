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

/** Runs of a service's day that could take over the day's payment: not failed, holding none; oldest first. */
export function dayRunsWithoutPayment(trx: Db, serviceId: number, day: string, except: number) {
  return trx
    .selectFrom('runs')
    .select(['id', 'state'])
    .where('serviceId', '=', serviceId)
    .where('day', '=', day)
    .where('id', '!=', except)
    .where('state', 'in', ['succeeded', 'due', 'running'])
    .where('chargeReference', 'is', null)
    .orderBy('id')
    .execute();
}

export interface HeldPayment {
  charged: number;
  chargeReference: string | null;
  quotaGrantId: number | null;
}

/** Gives the run a payment if it is still in `state` and holds none; false when another took it first. */
export async function takePayment(trx: Db, runId: number, state: RunState, payment: HeldPayment): Promise<boolean> {
  const taken = await trx
    .updateTable('runs')
    .set(payment)
    .where('id', '=', runId)
    .where('state', '=', state)
    .where('chargeReference', 'is', null)
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}

export async function dropPayment(trx: Db, runId: number): Promise<void> {
  await trx
    .updateTable('runs')
    .set({ charged: 0, chargeReference: null, quotaGrantId: null })
    .where('id', '=', runId)
    .execute();
}

export interface NewManualRun {
  serviceId: number;
  userId: number;
  platformId: number;
  scheduledAt: number;
  day: string;
  createdAt: number;
}

/** A manual run at its time, due now; undefined when the service already has a run at that millisecond. */
export async function insertManualRun(trx: Db, run: NewManualRun): Promise<number | undefined> {
  const inserted = await trx
    .insertInto('runs')
    .values({ ...run, trigger: 'manual', state: 'due', nextAttemptAt: run.scheduledAt })
    .onConflict((oc) => oc.columns(['serviceId', 'scheduledAt']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted?.id;
}
