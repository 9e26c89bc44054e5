import { sql, type Updateable } from 'kysely';
import type { RunPayment } from '../services/billing.js';
import type { Db } from '../../db/database.js';
import { lockExpiredLease, takeFirstLocked } from '../../db/locks.js';
import type { RunsTable } from '../../db/types.js';
import { readSettings } from '../services/families.js';
import type { RunSlot } from '../services/schedules.js';

// The queue is the runs table (the design of Solid Queue and GoodJob). Every statement here is guarded by the state
// it expects, so a process that lost its lease or a second planner changes nothing.

/**
 * Active services of existing users on on-shelf platforms whose next scheduled time has come: the planner's work, each
 * with its settings read once for the pass.
 */
export async function servicesDue(db: Db, now: number, limit: number) {
  const due = await db
    .selectFrom('services')
    .innerJoin('platforms', 'platforms.id', 'services.platformId')
    .innerJoin('users', 'users.id', 'services.userId')
    .where('users.deletedAt', 'is', null)
    .select([
      'services.id',
      'services.userId',
      'services.platformId',
      'services.settings',
      'services.nextRunAt',
      'platforms.kind',
    ])
    .where('services.state', '=', 'active')
    .where('services.nextRunAt', '<=', now)
    .where('platforms.onShelf', '=', 1)
    .orderBy('services.nextRunAt')
    .limit(limit)
    .execute();
  return due.map((service) => ({ ...service, settings: readSettings(service.kind, service.settings) }));
}

/**
 * Enqueues a planned run; the unique (service_id, scheduled_at) turns a second planner's insert into nothing. Answers
 * the new run's id, or undefined when another planner was first.
 */
export async function enqueue(
  db: Db,
  run: {
    serviceId: number;
    userId: number;
    platformId: number;
    scheduledAt: number;
    slot: RunSlot | null;
    day: string;
    now: number;
  },
): Promise<number | undefined> {
  const inserted = await db
    .insertInto('runs')
    .values({
      serviceId: run.serviceId,
      userId: run.userId,
      platformId: run.platformId,
      trigger: 'schedule',
      scheduledAt: run.scheduledAt,
      slot: run.slot,
      day: run.day,
      state: 'due',
      nextAttemptAt: run.scheduledAt,
      createdAt: run.now,
    })
    .onConflict((oc) => oc.columns(['serviceId', 'scheduledAt']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted?.id;
}

/** Moves the planner's cursor only if no other process moved it first. */
export async function advanceCursor(db: Db, serviceId: number, from: number, to: number | null): Promise<void> {
  await db
    .updateTable('services')
    .set({ nextRunAt: to })
    .where('id', '=', serviceId)
    .where('nextRunAt', '=', from)
    .where('state', '=', 'active')
    .execute();
}

/** The next run this process may take: due and its time come, or running with an expired lease (its worker died). */
export async function lockNextClaimable(trx: Db, now: number, postgres: boolean): Promise<number | undefined> {
  // Two plain scans rather than one OR, so each walks its index (state, next_attempt_at) in order.
  const due = trx
    .selectFrom('runs')
    .select('id')
    .where('state', '=', 'due')
    .where('nextAttemptAt', '<=', now)
    .orderBy('nextAttemptAt')
    .limit(1);
  return (await takeFirstLocked(due, postgres)) ?? (await lockExpiredLease(trx, 'runs', now, postgres));
}

/** A claimed run with what its execution needs, its service's settings read once for the whole attempt. */
export async function claimContext(db: Db, runId: number) {
  const run = await db
    .selectFrom('runs')
    .innerJoin('services', 'services.id', 'runs.serviceId')
    .innerJoin('platforms', 'platforms.id', 'runs.platformId')
    .innerJoin('users', 'users.id', 'runs.userId')
    .select([
      'runs.id',
      'runs.serviceId',
      'runs.userId',
      'runs.platformId',
      'runs.trigger',
      'runs.scheduledAt',
      'runs.slot',
      'runs.day',
      'runs.state',
      'runs.attempts',
      'runs.charged',
      'runs.chargeReference',
      'runs.quotaGrantId',
      'services.state as serviceState',
      'users.status as userStatus',
      'platforms.onShelf as platformOnShelf',
      'services.settings',
      'services.sandboxMode',
      'platforms.kind',
      'platforms.name as platformName',
      'platforms.price',
      'platforms.billingUnit',
      'platforms.retryLimit',
    ])
    .where('runs.id', '=', runId)
    .executeTakeFirst();
  return run && { ...run, settings: readSettings(run.kind, run.settings) };
}

export type ClaimContext = NonNullable<Awaited<ReturnType<typeof claimContext>>>;

/** What a run holds of its period's payment, as stored now (inside the caller's transaction). */
export async function paymentOf(db: Db, runId: number): Promise<RunPayment> {
  const row = await db
    .selectFrom('runs')
    .select(['charged', 'chargeReference', 'quotaGrantId'])
    .where('id', '=', runId)
    .executeTakeFirstOrThrow();
  return {
    charged: Number(row.charged),
    chargeReference: row.chargeReference,
    quotaGrantId: row.quotaGrantId === null ? null : Number(row.quotaGrantId),
  };
}

/** Changes a run only in the state (and, for a running run, under the lease) the caller saw. */
export async function updateRun(
  db: Db,
  id: number,
  expect: { state: RunsTable['state']; leaseOwner?: string },
  patch: Updateable<RunsTable>,
): Promise<boolean> {
  let q = db.updateTable('runs').set(patch).where('id', '=', id).where('state', '=', expect.state);
  if (expect.leaseOwner !== undefined) q = q.where('leaseOwner', '=', expect.leaseOwner);
  const result = await q.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A run's outcome on its service's counters and last result. */
export async function recordOnService(
  db: Db,
  serviceId: number,
  outcome: 'succeeded' | 'failed' | 'refunded' | 'skipped',
  now: number,
): Promise<void> {
  await db
    .updateTable('services')
    .set({
      ...(outcome === 'succeeded'
        ? { succeeded: sql`succeeded + 1` }
        : outcome === 'skipped'
          ? {}
          : { failed: sql`failed + 1` }),
      lastRunState: outcome,
      lastRunAt: now,
    })
    .where('id', '=', serviceId)
    .execute();
}

/** At start-up: runs whose worker died hand their lease back at once, so they need not wait for the claimer's scan. */
export async function releaseExpiredLeases(db: Db, now: number): Promise<number> {
  const result = await db
    .updateTable('runs')
    .set({ state: 'due', leaseOwner: null, leaseExpiresAt: null, nextAttemptAt: now })
    .where('state', '=', 'running')
    .where('leaseExpiresAt', '<=', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Runs whose time has come and that no process has claimed (/metrics): the claim's own index, counted. */
export async function countDue(db: Db, now: number): Promise<number> {
  const row = await db
    .selectFrom('runs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', '=', 'due')
    .where('nextAttemptAt', '<=', now)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
