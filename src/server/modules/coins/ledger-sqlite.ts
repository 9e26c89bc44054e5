import type { Db } from '../../db/database.js';
import { coinsReceivedNotice } from '../notices/events.js';
import { insertNotice } from '../notices/repo.js';
import { findSite } from '../site/repo.js';
import { findLiveByAccount } from '../users/repo.js';
import { applyToBalance, insertEntries } from './repo.js';
import {
  insufficientCoins,
  orderedPostings,
  refusal,
  transferInDescription,
  transferOutPrefix,
  type Movement,
  type Posting,
  type TransferDone,
  type TransferRequest,
} from './ledger-types.js';

// The ledger on SQLite, in TypeScript (SQLite has no stored functions). PostgreSQL runs the same rules as plpgsql
// (ledger-postgres.ts). The rules both must follow are the cases of tests/api/transfer-rules.test.ts, run against
// both; change one implementation only together with that table.

/**
 * moveCoins on SQLite (see ledger.ts), inside the caller's transaction, which holds SQLite's one write lock (BEGIN
 * IMMEDIATE): one conditional UPDATE per posting in ascending user id, then every entry in one INSERT.
 */
export async function moveCoinsOnSqlite(
  trx: Db,
  movement: Movement,
  postings: Posting[],
): Promise<Map<number, number>> {
  const balances = new Map<number, number>();
  for (const p of postings) {
    const balance = await applyToBalance(trx, p.userId, p.amount);
    if (balance === undefined) throw insufficientCoins();
    balances.set(p.userId, balance);
  }
  await insertEntries(
    trx,
    postings.map((p) => ({
      userId: p.userId,
      amount: p.amount,
      balanceAfter: balances.get(p.userId)!,
      kind: p.kind,
      counterpartyId: p.counterpartyId ?? null,
      reference: movement.reference,
      description: p.description,
      actorId: movement.actorId,
      createdAt: movement.now,
    })),
  );
  return balances;
}

/** A user's transfer on SQLite (see ledger.ts transferCoins): the payee, the cap, the movement, the payee's notice. */
export async function transferOnSqlite(trx: Db, t: TransferRequest): Promise<TransferDone> {
  const payee = await findLiveByAccount(trx, t.payeeAccount);
  if (!payee || payee.status !== 'active') throw refusal('payee', 0);
  if (payee.id === t.payer.id) throw refusal('self', 0);
  // Read in the transfer's own transaction: an admin's change of the cap applies to the very next transfer.
  const cap = Number((await findSite(trx, t.siteId))?.amount ?? 0);
  if (cap > 0 && t.coin > cap) throw refusal('cap', cap);
  const movement: Movement = {
    postings: [
      {
        userId: t.payer.id,
        amount: -t.coin,
        kind: 'transfer_out',
        counterpartyId: payee.id,
        description: transferOutPrefix + payee.userAccount,
      },
      {
        userId: payee.id,
        amount: t.coin,
        kind: 'transfer_in',
        counterpartyId: t.payer.id,
        description: transferInDescription(t.payer.userAccount),
      },
    ],
    reference: t.reference,
    actorId: t.payer.id,
    now: t.now,
  };
  const balances = await moveCoinsOnSqlite(trx, movement, orderedPostings(movement));
  await insertNotice(
    trx,
    coinsReceivedNotice({ userId: payee.id, fromAccount: t.payer.userAccount, coin: t.coin }),
    t.now,
  );
  return {
    payee: { id: payee.id, userAccount: payee.userAccount, userName: payee.userName },
    balance: balances.get(t.payer.id)!,
  };
}
