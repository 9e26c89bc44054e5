import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { coinsReceivedNotice } from '../notices/events.js';
import {
  insufficientCoins,
  refusal,
  transferInDescription,
  transferOutPrefix,
  type Movement,
  type Posting,
  type TransferDone,
  type TransferRefusal,
  type TransferRequest,
} from './ledger-types.js';

// The ledger on PostgreSQL: the plpgsql functions `move_coins` (migration 0011) and `transfer_coins` (migration 0016),
// one round trip each. SQLite runs the same rules in TypeScript (ledger-sqlite.ts). The rules both must follow are the
// cases of tests/api/transfer-rules.test.ts, run against both; change one implementation only together with that table.

/** moveCoins on PostgreSQL (see ledger.ts): `move_coins`, in the caller's transaction. */
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

/** What transfer_coins answers (migration 0016). */
interface TransferRow {
  payeeId: number;
  payeeAccount: string;
  payeeName: string;
  balance: number;
}

/**
 * A user's transfer on PostgreSQL (see ledger.ts transferCoins): one `transfer_coins` call in the caller's transaction.
 * A refusal is raised as SQLSTATE PM001 with the reason as its message (the cap in DETAIL); the words are the server's.
 */
export async function transferOnPostgres(trx: Db, t: TransferRequest): Promise<TransferDone> {
  const notice = coinsReceivedNotice({ userId: 0, fromAccount: t.payer.userAccount, coin: t.coin });
  try {
    const { rows } = await sql<{ outcome: TransferRow }>`select transfer_coins(
        ${t.payer.id}, ${t.payeeAccount.toLowerCase()}, ${t.coin}, ${t.siteId}, ${t.reference},
        ${transferOutPrefix}, ${transferInDescription(t.payer.userAccount)}, ${notice.title}, ${notice.body},
        ${t.now}) as outcome`.execute(trx);
    const row = rows[0]!.outcome;
    return {
      payee: { id: Number(row.payeeId), userAccount: row.payeeAccount, userName: row.payeeName },
      balance: Number(row.balance),
    };
  } catch (error) {
    const e = error as { code?: string; message?: string; detail?: string };
    if (e.code === 'PM001') throw refusal(e.message as TransferRefusal, Number(e.detail ?? 0));
    throw error;
  }
}
