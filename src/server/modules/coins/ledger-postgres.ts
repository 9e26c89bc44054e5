import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { insufficientCoins, replay, type IdempotencyScope, type Movement, type Posting } from './ledger.js';

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

export interface PostgresTransfer {
  scope: IdempotencyScope;
  requestHash: string;
  payeeAccountLower: string;
  coin: number;
  siteId: number;
  reference: string;
  outPrefix: string;
  inDescription: string;
  notice: { title: string; body: string };
  now: number;
  refusal(reason: TransferRefusal, cap: number): Error;
}

/** A user's transfer in one round trip: `transfer_coins` (migration 0011) with its idempotency record. */
export async function transferOnPostgres<R>(db: Db, t: PostgresTransfer): Promise<R> {
  let outcome: { result?: R; replay?: { operation: string; requestHash: string; response: string } };
  try {
    const { rows } = await sql<{ outcome: typeof outcome }>`select transfer_coins(
        ${t.scope.actorId}, ${t.scope.key}, ${t.requestHash}, ${t.payeeAccountLower}, ${t.coin},
        ${t.siteId}, ${t.reference}, ${t.outPrefix}, ${t.inDescription}, ${t.notice.title}, ${t.notice.body},
        ${t.now}) as outcome`.execute(db);
    outcome = rows[0]!.outcome;
  } catch (error) {
    const e = error as { code?: string; message?: string; detail?: string };
    if (e.code === 'PM001') throw t.refusal(e.message as TransferRefusal, Number(e.detail ?? 0));
    throw error;
  }
  if (outcome.replay) return replay(outcome.replay, t.scope) as R;
  return outcome.result!;
}
