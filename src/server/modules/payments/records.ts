import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { mapPage, type Page, type PageQuery } from '../../db/paging.js';
import { notFound } from '../../lib/errors.js';
import * as records from '../orders/payment-records-repo.js';
import * as orders from '../orders/repo.js';
import { toView } from '../orders/service.js';

// What the admin reads of payments: an order (订单详情), its timeline, and 回调记录.

export const eventView = (e: records.EventRow): Schemas['PaymentEvent'] => ({
  id: e.id,
  at: Number(e.at),
  kind: e.kind,
  orderId: e.orderId,
  orderNo: e.orderNo,
  channelId: e.channelId,
  channelName: e.channelName,
  method: e.method,
  tradeNo: e.tradeNo,
  money: e.money,
  verdict: e.verdict as Schemas['PaymentVerdict'] | null,
  expectedAmount: e.expectedAmount === null ? null : Number(e.expectedAmount),
  source: e.source,
  sender: e.sender,
  actorAccount: e.actorAccount,
  detail: e.detail,
});

export async function order(app: AppContext, id: number): Promise<Schemas['Order']> {
  const found = await orders.findOrder(app.db, id);
  if (!found) throw notFound('订单不存在');
  return toView(found);
}

export async function timeline(
  app: AppContext,
  query: PageQuery & { orderId: number },
): Promise<Page<Schemas['PaymentEvent']>> {
  return mapPage(await records.orderEvents(app.db, query.orderId, query), eventView);
}

export async function notifyLog(
  app: AppContext,
  query: records.NotifyLogQuery,
): Promise<Page<Schemas['PaymentEvent']>> {
  return mapPage(await records.notifyLog(app.db, query), eventView);
}
