import type { AppContext } from '../context.js';
import * as orders from '../orders/repo.js';
import { closeExpired } from '../orders/service.js';
import { askGateway } from './checkout.js';

/** An unpaid online order is asked about at its gateway once it is this old: its notification may have been lost. */
export const ASK_AFTER_MS = 2 * 60_000;
/** How many orders one pass asks about or closes at most. */
const BATCH = 100;

/**
 * The payment sweep, run by the scheduler about once a minute on every process (the conditional updates make
 * several at once harmless): first asks the gateways about unpaid online orders a few minutes old and settles what
 * they say is paid (a lost notification), then closes those whose time is up. In this order, so an order paid just
 * before its expiry whose notification was lost is credited, not closed; money that arrives after the close is still
 * taken by the notification (flagged 已关单后付款). Answers what it did.
 */
export async function sweepPayments(app: AppContext): Promise<{ settled: number; closed: number }> {
  const now = app.now();
  let settled = 0;
  for (const order of await orders.pendingOnlineSince(app.db, { from: 0, before: now - ASK_AFTER_MS }, BATCH)) {
    try {
      if (await askGateway(app, { ...order, amount: Number(order.amount) })) settled++;
    } catch (err) {
      app.log.warn({ err, orderNo: order.orderNo }, 'payment sweep: asking the gateway failed');
    }
  }
  return { settled, closed: await closeExpired(app, BATCH) };
}
