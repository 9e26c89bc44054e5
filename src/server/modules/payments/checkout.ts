import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { badParams, conflict, noPermission, notFound } from '../../lib/errors.js';
import * as orders from '../orders/repo.js';
import { submit as submitOrder, toView, type OnlinePayment } from '../orders/service.js';
import type { SessionUser } from '../sessions/service.js';
import { isOn, notifyUrl, openChannel, returnUrl } from './channels.js';
import { connectorFor } from './connectors/index.js';
import * as repo from './repo.js';
import { settleFromGateway } from './settle.js';

// The buyer's side of paying online: choosing a method (checked against the channels that are on), the order made on
// the server with its price and coins from the package, the cashier's address, and the result page's check.

type Choice = { channelId?: number; method?: Schemas['PayMethod'] };

/** The chosen channel and method, if both are given and the channel is on and offers the method. */
async function onlinePayment(app: AppContext, choice: Choice): Promise<OnlinePayment | null> {
  if (choice.channelId === undefined && choice.method === undefined) return null;
  if (choice.channelId === undefined || choice.method === undefined) throw badParams('请选择付款方式');
  const channel = await repo.findChannel(app.db, choice.channelId);
  if (!channel || !isOn(app, channel) || !channel.methods.split(',').includes(choice.method))
    throw badParams('这种付款方式暂不可用，请换一种付款方式');
  return {
    channelId: channel.id,
    method: choice.method,
    timeoutMs: (await repo.orderTimeoutMinutes(app.db)) * 60_000,
  };
}

/** The cashier's address for an order: its channel's connector signs the request. */
async function payUrlOf(app: AppContext, order: orders.OrderRow): Promise<string> {
  const channel = await openChannel(app, order.channelId!);
  if (!channel) throw conflict('支付渠道暂不可用，请换一种付款方式或稍后再试');
  return connectorFor(app, channel.kind).payUrl(channel, {
    orderNo: order.orderNo,
    method: order.method!,
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
  const payUrl = order.status === 'pending' && order.channelId !== null ? await payUrlOf(app, order) : null;
  return { ...toView(order), reused, payUrl };
}

/** 去支付 from 我的订单 (or the result page): an unpaid order of the caller's, paid with the method chosen now. */
export async function pay(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['OrderPayRequest'],
): Promise<Schemas['OrderPayment']> {
  const found = await orders.findOrder(app.db, input.id);
  if (!found || found.userId !== actor.id) throw notFound('订单不存在');
  const now = app.now();
  if (found.status !== 'pending' || (found.expiresAt !== null && Number(found.expiresAt) <= now))
    throw conflict('订单已关闭或已付款，不能再付款；需要的话请重新下单');
  const online = (await onlinePayment(app, input))!;
  if (!(await orders.choosePayment(app.db, found.id, { ...online, deadline: now + online.timeoutMs })))
    throw conflict('订单已关闭或已付款，不能再付款；需要的话请重新下单');
  const order = (await orders.findOrder(app.db, found.id))!;
  return { order: toView(order), payUrl: await payUrlOf(app, order) };
}

/**
 * The result page's question: the order as it stands. An unpaid online order is asked about at its gateway once
 * (the notification may be late or lost); if the gateway says paid, it is settled as a notification would be.
 */
export async function check(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['OrderCheckRequest'],
): Promise<Schemas['Order']> {
  const order = await orders.findOrderByNo(app.db, input.orderNo);
  if (!order) throw notFound('订单不存在');
  if (order.userId !== actor.id && actor.userRole !== 'admin') throw noPermission('只能查看自己的订单');
  if (order.status === 'pending' && order.channelId !== null && (await askGateway(app, order)))
    return toView((await orders.findOrder(app.db, order.id))!);
  return toView(order);
}

/** Asks an online order's gateway whether it is paid and settles it if so; answers whether it was settled now. */
export async function askGateway(
  app: AppContext,
  order: { id: number; orderNo: string; channelId: number | null; amount: number },
): Promise<boolean> {
  const channel = await openChannel(app, order.channelId!);
  if (!channel) return false;
  const answer = await connectorFor(app, channel.kind).queryOrder(channel, order.orderNo);
  if (!answer?.paid || !answer.tradeNo) return false;
  const outcome = await settleFromGateway(app, order, { tradeNo: answer.tradeNo, amountFen: answer.amountFen });
  return outcome === 'credited' || outcome === 'credited_late';
}
