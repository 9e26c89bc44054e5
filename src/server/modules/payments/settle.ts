import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import type { Db } from '../../db/database.js';
import * as records from '../orders/payment-records-repo.js';
import * as orders from '../orders/repo.js';
import { settlePaid } from '../orders/service.js';
import { writeAudit } from '../../support/audit/repo.js';
import { fenOf } from './money.js';

/** What became of a gateway's word that an order is paid. */
export type GatewaySettlement = Extract<
  Schemas['PaymentVerdict'],
  'credited' | 'credited_late' | 'duplicate' | 'second_payment' | 'wrong_amount'
>;

export interface GatewayPaymentWord {
  channelId: number;
  tradeNo: string;
  /** The money as the gateway wrote it ("9.90"). */
  money: string | null;
  /** What told of it: the notification, or who asked the gateway. */
  source: 'notify' | 'sweep' | 'check' | 'admin';
  /** The admin whose 补单 found it, for the audit. */
  actorId?: number | null;
  /**
   * Records the notification or the answer with its verdict, in the same transaction and before the credit it caused,
   * so the order's timeline reads cause, then effect.
   */
  witness: (trx: Db, verdict: GatewaySettlement) => Promise<void>;
}

/**
 * Takes a gateway's word (a notification, or an answer to a query) that an order is paid, if its money is the order's
 * price to the fen (else `wrong_amount`, nothing moves), in one transaction:
 * - a trade number already recorded for that channel is a `duplicate` (nothing moves, however many copies arrive on
 *   however many processes);
 * - an order not paid yet (pending, or closed or cancelled meanwhile: the money was taken, so it is `credited_late`
 *   and flagged) is settled by orders/service.ts settlePaid, whose conditional update lets exactly one settlement
 *   through, and the payment is recorded as the one that credited it;
 * - an order already paid with another trade number means the payer paid twice: the payment is recorded as a second
 *   payment and the order flagged 需退款 (no coins move).
 */
export async function settleFromGateway(
  app: AppContext,
  orderId: number,
  payment: GatewayPaymentWord,
): Promise<GatewaySettlement> {
  const { channelId, tradeNo } = payment;
  return app.db.transaction().execute(async (trx) => {
    const verdict = await settleIn(app, trx, orderId, payment);
    await payment.witness(trx, verdict);
    if (verdict === 'credited' || verdict === 'credited_late')
      await records.insertEvent(trx, {
        at: app.now(),
        kind: 'credited',
        orderId,
        channelId,
        tradeNo,
        money: payment.money,
        source: payment.source,
        actorId: payment.actorId ?? null,
      });
    return verdict;
  });
}

/** The verdict of a gateway's word in the caller's transaction, crediting the order when it is a payment due. */
async function settleIn(
  app: AppContext,
  trx: Db,
  orderId: number,
  payment: GatewayPaymentWord,
): Promise<GatewaySettlement> {
  const { channelId, tradeNo } = payment;
  const order = await orders.findOrder(trx, orderId);
  if (!order) throw new Error(`order ${orderId} vanished`);
  if (fenOf(payment.money ?? '') !== Number(order.amount)) return 'wrong_amount';
  if (await records.findPaymentByTrade(trx, channelId, tradeNo)) return 'duplicate';
  const now = app.now();
  const record = (credited: 0 | 1) =>
    records.insertPayment(trx, {
      orderId,
      channelId,
      tradeNo,
      amount: Number(order.amount),
      credited,
      receivedAt: now,
    });
  const secondPayment = async (): Promise<GatewaySettlement> => {
    // A copy of the same second payment on another process got here first: it is that one.
    if (!(await record(0))) return 'duplicate';
    await orders.setNeedsRefund(trx, orderId, true);
    await writeAudit(
      trx,
      {
        actorId: payment.actorId ?? null,
        action: 'order.paidTwice',
        targetType: 'order',
        targetId: orderId,
        after: { orderNo: order.orderNo, tradeNo, channelId, money: payment.money },
      },
      now,
    );
    return 'second_payment';
  };
  if (order.status === 'paid') return order.tradeNo === tradeNo ? 'duplicate' : secondPayment();
  if (!(await settlePaid(trx, now, order, { by: null, tradeNo, channelId, metrics: app.metrics }))) {
    // Another process settled it between the read and the update: which payment was it?
    const settled = await orders.findOrder(trx, orderId);
    return settled?.tradeNo === tradeNo ? 'duplicate' : secondPayment();
  }
  await record(1);
  if (payment.actorId)
    await writeAudit(
      trx,
      {
        actorId: payment.actorId,
        action: 'order.reconcile',
        targetType: 'order',
        targetId: orderId,
        before: { status: order.status },
        after: { status: 'paid', orderNo: order.orderNo, tradeNo, channelId, late: order.status === 'cancelled' },
      },
      now,
    );
  return order.status === 'cancelled' ? 'credited_late' : 'credited';
}
