import { CompiledQuery, sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { postgresPoolOf } from '../../db/prepared.js';
import { insufficientCoins, replay, type IdempotencyScope, type Movement, type Posting } from './ledger.js';
import {
  TransferBatcher,
  type BatchedTransfer,
  type RunBatch,
  type TransferArguments,
  type TransferOutcome,
} from './transfer-batcher-postgres.js';

/** moveCoins on PostgreSQL (see ledger.ts): the `move_coins` function of migration 0011, in the caller's transaction. */
export async function moveCoinsOnPostgres(
  trx: Db,
  movement: Movement,
  postings: Posting[],
): Promise<Map<number, number>> {
  const { rows } = await sql<{ balances: (string | number)[] | null }>`select move_coins(
      ${postings.map((p) => p.userId)}::bigint[], ${postings.map((p) => p.amount)}::bigint[],
      ${postings.map((p) => p.kind)}::text[], ${postings.map((p) => p.counterpartyId ?? null)}::bigint[],
      ${postings.map((p) => p.description)}::text[],
      ${movement.reference}, ${movement.actorId}, ${movement.now}) as balances`.execute(trx);
  const balances = rows[0]?.balances;
  if (!balances) throw insufficientCoins();
  const answer = new Map<number, number>();
  postings.forEach((p, i) => answer.set(p.userId, Number(balances[i])));
  return answer;
}

/** Why transfer_coins refused (it raises SQLSTATE PM001 with one of these words, the cap in DETAIL). */
export type TransferRefusal = 'payee' | 'self' | 'cap' | 'funds';

export interface PostgresTransfer extends TransferArguments {
  scope: IdempotencyScope;
  notice: { title: string; body: string };
  refusal(reason: TransferRefusal, cap: number): Error;
}

/**
 * A user's transfer with its idempotency record, in one round trip. With group commit (the default) it joins the
 * transfers submitted in the same turn of the event loop in one `transfer_coins_batch` call (migration 0015, one
 * transaction for them all; transfer-batcher-postgres.ts); without, it is one `transfer_coins` call (migration 0011)
 * and one commit of its own. Either way it answers after COMMIT.
 */
export async function transferOnPostgres<R>(db: Db, t: PostgresTransfer, groupCommit: boolean): Promise<R> {
  const outcome = groupCommit ? await batcherFor(db).submit(batched(t)) : await transferAlone(db, t);
  if ('replay' in outcome) return replay(outcome.replay, t.scope) as R;
  if ('refusal' in outcome) throw t.refusal(outcome.refusal as TransferRefusal, Number(outcome.cap));
  if ('error' in outcome) throw Object.assign(new Error(outcome.error.message), { code: outcome.error.code });
  return outcome.result as R;
}

async function transferAlone(db: Db, t: PostgresTransfer): Promise<TransferOutcome> {
  try {
    const { rows } = await sql<{ outcome: TransferOutcome }>`select transfer_coins(
        ${t.scope.actorId}, ${t.scope.key}, ${t.requestHash}, ${t.payeeAccountLower}, ${t.coin},
        ${t.siteId}, ${t.reference}, ${t.outPrefix}, ${t.inDescription}, ${t.notice.title}, ${t.notice.body},
        ${t.now}) as outcome`.execute(db);
    return rows[0]!.outcome;
  } catch (error) {
    const e = error as { code?: string; message?: string; detail?: string };
    if (e.code === 'PM001') return { refusal: e.message!, cap: Number(e.detail ?? 0) };
    throw error;
  }
}

const batched = (t: PostgresTransfer): BatchedTransfer => ({
  actorId: t.scope.actorId,
  key: t.scope.key,
  requestHash: t.requestHash,
  payeeAccountLower: t.payeeAccountLower,
  coin: t.coin,
  siteId: t.siteId,
  reference: t.reference,
  outPrefix: t.outPrefix,
  inDescription: t.inDescription,
  noticeTitle: t.notice.title,
  noticeBody: t.notice.body,
  now: t.now,
});

/**
 * transfer_coins_batch's parameters in order, each an array over the batch with its PostgreSQL element type: the SQL
 * and the values are both made from this one list, so they cannot disagree.
 */
const BATCH_PARAMETERS: readonly [keyof BatchedTransfer, 'bigint' | 'text'][] = [
  ['actorId', 'bigint'],
  ['key', 'text'],
  ['requestHash', 'text'],
  ['payeeAccountLower', 'text'],
  ['coin', 'bigint'],
  ['siteId', 'bigint'],
  ['reference', 'text'],
  ['outPrefix', 'text'],
  ['inDescription', 'text'],
  ['noticeTitle', 'text'],
  ['noticeBody', 'text'],
  ['now', 'bigint'],
];

const BATCH_SQL = `select transfer_coins_batch(${BATCH_PARAMETERS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')}) as outcomes`;

/** The batch's arguments: one array per parameter of transfer_coins, the transfers in the same order in each. */
const batchParameters = (batch: BatchedTransfer[]) => BATCH_PARAMETERS.map(([field]) => batch.map((t) => t[field]));

const batchers = new WeakMap<Db, TransferBatcher>();

/** The database's batcher, made on its first grouped transfer (tests read its `groupCommits`). */
export function batcherFor(db: Db): TransferBatcher {
  let batcher = batchers.get(db);
  if (!batcher) {
    // Straight to the pool (a named, server-side prepared statement) when there is one: one statement per batch
    // needs none of Kysely's building.
    const pool = postgresPoolOf(db);
    const run: RunBatch = pool
      ? async (batch) =>
          (
            await pool.query<{ outcomes: TransferOutcome[] }>({
              name: 'transfer_coins_batch',
              text: BATCH_SQL,
              values: batchParameters(batch),
            })
          ).rows[0]!.outcomes
      : async (batch) =>
          (await db.executeQuery<{ outcomes: TransferOutcome[] }>(CompiledQuery.raw(BATCH_SQL, batchParameters(batch))))
            .rows[0]!.outcomes;
    batcher = new TransferBatcher(run);
    batchers.set(db, batcher);
  }
  return batcher;
}

/** The batcher of a database that has made one (undefined on SQLite, or before the first grouped transfer). */
export const postgresBatcherOf = (db: Db): TransferBatcher | undefined => batchers.get(db);
