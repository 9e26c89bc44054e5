import type { AppContext } from '../context.js';
import * as orders from '../orders/repo.js';
import { settlePaid } from '../orders/service.js';

/** What became of a gateway's word that an order is paid. */
export type GatewaySettlement = 'credited' | 'credited_late' | 'duplicate' | 'paid_twice' | 'wrong_amount';

/**
 * Takes a gateway's payment of an online order if its money is the order's price (else `wrong_amount`, nothing moves) (its notification, or its answer to the query job) in one transaction
 * with orders/service.ts settlePaid: credited once, however many notifications arrive on however many processes. A
 * payment for an order already paid with the same trade number is a duplicate (answered `success`, nothing moves); one
 * with another trade number means the payer paid twice, which is logged for the admin to refund (nothing moves).
 */
export async function settleFromGateway(
  app: AppContext,
  order: { id: number; orderNo: string; amount: number },
  payment: { tradeNo: string; amountFen: number | null },
): Promise<GatewaySettlement> {
  // The money must be the price to the fen, whichever way the gateway said it (notification or query answer).
  if (payment.amountFen !== Number(order.amount)) {
    app.metrics.payNotifies.inc({ result: 'wrong_amount' });
    app.log.warn(
      { orderNo: order.orderNo, money: payment.amountFen },
      'payment refused: the gateway took another amount',
    );
    return 'wrong_amount';
  }
  const orderId = order.id;
  const { tradeNo } = payment;
  const outcome = await app.db.transaction().execute(async (trx): Promise<GatewaySettlement> => {
    const order = (await orders.findOrder(trx, orderId))!;
    if (order.status === 'paid') return order.tradeNo === tradeNo ? 'duplicate' : 'paid_twice';
    if (!(await settlePaid(trx, app.now(), order, { by: null, tradeNo, metrics: app.metrics }))) {
      // Another process settled it between the read and the update: which payment was it?
      const now = await orders.findOrder(trx, orderId);
      return now?.tradeNo === tradeNo ? 'duplicate' : 'paid_twice';
    }
    return order.status === 'cancelled' ? 'credited_late' : 'credited';
  });
  app.metrics.payNotifies.inc({ result: outcome });
  if (outcome === 'paid_twice')
    app.log.error({ orderId, tradeNo }, 'payment: an order already paid was paid again (refund it at the gateway)');
  if (outcome === 'credited_late')
    app.log.warn({ orderId, tradeNo }, 'payment: money arrived for a closed order; credited and flagged 已关单后付款');
  return outcome;
}
