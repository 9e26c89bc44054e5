import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { lockExpiredLease, takeFirstLocked } from '../../db/locks.js';
import { paginate } from '../../db/paging.js';
import type { BatchKind, BatchState } from '../../db/types.js';

export interface NewBatch {
  kind: BatchKind;
  title: string;
  params: unknown;
  total: number;
  createdBy: number;
}

export async function insertBatch(db: Db, batch: NewBatch, now: number): Promise<number> {
  const row = await db
    .insertInto('batches')
    .values({ ...batch, params: JSON.stringify(batch.params), state: 'queued', createdAt: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A list batch's input, written when it starts (in chunks: one statement per few hundred lines). */
export async function insertItems(
  db: Db,
  batchId: number,
  items: readonly { seq: number; label: string; payload: string }[],
): Promise<void> {
  for (let i = 0; i < items.length; i += 500) {
    await db
      .insertInto('batchItems')
      .values(items.slice(i, i + 500).map((it) => ({ ...it, batchId, state: 'pending' as const })))
      .execute();
  }
}

const withCreator = (db: Db) =>
  db
    .selectFrom('batches')
    .innerJoin('users', 'users.id', 'batches.createdBy')
    .selectAll('batches')
    .select('users.userAccount as createdByAccount');

export type BatchRow = NonNullable<Awaited<ReturnType<ReturnType<typeof withCreator>['executeTakeFirst']>>>;

export const findBatch = (db: Db, id: number) => withCreator(db).where('batches.id', '=', id).executeTakeFirst();

export const pageBatches = (db: Db, query: { current?: number; pageSize?: number; state?: BatchState }) => {
  const matching = () => {
    let q = db.selectFrom('batches');
    if (query.state) q = q.where('state', '=', query.state);
    return q;
  };
  return paginate(
    query,
    (limit, offset) => {
      let q = withCreator(db);
      if (query.state) q = q.where('batches.state', '=', query.state);
      return q.orderBy('batches.id', 'desc').limit(limit).offset(offset).execute();
    },
    matching,
  );
};

export const pageFailures = (db: Db, batchId: number, query: { current?: number; pageSize?: number }) => {
  const failed = () => db.selectFrom('batchItems').where('batchId', '=', batchId).where('state', '=', 'failed');
  return paginate(
    query,
    (limit, offset) => failed().select(['seq', 'label', 'error']).orderBy('seq').limit(limit).offset(offset).execute(),
    failed,
  );
};

/** Stops a batch that has not ended; the runner's next chunk sees the state and stops too. */
export async function cancelBatch(db: Db, id: number, now: number): Promise<boolean> {
  const r = await db
    .updateTable('batches')
    .set({ state: 'cancelled', finishedAt: now, leaseOwner: null, leaseExpiresAt: null, result: '已取消' })
    .where('id', '=', id)
    .where('state', 'in', ['queued', 'running'])
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The next batch this process may work: queued, or running with an expired lease (its process died). */
export async function lockNextBatch(trx: Db, now: number, postgres: boolean): Promise<number | undefined> {
  const queued = trx.selectFrom('batches').select('id').where('state', '=', 'queued').orderBy('id').limit(1);
  return (await takeFirstLocked(queued, postgres)) ?? (await lockExpiredLease(trx, 'batches', now, postgres));
}

export async function leaseBatch(trx: Db, id: number, owner: string, until: number, now: number): Promise<void> {
  await trx
    .updateTable('batches')
    .set({
      state: 'running',
      leaseOwner: owner,
      leaseExpiresAt: until,
      startedAt: sql<number>`coalesce(started_at, ${now})`,
    })
    .where('id', '=', id)
    .execute();
}

/**
 * Renews the lease at the start of a chunk's transaction and reads the cursor under it. Nothing when the batch was
 * cancelled or another process took it over: the chunk then does nothing.
 */
export async function holdBatch(trx: Db, id: number, owner: string, until: number) {
  const r = await trx
    .updateTable('batches')
    .set({ leaseExpiresAt: until })
    .where('id', '=', id)
    .where('state', '=', 'running')
    .where('leaseOwner', '=', owner)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return undefined;
  return trx
    .selectFrom('batches')
    .select(['id', 'kind', 'params', 'cursor', 'createdBy'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

export async function advance(trx: Db, id: number, cursor: number, done: number, failed: number): Promise<void> {
  await trx
    .updateTable('batches')
    .set({ cursor, done: sql`done + ${done}`, failed: sql`failed + ${failed}` })
    .where('id', '=', id)
    .execute();
}

export async function finishBatch(trx: Db, id: number, now: number): Promise<void> {
  // The total follows what was found: targets that left the set since the start (a service paused meanwhile) count
  // neither as done nor failed.
  await trx
    .updateTable('batches')
    .set({
      state: 'done',
      finishedAt: now,
      leaseOwner: null,
      leaseExpiresAt: null,
      total: sql`done + failed`,
      result: sql`case when failed > 0 then '部分失败' else '全部完成' end`,
    })
    .where('id', '=', id)
    .execute();
}

export async function recordItem(
  trx: Db,
  item: { batchId: number; seq: number; label: string },
  outcome: { state: 'done' | 'failed'; error?: string },
): Promise<void> {
  await trx
    .insertInto('batchItems')
    .values({ ...item, state: outcome.state, error: (outcome.error ?? '').slice(0, 200) })
    .onConflict((oc) =>
      oc.columns(['batchId', 'seq']).doUpdateSet({ state: outcome.state, error: (outcome.error ?? '').slice(0, 200) }),
    )
    .execute();
}

export const pendingItems = (db: Db, batchId: number, after: number, limit: number) =>
  db
    .selectFrom('batchItems')
    .select(['seq', 'label', 'payload'])
    .where('batchId', '=', batchId)
    .where('seq', '>', after)
    .orderBy('seq')
    .limit(limit)
    .execute();

export async function writeOutput(trx: Db, batchId: number, lines: readonly { seq: number; line: string }[]) {
  if (lines.length === 0) return;
  await trx
    .insertInto('batchOutput')
    .values(lines.map((l) => ({ ...l, batchId })))
    .execute();
}

export const readOutput = (db: Db, batchId: number, after: number, limit: number) =>
  db
    .selectFrom('batchOutput')
    .select(['seq', 'line'])
    .where('batchId', '=', batchId)
    .where('seq', '>', after)
    .orderBy('seq')
    .limit(limit)
    .execute();
