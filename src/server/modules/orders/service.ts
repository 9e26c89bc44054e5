import * as events from '../notices/events.js';
import type { Schemas } from '../../../api/operations.js';
import { readableOrderNo } from '../../support/security/tokens.js';
import { siteDay } from '../../lib/site-time.js';
import type { AppContext } from '../context.js';
import type { Db } from '../../db/database.js';
import { mapPage, type Page } from '../../db/paging.js';
import { badParams, conflict, notFound } from '../../lib/errors.js';
import { writeAudit } from '../../support/audit/repo.js';
import { ownerAndAdmins, publish } from '../../live/events.js';
import { idempotent } from '../coins/idempotency.js';
import { moveCoins, type Counted, type Posting } from '../coins/ledger.js';
import { rebateDescription } from '../coins/ledger-types.js';
import * as mall from '../mall/repo.js';
import type { SessionUser } from '../sessions/service.js';
import { findLiveSite } from '../site/repo.js';
import * as users from '../users/repo.js';
import * as records from './payment-records-repo.js';
import * as repo from './repo.js';

/** An unpaid online order's gateways are first asked about this long after it was sent (its notification may be lost). */
export const FIRST_CHECK_AFTER_MS = 60_000;

/** How many unpaid orders one user may have at a time. */
export const MAX_PENDING_ORDERS = 20;

const NOT_FOUND = '订单不存在';
const ALREADY_HANDLED = '订单已处理';

/** The buyer's screens and every admin's order list hear of an order's change when it commits. */
const orderChanged = (trx: Db, order: { id: number; userId: number }, action: 'created' | 'confirmed' | 'cancelled') =>
  publish(trx, { kind: 'order', action, orderId: order.id }, ownerAndAdmins(order.userId));

export const toView = (o: repo.OrderRow): Schemas['Order'] => ({
  id: o.id,
  orderNo: o.orderNo,
  userAccount: o.userAccount,
  packageId: o.packageId,
  coinName: o.coinName,
  amount: Number(o.amount),
  addCoin: Number(o.addCoin),
  status: o.status,
  createdAt: Number(o.createdAt),
  paidAt: o.paidAt === null ? null : Number(o.paidAt),
  cancelledAt: o.cancelledAt === null ? null : Number(o.cancelledAt),
  channelId: o.channelId,
  channelName: o.channelName,
  method: o.method,
  tradeNo: o.tradeNo,
  expiresAt: o.expiresAt === null ? null : Number(o.expiresAt),
  paidBy: o.paidBy,
  paidLate: Number(o.paidLate) === 1,
  needsRefund: Number(o.needsRefund) === 1,
  refundedAt: o.refundedAt === null ? null : Number(o.refundedAt),
});

/**
 * The order was sent to this channel and method (a first purchase, 去支付, the same package bought again): the
 * channel stays valid for the order beside the earlier ones, the timeline says so, and its gateways are asked about
 * it from a couple of minutes on.
 */
async function sentTo(trx: Db, orderId: number, online: OnlinePayment, now: number): Promise<void> {
  await records.recordAttempt(trx, { orderId, channelId: online.channelId, method: online.method, now });
  await records.insertEvent(trx, {
    at: now,
    kind: 'sent',
    orderId,
    channelId: online.channelId,
    method: online.method,
  });
  await repo.setNextCheckIfUnset(trx, orderId, now + FIRST_CHECK_AFTER_MS);
}

/** Points a pending order at the buyer's chosen channel and method (去支付); answers whether it was still pending. */
export async function choosePayment(app: AppContext, orderId: number, online: OnlinePayment): Promise<boolean> {
  const now = app.now();
  return app.db.transaction().execute(async (trx) => {
    if (!(await repo.choosePayment(trx, orderId, { ...online, deadline: now + online.timeoutMs }))) return false;
    await sentTo(trx, orderId, online, now);
    return true;
  });
}

/** How an order is to be paid online: chosen by the buyer, checked by payments/checkout.ts before it comes here. */
export interface OnlinePayment {
  channelId: number;
  method: Schemas['PayMethod'];
  timeoutMs: number;
}

/**
 * An order for an on-shelf package, keeping its name, price and coins as they are now; retries with the same key
 * place it once. While the buyer has an unpaid order for the same package that has not expired, that order is
 * answered (`reused`) instead of a new one: three taps on 购买 are one order. An online order expires.
 */
export async function submit(
  app: AppContext,
  actor: SessionUser,
  key: string,
  input: Schemas['OrderSubmitRequest'],
  online: OnlinePayment | null,
): Promise<{ order: repo.OrderRow; reused: boolean }> {
  return idempotent(app, { actorId: actor.id, key, operation: 'order_submit', request: input }, async (trx) => {
    const pkg = await mall.findPackage(trx, input.packageId);
    if (!pkg || pkg.status !== 1) throw notFound('套餐不存在或已下架');
    await repo.lockUser(trx, actor.id, app.config.database.kind);
    const now = app.now();
    const open = await repo.findOpenOrderFor(trx, actor.id, pkg.id, now);
    if (open) {
      if (online && (await repo.choosePayment(trx, open.id, { ...online, deadline: now + online.timeoutMs })))
        await sentTo(trx, open.id, online, now);
      return { order: (await repo.findOrder(trx, open.id))!, reused: true };
    }
    if ((await repo.countPending(trx, actor.id)) >= MAX_PENDING_ORDERS) {
      throw badParams(`待付款的订单最多 ${MAX_PENDING_ORDERS} 个，请先完成付款或取消`);
    }
    const id = await repo.insertOrder(trx, {
      orderNo: readableOrderNo(siteDay(now, app.config.jobs.timeZone)),
      userId: actor.id,
      packageId: pkg.id,
      coinName: pkg.coinName,
      amount: pkg.amount,
      addCoin: pkg.addCoin,
      status: 'pending',
      createdAt: now,
      paidAt: null,
      cancelledAt: null,
      handledBy: null,
      ...(online ? { channelId: online.channelId, method: online.method, expiresAt: now + online.timeoutMs } : {}),
    });
    await records.insertEvent(trx, { at: now, kind: 'created', orderId: id, actorId: actor.id });
    if (online) await sentTo(trx, id, online, now);
    await orderChanged(trx, { id, userId: actor.id }, 'created');
    return { order: (await repo.findOrder(trx, id))!, reused: false };
  });
}

/** The caller's own orders, newest first. */
export async function mine(
  app: AppContext,
  actor: SessionUser,
  query: repo.OrderListQuery,
): Promise<Page<Schemas['Order']>> {
  return mapPage(await repo.listOrders(app.db, query, { userId: actor.id }), toView);
}

/** Everyone's orders (admin), newest first. */
export async function listPage(app: AppContext, query: repo.OrderListQuery): Promise<Page<Schemas['Order']>> {
  return mapPage(await repo.listOrders(app.db, query, {}), toView);
}

/**
 * The admin confirms payment of an offline order (an online one is settled by its gateway's notification or the
 * query job): settlePaid, once; a second confirmation answers 40900.
 */
export async function confirm(
  app: AppContext,
  actor: SessionUser,
  key: string,
  input: Schemas['IdRequest'],
): Promise<Schemas['Order']> {
  return idempotent(app, { actorId: actor.id, key, operation: 'order_confirm', request: input }, async (trx) => {
    const order = await repo.findOrder(trx, input.id);
    if (!order) throw notFound(NOT_FOUND);
    if (order.channelId !== null && order.status === 'pending')
      throw conflict('这是在线支付的订单，付款后由支付平台通知自动到账，不能手动确认；用户未付款可以取消');
    if (
      !(await settlePaid(trx, app.now(), order, { by: actor.id, tradeNo: null, channelId: null, metrics: app.metrics }))
    )
      throw conflict(ALREADY_HANDLED);
    return toView((await repo.findOrder(trx, order.id))!);
  });
}

/**
 * Settles a payment in the caller's transaction: the order marked paid (a conditional update, so of any number of
 * concurrent settlements, an admin's or a gateway's on any process, exactly one gets through; answers false for the
 * others and they change nothing), the buyer credited the package's coins once on the ledger (reference: the order
 * number), the buyer's inviter, if an agent, the site's rebate percentage of them, the inbox notices, the live event
 * and the audit entry. `by` is the admin who confirmed, or null for a gateway's payment (`tradeNo` its number), which
 * is also taken for an order that had closed meanwhile, flagged paid_late.
 */
export async function settlePaid(
  trx: Db,
  now: number,
  order: repo.OrderRow,
  payment: { by: number | null; tradeNo: string | null; channelId: number | null } & Counted,
): Promise<boolean> {
  const paidBy = payment.by === null ? 'online' : 'manual';
  if (!(await repo.markPaid(trx, order.id, { paidAt: now, handledBy: payment.by, paidBy, tradeNo: payment.tradeNo })))
    return false;
  // A gateway's payment is recorded by payments/settle.ts, after the notification or answer that told of it.
  if (payment.by !== null)
    await records.insertEvent(trx, {
      at: now,
      kind: 'credited',
      orderId: order.id,
      actorId: payment.by,
      source: 'admin',
    });
  const addCoin = Number(order.addCoin);
  const postings: Posting[] = [
    { userId: order.userId, amount: addCoin, kind: 'order_credit', description: `购买套餐「${order.coinName}」` },
  ];
  let rebate: { agentId: number; coin: number; percent: number } | null = null;
  const buyer = await users.findLiveById(trx, order.userId);
  const inviter = buyer?.inviterId ? await users.findLiveById(trx, buyer.inviterId) : undefined;
  if (inviter && inviter.userRole === 'agent') {
    const percent = (await findLiveSite(trx))?.rebatePercent ?? 0;
    const coin = Math.floor((addCoin * percent) / 100);
    if (percent > 0 && coin >= 1) {
      rebate = { agentId: inviter.id, coin, percent };
      postings.push({
        userId: inviter.id,
        amount: coin,
        kind: 'agent_rebate',
        counterpartyId: order.userId,
        description: rebateDescription(order.userAccount, percent),
      });
    }
  }
  const balances = await moveCoins(trx, {
    postings,
    reference: order.orderNo,
    actorId: payment.by,
    now,
    metrics: payment.metrics,
  });
  await events.orderConfirmed(trx, { userId: order.userId, coinName: order.coinName, addCoin }, now);
  if (rebate)
    await events.coinsAdjusted(
      trx,
      {
        userId: rebate.agentId,
        amount: rebate.coin,
        reason: `下级 ${order.userAccount} 购买套餐「${order.coinName}」返利 ${rebate.percent}%`,
        balance: balances.get(rebate.agentId)!,
      },
      now,
    );
  await orderChanged(trx, order, 'confirmed');
  await writeAudit(
    trx,
    {
      actorId: payment.by,
      action: payment.by === null ? 'order.paid' : 'order.confirm',
      targetType: 'order',
      targetId: order.id,
      before: { status: order.status },
      after: {
        status: 'paid',
        orderNo: order.orderNo,
        addCoin,
        rebate,
        tradeNo: payment.tradeNo,
        late: order.status === 'cancelled',
      },
    },
    now,
  );
  return true;
}

/** The buyer cancels its own pending order; an admin any pending order. */
export async function cancel(app: AppContext, actor: SessionUser, id: number): Promise<Schemas['Order']> {
  const order = await repo.findOrder(app.db, id);
  if (!order) throw notFound(NOT_FOUND);
  const isAdmin = actor.userRole === 'admin';
  // Another buyer's order answers as a missing one does: its number tells a stranger nothing.
  if (!isAdmin && order.userId !== actor.id) throw notFound(NOT_FOUND);
  if (order.status !== 'pending') throw conflict(ALREADY_HANDLED);
  const now = app.now();
  return app.db.transaction().execute(async (trx) => {
    if (!(await repo.cancelPending(trx, id, { cancelledAt: now, handledBy: actor.id })))
      throw conflict(ALREADY_HANDLED);
    await records.insertEvent(trx, { at: now, kind: 'cancelled', orderId: id, actorId: actor.id });
    // The buyer who cancels its own order needs no notice of it; one cancelled by an admin does.
    if (order.userId !== actor.id)
      await events.orderCancelled(trx, { userId: order.userId, coinName: order.coinName, orderNo: order.orderNo }, now);
    await orderChanged(trx, order, 'cancelled');
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: 'order.cancel',
        targetType: 'order',
        targetId: id,
        before: { status: 'pending' },
        after: { status: 'cancelled', orderNo: order.orderNo },
      },
      now,
    );
    return toView((await repo.findOrder(trx, id))!);
  });
}

/**
 * Closes unpaid online orders whose time is up (the payment sweeper, payments/sweeper.ts): each in its own
 * conditional update, so a payment settling the same order at the same moment wins or loses cleanly; a payment that
 * comes later is still taken (settlePaid, flagged paid_late). The buyer's screens hear of it. Answers how many closed.
 */
export async function closeExpired(app: AppContext, limit = 200): Promise<number> {
  const now = app.now();
  let closed = 0;
  for (const order of await repo.expiredOnline(app.db, now, limit)) {
    const done = await app.db.transaction().execute(async (trx) => {
      if (!(await repo.cancelPending(trx, order.id, { cancelledAt: now, handledBy: null }))) return false;
      await records.insertEvent(trx, { at: now, kind: 'closed', orderId: order.id });
      await orderChanged(trx, order, 'cancelled');
      return true;
    });
    if (done) closed++;
  }
  return closed;
}
