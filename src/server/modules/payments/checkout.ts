import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { badParams, conflict, notFound } from '../../lib/errors.js';
import * as orders from '../orders/repo.js';
import { choosePayment, submit as submitOrder, toView, type OnlinePayment } from '../orders/service.js';
import * as records from '../orders/payment-records-repo.js';
import type { SessionUser } from '../sessions/service.js';
import { writeAudit } from '../../support/audit/repo.js';
import { askChannels } from './ask.js';
import { isOn, notifyUrl, openChannel, returnUrl } from './channels.js';
import { connectorFor } from './connectors/index.js';
import * as repo from './repo.js';

// The buyer's side of paying online: choosing a method (checked against the channels that are on), the order made on
// the server with its price and coins from the package, the cashier's address, and the result page's check; and the
// admin's 补单 of any online order.

type Choice = { channelId?: number; method?: Schemas['PayMethod'] };

/** Closed online orders are still asked about this long after they closed: the payer may have paid anyway. */
export const ASK_CLOSED_FOR_MS = 24 * 3600_000;
/** A buyer's 重新查询 asks the gateways at most once per order in this time; other taps answer the last known state. */
export const CHECK_GAP_MS = 5_000;

const ORDER_NOT_FOUND = '订单不存在';
const CLOSED = '订单已关闭或已付款，不能再付款；需要的话请重新下单';
const KEY_UNUSABLE = '这种付款方式暂时不能用，请换一种付款方式（管理员需要重新填写这个支付渠道的密钥）';

/** The chosen channel and method, if both are given and the channel is on, offers the method and can sign. */
async function onlinePayment(app: AppContext, choice: Choice): Promise<OnlinePayment | null> {
  if (choice.channelId === undefined && choice.method === undefined) return null;
  if (choice.channelId === undefined || choice.method === undefined) throw badParams('请选择付款方式');
  const channel = await repo.findChannel(app.db, choice.channelId);
  if (!channel || !isOn(app, channel) || !channel.methods.split(',').includes(choice.method))
    throw badParams('这种付款方式暂不可用，请换一种付款方式');
  // Checked before any order is made: a channel whose key cannot be opened (SESSION_SECRET changed) cannot sign.
  if (!(await openChannel(app, channel.id))) throw conflict(KEY_UNUSABLE);
  return {
    channelId: channel.id,
    method: choice.method,
    timeoutMs: (await repo.orderTimeoutMinutes(app.db)) * 60_000,
  };
}

/** The cashier's address for an order on the channel and method it was just sent to. */
async function payUrlOf(app: AppContext, order: orders.OrderRow, online: OnlinePayment): Promise<string> {
  const channel = await openChannel(app, online.channelId);
  if (!channel) throw conflict(KEY_UNUSABLE);
  return connectorFor(app, channel.kind).payUrl(channel, {
    orderNo: order.orderNo,
    method: online.method,
    name: order.coinName,
    amountFen: Number(order.amount),
    notifyUrl: notifyUrl(app),
    returnUrl: returnUrl(app),
  });
}

/**
 * Places an order (orders/service.ts submit: once per Idempotency-Key; an unpaid order for the same package is
 * answered instead of a new one) and, when paid online, answers the cashier's address with it.
 */
export async function submit(
  app: AppContext,
  actor: SessionUser,
  key: string,
  input: Schemas['OrderSubmitRequest'],
): Promise<Schemas['OrderSubmitted']> {
  const online = await onlinePayment(app, input);
  const { order, reused } = await submitOrder(app, actor, key, input, online);
  const payUrl = order.status === 'pending' && online ? await payUrlOf(app, order, online) : null;
  return { ...toView(order), reused, payUrl };
}

/**
 * 去支付 from 我的订单 (or the result page): an unpaid order of the caller's, paid with the method chosen now. The
 * channels it was sent to before stay valid for it.
 */
export async function pay(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['OrderPayRequest'],
): Promise<Schemas['OrderPayment']> {
  const found = await orders.findOrder(app.db, input.id);
  if (!found || found.userId !== actor.id) throw notFound(ORDER_NOT_FOUND);
  if (found.status !== 'pending' || (found.expiresAt !== null && Number(found.expiresAt) <= app.now()))
    throw conflict(CLOSED);
  const online = await onlinePayment(app, input);
  if (!online) throw badParams('请选择付款方式');
  if (!(await choosePayment(app, found.id, online))) throw conflict(CLOSED);
  const order = await orders.findOrder(app.db, found.id);
  if (!order) throw notFound(ORDER_NOT_FOUND);
  return { order: toView(order), payUrl: await payUrlOf(app, order, online) };
}

/** Whether the gateways are still asked about an order: unpaid online, or closed less than a day ago. */
export function stillAsked(order: orders.OrderRow, now: number): boolean {
  if (order.channelId === null) return false;
  if (order.status === 'pending') return true;
  return (
    order.status === 'cancelled' && order.cancelledAt !== null && Number(order.cancelledAt) > now - ASK_CLOSED_FOR_MS
  );
}

/**
 * The result page's question: the order as it stands. An online order not paid yet (or closed less than a day ago) is
 * asked about at every channel it was sent to, at most once per order every few seconds; a payment they report is
 * settled as a notification would be. Another buyer's order answers as a missing one does.
 */
export async function check(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['OrderCheckRequest'],
): Promise<Schemas['Order']> {
  const order = await orders.findOrderByNo(app.db, input.orderNo);
  if (!order || (order.userId !== actor.id && actor.userRole !== 'admin')) throw notFound(ORDER_NOT_FOUND);
  const now = app.now();
  if (!stillAsked(order, now) || !(await orders.claimAsk(app.db, order.id, now, CHECK_GAP_MS))) return toView(order);
  await askChannels(app, { id: order.id, orderNo: order.orderNo, amount: Number(order.amount) }, { source: 'check' });
  const fresh = await orders.findOrder(app.db, order.id);
  return toView(fresh ?? order);
}

/**
 * 补单: an admin asks every channel an online order was sent to, whatever its state and age, and sees each answer; a
 * payment they report is credited once (flagged when the order had closed), a second one recorded to refund.
 */
export async function reconcile(app: AppContext, actor: SessionUser, id: number): Promise<Schemas['OrderReconciled']> {
  const order = await orders.findOrder(app.db, id);
  if (!order) throw notFound(ORDER_NOT_FOUND);
  if ((await records.attemptChannelIds(app.db, id)).length === 0)
    throw conflict('这是线下付款的订单，没有支付渠道可以查询；收到钱后请点「确认收款」');
  const { answers } = await askChannels(
    app,
    { id, orderNo: order.orderNo, amount: Number(order.amount) },
    { source: 'admin', actorId: actor.id },
  );
  await writeAudit(
    app.db,
    {
      actorId: actor.id,
      action: 'order.ask',
      targetType: 'order',
      targetId: id,
      after: { orderNo: order.orderNo, answers: answers.map((a) => ({ channelId: a.channelId, verdict: a.verdict })) },
    },
    app.now(),
  );
  const fresh = await orders.findOrder(app.db, id);
  return { order: toView(fresh ?? order), answers };
}
