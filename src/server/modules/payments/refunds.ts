import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import type { Db } from '../../db/database.js';
import { badParams, conflict, notFound } from '../../lib/errors.js';
import { writeAudit } from '../../support/audit/repo.js';
import { idempotent } from '../coins/idempotency.js';
import { moveCoins, type Posting } from '../coins/ledger.js';
import { creditsOfReference } from '../coins/statement-repo.js';
import type { Page, PageQuery } from '../../db/paging.js';
import * as records from '../orders/payment-records-repo.js';
import * as orders from '../orders/repo.js';
import { publish, ownerAndAdmins } from '../../live/events.js';
import type { SessionUser } from '../sessions/service.js';
import { openChannel } from './channels.js';
import { GATEWAY_TIMEOUT_MS } from './connectors/epay.js';
import { connectorFor, type RefundResult } from './connectors/index.js';

// Refunding an online payment (退款): through the gateway's refund API (原路退回) or recorded as done elsewhere
// (已线下退款). Refunding the payment that credited an order takes back what the order credited (the buyer's coins,
// the agent's rebate) in the same transaction, refused with the shortfall when a balance no longer covers it; a second
// payment is refunded without touching coins. Each payment is refunded once.

type TakeBack = Schemas['CoinTakeBack'];

/** A refund still 退款中 this long after it started was left so by a gateway that gave no usable answer. */
const LEFT_AFTER_MS = 2 * GATEWAY_TIMEOUT_MS;

/** The coins a refund of this payment takes back, per account, with each balance now (none for a second payment). */
async function takeBackOf(db: Db, payment: records.PaymentRow): Promise<TakeBack[]> {
  if (payment.credited !== 1) return [];
  const credits = await creditsOfReference(db, payment.orderNo, ['order_credit', 'agent_rebate']);
  // The buyer first, then the agent (the ledger writes them in user id order).
  const ordered = [...credits].sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'order_credit' ? -1 : 1));
  return ordered.map((c) => ({
    userId: c.userId,
    account: c.userAccount,
    kind: c.kind === 'order_credit' ? 'buyer' : 'agent',
    coins: Number(c.amount),
    balance: Number(c.coin),
  }));
}

const view = (payment: records.PaymentRow, takeBack: TakeBack[]): Schemas['GatewayPayment'] => ({
  id: payment.id,
  orderId: payment.orderId,
  orderNo: payment.orderNo,
  channelId: payment.channelId,
  channelName: payment.channelName,
  tradeNo: payment.tradeNo,
  amount: Number(payment.amount),
  credited: payment.credited === 1,
  receivedAt: Number(payment.receivedAt),
  refundState: payment.refundState,
  refundMode: payment.refundMode,
  refundedAt: payment.refundedAt === null ? null : Number(payment.refundedAt),
  refundedBy: payment.refundedByAccount,
  takeBack,
});

export async function paymentPage(
  app: AppContext,
  query: PageQuery & { orderId: number },
): Promise<Page<Schemas['GatewayPayment']>> {
  const page = await records.paymentPage(app.db, query.orderId, query);
  const views = await Promise.all(page.records.map(async (p) => view(p, await takeBackOf(app.db, p))));
  return { ...page, records: views };
}

const shortfall = (t: TakeBack) =>
  `${t.kind === 'buyer' ? '用户' : '代理'} ${t.account} 现在有 ${t.balance} 积分，要扣回 ${t.coins} 积分，差 ${t.coins - t.balance} 积分`;

/**
 * Takes back (sign -1) or gives back (+1) what a credited payment's order gave, in the caller's transaction: refused
 * with the shortfall, naming the account, when a balance no longer covers it.
 */
async function moveBack(
  app: AppContext,
  trx: Db,
  payment: records.PaymentRow,
  sign: 1 | -1,
  actorId: number,
): Promise<void> {
  const takeBack = await takeBackOf(trx, payment);
  if (takeBack.length === 0) return;
  const short = sign === -1 ? takeBack.find((t) => t.balance < t.coins) : undefined;
  if (short) throw badParams(`余额不够扣回，不能退款：${shortfall(short)}。`);
  const postings: Posting[] = takeBack.map((t) => ({
    userId: t.userId,
    amount: sign * t.coins,
    kind: t.kind === 'buyer' ? 'order_refund' : 'rebate_refund',
    description:
      sign === -1 ? `订单 ${payment.orderNo} 退款，扣回积分` : `订单 ${payment.orderNo} 退款未成功，积分退回`,
  }));
  try {
    await moveCoins(trx, { postings, reference: payment.orderNo, actorId, now: app.now(), metrics: app.metrics });
  } catch {
    // A balance spent between the read and the movement: the same refusal, read again.
    const again = (await takeBackOf(trx, payment)).find((t) => t.balance < t.coins);
    throw badParams(`余额不够扣回，不能退款${again ? `：${shortfall(again)}` : ''}。`);
  }
}

/** The refund's record on the order: its timeline, the order's flags, the audit, the screens told. */
async function refunded(
  app: AppContext,
  trx: Db,
  payment: records.PaymentRow,
  actor: SessionUser,
  mode: Schemas['RefundMode'],
): Promise<void> {
  const now = app.now();
  await records.finishRefund(trx, payment.id, now);
  if (payment.credited === 1) await orders.setRefundedAt(trx, payment.orderId, now);
  else await orders.setNeedsRefund(trx, payment.orderId, await records.hasOpenSecondPayment(trx, payment.orderId));
  await records.insertEvent(trx, {
    at: now,
    kind: 'refunded',
    orderId: payment.orderId,
    channelId: payment.channelId,
    tradeNo: payment.tradeNo,
    actorId: actor.id,
    detail: mode === 'gateway' ? '原路退回' : '已线下退款',
  });
  await writeAudit(
    trx,
    {
      actorId: actor.id,
      action: 'order.refund',
      targetType: 'order',
      targetId: payment.orderId,
      after: {
        paymentId: payment.id,
        tradeNo: payment.tradeNo,
        amount: payment.amount,
        mode,
        second: !payment.credited,
      },
    },
    now,
  );
  const order = await orders.findOrder(trx, payment.orderId);
  if (order)
    await publish(trx, { kind: 'order', action: 'confirmed', orderId: order.id }, ownerAndAdmins(order.userId));
}

/**
 * Refunds one payment, once. Offline: one transaction (coins back, recorded). Through the gateway: the coins are
 * taken back and the payment marked 退款中 first (so the money never leaves while the coins stay), then the gateway is
 * asked; if it refuses, the coins are given back and its words answered (409); if it answers nothing usable, the
 * coins stay taken and the payment 退款中 is left for the admin to check at the gateway and record.
 */
export async function refund(
  app: AppContext,
  actor: SessionUser,
  key: string,
  input: Schemas['OrderRefundRequest'],
): Promise<Schemas['GatewayPayment']> {
  const started = await idempotent(
    app,
    { actorId: actor.id, key, operation: 'order_refund', request: input },
    async (trx) => {
      const payment = await records.findPayment(trx, input.paymentId);
      if (!payment) throw notFound('这笔付款不存在');
      if (payment.refundState === 'refunded') throw conflict('这笔付款已经退款了');
      const now = app.now();
      const start = { by: actor.id, mode: input.mode, now };
      if (await records.markRefunding(trx, payment.id, start)) {
        await moveBack(app, trx, payment, -1, actor.id);
      } else if (!(await records.retakeRefund(trx, payment.id, { ...start, startedBefore: now - LEFT_AFTER_MS }))) {
        throw conflict('这笔付款正在退款，请稍后刷新');
      }
      // A refund left 退款中 has its coins taken back already: it is finished (offline) or asked again (gateway).
      if (input.mode === 'offline') await refunded(app, trx, payment, actor, 'offline');
      return { paymentId: payment.id, throughGateway: input.mode === 'gateway' };
    },
  );
  const payment = await records.findPayment(app.db, started.paymentId);
  if (!payment) throw notFound('这笔付款不存在');
  if (started.throughGateway && payment.refundState === 'refunding') await askGatewayToRefund(app, actor, payment);
  const now = await records.findPayment(app.db, started.paymentId);
  if (!now) throw notFound('这笔付款不存在');
  return view(now, await takeBackOf(app.db, now));
}

async function askGatewayToRefund(app: AppContext, actor: SessionUser, payment: records.PaymentRow): Promise<void> {
  const channel = await openChannel(app, payment.channelId);
  const result: RefundResult = channel
    ? await connectorFor(app, channel.kind).refund(channel, {
        orderNo: payment.orderNo,
        tradeNo: payment.tradeNo,
        amountFen: Number(payment.amount),
      })
    : { state: 'refused', message: '渠道密钥无法读取，请重新填写密钥或改为记录已线下退款' };
  if (result.state === 'refunded') {
    await app.db.transaction().execute((trx) => refunded(app, trx, payment, actor, 'gateway'));
    return;
  }
  if (result.state === 'error') {
    // No usable answer: the gateway may or may not have refunded. Coins stay taken, the payment stays 退款中.
    await refundFailed(
      app,
      app.db,
      payment,
      actor,
      `支付平台没有答复（${result.reason}${result.detail ? `：${result.detail}` : ''}），请到它的商户后台核对`,
    );
    throw conflict(
      '支付平台没有答复，不知道钱是否已退回：积分已扣回，这笔付款停在「退款中」。请到支付平台的商户后台核对：已退回就点「记为已线下退款」，没有退回就再点「原路退款」。',
    );
  }
  await app.db.transaction().execute(async (trx) => {
    await moveBack(app, trx, payment, 1, actor.id);
    await records.abandonRefund(trx, payment.id);
    await refundFailed(app, trx, payment, actor, result.message);
  });
  throw conflict(`支付平台拒绝退款：${result.message}。积分已退回，可以稍后再试，或在别处退款后记为已线下退款。`);
}

/** The order's timeline says the refund did not go through, and why. */
const refundFailed = (app: AppContext, db: Db, payment: records.PaymentRow, actor: SessionUser, why: string) =>
  records.insertEvent(db, {
    at: app.now(),
    kind: 'refund_failed',
    orderId: payment.orderId,
    channelId: payment.channelId,
    tradeNo: payment.tradeNo,
    actorId: actor.id,
    detail: why,
  });
