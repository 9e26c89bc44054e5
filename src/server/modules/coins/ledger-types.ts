import type { CoinEntryKind } from '../../db/types.js';
import { badParams, notFound } from '../../lib/errors.js';

// What the ledger's dispatcher (ledger.ts) and its two implementations (ledger-sqlite.ts, ledger-postgres.ts) share.
// The implementations import only this file, never the dispatcher.

export interface Posting {
  userId: number;
  /** Signed: positive credits the user, negative debits it. */
  amount: number;
  kind: CoinEntryKind;
  counterpartyId?: number | null;
  description: string;
}

export interface Movement {
  postings: Posting[];
  /** Shared by the movement's entries: a transfer's two sides, an order's credit and its rebate. */
  reference: string;
  actorId: number | null;
  now: number;
}

/** The postings in the order balances are locked (ascending user id), each amount a non-zero safe integer. */
export function orderedPostings(movement: Movement): Posting[] {
  for (const posting of movement.postings)
    if (!Number.isSafeInteger(posting.amount) || posting.amount === 0)
      throw new Error(`invalid posting amount ${posting.amount}`);
  return [...movement.postings].sort((a, b) => a.userId - b.userId);
}

export const insufficientCoins = () => badParams('积分不足');

/** A user's transfer as both implementations take it (the texts are the server's; PostgreSQL only stores them). */
export interface TransferRequest {
  payer: { id: number; userAccount: string };
  /** As typed: the payee is found whatever its letter case. */
  payeeAccount: string;
  coin: number;
  /** The site record whose `amount` caps one transfer (0: no cap). */
  siteId: number;
  reference: string;
  now: number;
}

export interface TransferDone {
  payee: { id: number; userAccount: string; userName: string };
  /** The payer's balance after the transfer. */
  balance: number;
}

/** Why a transfer is refused; the same four reasons on both databases (tests/api/transfer-rules.test.ts). */
export type TransferRefusal = 'payee' | 'self' | 'cap' | 'funds';

export function refusal(reason: TransferRefusal, cap: number): Error {
  switch (reason) {
    case 'payee':
      return notFound('收款账号不存在或不可用');
    case 'self':
      return badParams('不能转给自己');
    case 'cap':
      return badParams(`单笔最多转 ${cap} 积分`);
    case 'funds':
      return insufficientCoins();
  }
}

/** The words of a transfer's two entries. */
export const transferOutPrefix = '转给 ';
export const transferInDescription = (payerAccount: string) => `来自 ${payerAccount}`;
/** The words of an agent's rebate entry: the invitee who bought, and the percentage. */
export const rebateDescription = (buyerAccount: string, percent: number) =>
  `下级 ${buyerAccount} 购买套餐返利 ${percent}%`;

/**
 * An entry's words as shown. The ledger is append-only, words included (a trigger refuses any change), so an entry
 * whose counterparty has since closed its account (modules/closing) is shown with the masked name the counterparty
 * now has instead of the name its words were written with.
 */
export function shownDescription(e: {
  kind: string;
  description: string;
  counterpartyAccount: string | null;
  counterpartyClosedAt: number | null;
}): string {
  if (e.counterpartyClosedAt === null || e.counterpartyAccount === null) return e.description;
  switch (e.kind) {
    case 'transfer_out':
      return transferOutPrefix + e.counterpartyAccount;
    case 'transfer_in':
      return transferInDescription(e.counterpartyAccount);
    case 'agent_rebate':
      // The percentage is the entry's own: the words after the name are kept.
      return `下级 ${e.counterpartyAccount}${e.description.slice(e.description.indexOf(' 购买套餐返利'))}`;
    default:
      return e.description;
  }
}
