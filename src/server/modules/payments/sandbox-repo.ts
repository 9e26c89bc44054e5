import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { PayMethod, SandboxPayTradesTable } from '../../db/types.js';

// The sandbox gateway's own records (sandbox_pay_trades), as a real gateway keeps its trades.

export type SandboxTradeRow = NonNullable<Awaited<ReturnType<typeof findTrade>>>;

export const findTrade = (db: Db, tradeNo: string) =>
  db.selectFrom('sandboxPayTrades').selectAll().where('tradeNo', '=', tradeNo).executeTakeFirst();

/** The newest trade for an order of the site that is still open or paid (a resubmission gets it again). */
export const liveTradeFor = (db: Db, channelId: number, outTradeNo: string) =>
  db
    .selectFrom('sandboxPayTrades')
    .selectAll()
    .where('channelId', '=', channelId)
    .where('outTradeNo', '=', outTradeNo)
    .where('status', 'in', ['pending', 'paid'])
    .orderBy('createdAt', 'desc')
    .executeTakeFirst();

/** A trade the payer paid for the order (refunded later or not: the money was taken), the newest. */
export const paidTradeFor = (db: Db, channelId: number, outTradeNo: string) =>
  db
    .selectFrom('sandboxPayTrades')
    .selectAll()
    .where('channelId', '=', channelId)
    .where('outTradeNo', '=', outTradeNo)
    .where('status', 'in', ['paid', 'refunded'])
    .orderBy('createdAt', 'desc')
    .executeTakeFirst();

/** Refunds a paid trade; answers false when there is none to refund (unknown, unpaid, refunded already). */
export async function refundTrade(db: Db, channelId: number, tradeNo: string): Promise<boolean> {
  const result = await db
    .updateTable('sandboxPayTrades')
    .set({ status: 'refunded' })
    .where('tradeNo', '=', tradeNo)
    .where('channelId', '=', channelId)
    .where('status', '=', 'paid')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function insertTrade(db: Db, row: Insertable<SandboxPayTradesTable>): Promise<void> {
  await db.insertInto('sandboxPayTrades').values(row).execute();
}

/** Ends a pending trade (paid, failed or closed); answers whether it was pending. */
export async function finishTrade(
  db: Db,
  tradeNo: string,
  change: { status: 'paid' | 'failed' | 'closed'; paidAt: number | null },
): Promise<boolean> {
  const result = await db
    .updateTable('sandboxPayTrades')
    .set(change)
    .where('tradeNo', '=', tradeNo)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The payer picked another method for an open trade (the site's 去支付 again). */
export async function setTradeType(db: Db, tradeNo: string, type: PayMethod): Promise<void> {
  await db
    .updateTable('sandboxPayTrades')
    .set({ type })
    .where('tradeNo', '=', tradeNo)
    .where('status', '=', 'pending')
    .execute();
}
