import { isPostgresDb, type Db } from '../../db/database.js';
import { publish, publishAll } from '../../live/events.js';
import type { Metrics } from '../../metrics/metrics.js';
import { moveCoinsOnPostgres, transferOnPostgres } from './ledger-postgres.js';
import { moveCoinsOnSqlite, transferOnSqlite } from './ledger-sqlite.js';
import { orderedPostings, type Movement, type TransferDone, type TransferRequest } from './ledger-types.js';

export type { Movement, Posting } from './ledger-types.js';

// The ledger's entry points. Each picks its database's implementation: PostgreSQL's plpgsql (ledger-postgres.ts) or
// SQLite's TypeScript (ledger-sqlite.ts). This file imports them; they import only ledger-types.ts.

/** Where a movement is counted for /metrics: the caller's (`ctx.metrics`), required so none goes uncounted. */
export interface Counted {
  metrics: Pick<Metrics, 'coinMovements'>;
}

/**
 * The one function that moves coins. It must run inside the caller's transaction (`trx`), so the movement and
 * whatever caused it (an idempotency record, an order's state) commit or roll back together. Each posting changes a
 * balance and appends its ledger entry; a posting that would take a balance below zero fails the whole movement
 * (积分不足), refused before anything is written when the first posting is the one refused, so a caller may carry on
 * in its transaction. Balances are locked in ascending user id, so two movements between the same users cannot
 * deadlock. Answers each user's balance after the movement.
 */
export async function moveCoins(trx: Db, movement: Movement & Counted): Promise<Map<number, number>> {
  if (!trx.isTransaction) throw new Error("moveCoins runs inside the caller's transaction");
  const postings = orderedPostings(movement);
  const balances = isPostgresDb(trx)
    ? await moveCoinsOnPostgres(trx, movement, postings)
    : await moveCoinsOnSqlite(trx, movement, postings);
  await balanceChanged(trx, [...balances.keys()]);
  for (const p of postings) movement.metrics.coinMovements.inc({ kind: p.kind });
  return balances;
}

/** Each user whose coins moved hears it once the movement commits (their balance, their statement). */
const balanceChanged = (trx: Db, userIds: number[]) => publish(trx, { kind: 'balance' }, { users: userIds });

/**
 * A user's transfer inside the caller's transaction (which also holds its idempotency key): the payee exists, is
 * active and is not the payer, the amount is within the site's per-transfer cap, then the movement (moveCoins' rules)
 * and the payee's notice. Refusals are thrown as the API's errors. The rules, case by case, are
 * tests/api/transfer-rules.test.ts, run against both implementations.
 */
export async function transferCoins(trx: Db, request: TransferRequest & Counted): Promise<TransferDone> {
  if (!trx.isTransaction) throw new Error("transferCoins runs inside the caller's transaction");
  const postgres = isPostgresDb(trx);
  const done = postgres ? await transferOnPostgres(trx, request) : await transferOnSqlite(trx, request);
  const balances = { event: { kind: 'balance' }, audience: { users: [request.payer.id, done.payee.id] } } as const;
  // SQLite wrote the payee's notice with insertNotice, which told it; PostgreSQL wrote it inside transfer_coins, so its
  // event goes with the balances (one NOTIFY for both).
  const notice = { event: { kind: 'notice', action: 'created' }, audience: { users: [done.payee.id] } } as const;
  await publishAll(trx, postgres ? [balances, notice] : [balances]);
  request.metrics.coinMovements.inc({ kind: 'transfer_out' });
  request.metrics.coinMovements.inc({ kind: 'transfer_in' });
  return done;
}
