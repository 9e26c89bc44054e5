import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import { paginate, type Page, type PageQuery } from '../../db/paging.js';
import { asciiContains } from '../../db/search.js';
import type { GatewayPaymentsTable, PayMethod, PaymentEventsTable } from '../../db/types.js';

// What happened to an order's payment (migration 0025): the channels it was sent to, the payments gateways reported
// for it, and its timeline of events, whose `notify` rows are also 回调记录 (with the notifications that named no
// order of ours).

// ---- Channels an order was sent to

/** The order was sent to this channel and method now (a first time, or again). */
export async function recordAttempt(
  db: Db,
  attempt: { orderId: number; channelId: number; method: PayMethod; now: number },
): Promise<void> {
  await db
    .insertInto('paymentAttempts')
    .values({
      orderId: attempt.orderId,
      channelId: attempt.channelId,
      method: attempt.method,
      firstSentAt: attempt.now,
      lastSentAt: attempt.now,
    })
    .onConflict((oc) => oc.columns(['orderId', 'channelId', 'method']).doUpdateSet({ lastSentAt: attempt.now }))
    .execute();
}

/** Every channel an order was sent to, first sent first. */
export async function attemptChannelIds(db: Db, orderId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('paymentAttempts')
    .select('channelId')
    .where('orderId', '=', orderId)
    .orderBy('firstSentAt')
    .execute();
  return [...new Set(rows.map((r) => r.channelId))];
}

// ---- Payments the gateways reported

export const findPaymentByTrade = (db: Db, channelId: number, tradeNo: string) =>
  db
    .selectFrom('gatewayPayments')
    .selectAll()
    .where('channelId', '=', channelId)
    .where('tradeNo', '=', tradeNo)
    .executeTakeFirst();

/** Records a payment once per (channel, trade number); answers false when it was there already. */
export async function insertPayment(db: Db, row: Insertable<GatewayPaymentsTable>): Promise<boolean> {
  const inserted = await db
    .insertInto('gatewayPayments')
    .values(row)
    .onConflict((oc) => oc.columns(['channelId', 'tradeNo']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

const paymentsWithNames = (db: Db) =>
  db
    .selectFrom('gatewayPayments')
    .innerJoin('orders', 'orders.id', 'gatewayPayments.orderId')
    .innerJoin('paymentChannels', 'paymentChannels.id', 'gatewayPayments.channelId')
    .leftJoin('users as admins', 'admins.id', 'gatewayPayments.refundedBy')
    .selectAll('gatewayPayments')
    .select(['orders.orderNo', 'paymentChannels.name as channelName', 'admins.userAccount as refundedByAccount']);

export type PaymentRow = NonNullable<Awaited<ReturnType<typeof findPayment>>>;

export const findPayment = (db: Db, id: number) =>
  paymentsWithNames(db).where('gatewayPayments.id', '=', id).executeTakeFirst();

/** An order's payments, the one that credited it first. */
export const paymentPage = (db: Db, orderId: number, query: PageQuery): Promise<Page<PaymentRow>> =>
  paginate(
    query,
    (limit, offset) =>
      paymentsWithNames(db)
        .where('gatewayPayments.orderId', '=', orderId)
        .orderBy('gatewayPayments.credited', 'desc')
        .orderBy('gatewayPayments.id')
        .limit(limit)
        .offset(offset)
        .execute(),
    () => db.selectFrom('gatewayPayments').where('orderId', '=', orderId),
  );

/**
 * Starts a refund (refunded_at holds when it started until it ends): answers false when the payment is being refunded
 * or was already (of two admins, one wins).
 */
export async function markRefunding(
  db: Db,
  id: number,
  start: { by: number; mode: 'gateway' | 'offline'; now: number },
): Promise<boolean> {
  const result = await db
    .updateTable('gatewayPayments')
    .set({ refundState: 'refunding', refundMode: start.mode, refundedBy: start.by, refundedAt: start.now })
    .where('id', '=', id)
    .where('refundState', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Takes over a refund left 退款中 (its gateway gave no usable answer) that started before `startedBefore`: answers
 * false when it is not left so (finished, given up, or still under way).
 */
export async function retakeRefund(
  db: Db,
  id: number,
  retake: { by: number; mode: 'gateway' | 'offline'; now: number; startedBefore: number },
): Promise<boolean> {
  const result = await db
    .updateTable('gatewayPayments')
    .set({ refundMode: retake.mode, refundedBy: retake.by, refundedAt: retake.now })
    .where('id', '=', id)
    .where('refundState', '=', 'refunding')
    .where('refundedAt', '<', retake.startedBefore)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function finishRefund(db: Db, id: number, refundedAt: number): Promise<void> {
  await db
    .updateTable('gatewayPayments')
    .set({ refundState: 'refunded', refundedAt })
    .where('id', '=', id)
    .where('refundState', '=', 'refunding')
    .execute();
}

/** A refund the gateway refused: the payment can be refunded again. */
export async function abandonRefund(db: Db, id: number): Promise<void> {
  await db
    .updateTable('gatewayPayments')
    .set({ refundState: null, refundMode: null, refundedBy: null, refundedAt: null })
    .where('id', '=', id)
    .where('refundState', '=', 'refunding')
    .execute();
}

/** Whether an order still has a second payment that is not refunded (it stays 需退款 until none is left). */
export async function hasOpenSecondPayment(db: Db, orderId: number): Promise<boolean> {
  const row = await db
    .selectFrom('gatewayPayments')
    .select('id')
    .where('orderId', '=', orderId)
    .where('credited', '=', 0)
    .where((eb) => eb.or([eb('refundState', 'is', null), eb('refundState', '!=', 'refunded')]))
    .executeTakeFirst();
  return row !== undefined;
}

/** Fen refunded in [lo, hi) of payments that had credited their order (what the dashboard takes off revenue). */
export async function refundedBetween(db: Db, lo: number, hi: number): Promise<number> {
  const row = await db
    .selectFrom('gatewayPayments')
    .select((eb) => eb.fn.sum<number | string | null>('amount').as('fen'))
    .where('credited', '=', 1)
    .where('refundState', '=', 'refunded')
    .where('refundedAt', '>=', lo)
    .where('refundedAt', '<', hi)
    .executeTakeFirst();
  return Number(row?.fen ?? 0);
}

// ---- Events: the timeline, and 回调记录

export async function insertEvent(db: Db, row: Insertable<PaymentEventsTable>): Promise<void> {
  await db
    .insertInto('paymentEvents')
    .values({ ...row, detail: row.detail === undefined || row.detail === null ? null : row.detail.slice(0, 200) })
    .execute();
}

const eventsWithNames = (db: Db) =>
  db
    .selectFrom('paymentEvents')
    .leftJoin('paymentChannels', 'paymentChannels.id', 'paymentEvents.channelId')
    .leftJoin('users as actors', 'actors.id', 'paymentEvents.actorId')
    .selectAll('paymentEvents')
    .select(['paymentChannels.name as channelName', 'actors.userAccount as actorAccount']);

export type EventRow = Awaited<ReturnType<typeof orderEvents>>['records'][number];

/** An order's timeline, oldest first. */
export const orderEvents = (db: Db, orderId: number, query: PageQuery) =>
  paginate(
    query,
    (limit, offset) =>
      eventsWithNames(db)
        .where('paymentEvents.orderId', '=', orderId)
        .orderBy('paymentEvents.id')
        .limit(limit)
        .offset(offset)
        .execute(),
    () => db.selectFrom('paymentEvents').where('orderId', '=', orderId),
  );

/** The verdict of the newest query about an order at one channel, if any. */
export async function lastQueryVerdict(db: Db, orderId: number, channelId: number): Promise<string | null> {
  const row = await db
    .selectFrom('paymentEvents')
    .select('verdict')
    .where('orderId', '=', orderId)
    .where('channelId', '=', channelId)
    .where('kind', '=', 'query')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row?.verdict ?? null;
}

/** The verdicts of a notification that the site took (the money is accounted for); every other one was refused. */
export const ACCEPTED_VERDICTS = ['credited', 'credited_late', 'duplicate', 'second_payment'] as const;

export interface NotifyLogQuery extends PageQuery {
  channelId?: number;
  accepted?: boolean;
}

function notifyLogFiltered(db: Db, query: NotifyLogQuery) {
  let q = db.selectFrom('paymentEvents').where('paymentEvents.kind', '=', 'notify');
  if (query.channelId !== undefined) q = q.where('paymentEvents.channelId', '=', query.channelId);
  if (query.accepted === true) q = q.where('paymentEvents.verdict', 'in', ACCEPTED_VERDICTS);
  if (query.accepted === false)
    q = q.where((eb) =>
      eb.or([eb('paymentEvents.verdict', 'not in', ACCEPTED_VERDICTS), eb('paymentEvents.verdict', 'is', null)]),
    );
  if (query.searchText) q = q.where(asciiContains('paymentEvents.orderNo', query.searchText));
  return q;
}

/** 回调记录: the notifications received, newest first. */
export const notifyLog = (db: Db, query: NotifyLogQuery) =>
  paginate(
    query,
    (limit, offset) =>
      notifyLogFiltered(db, query)
        .leftJoin('paymentChannels', 'paymentChannels.id', 'paymentEvents.channelId')
        .leftJoin('users as actors', 'actors.id', 'paymentEvents.actorId')
        .selectAll('paymentEvents')
        .select(['paymentChannels.name as channelName', 'actors.userAccount as actorAccount'])
        .orderBy('paymentEvents.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
    () => notifyLogFiltered(db, query),
  );

/** A channel's newest notification (渠道自检). */
export const lastNotifyOf = (db: Db, channelId: number) =>
  eventsWithNames(db)
    .where('paymentEvents.channelId', '=', channelId)
    .where('paymentEvents.kind', '=', 'notify')
    .orderBy('paymentEvents.id', 'desc')
    .executeTakeFirst();

/**
 * Deletes up to `limit` notifications and gateway queries recorded before `before` (the retention the admin set);
 * the order's own steps stay. Answers how many went.
 */
export async function purgeEventsBefore(db: Db, before: number, limit: number): Promise<number> {
  const ids = await db
    .selectFrom('paymentEvents')
    .select('id')
    .where('kind', 'in', ['notify', 'query'])
    .where('at', '<', before)
    .orderBy('id')
    .limit(limit)
    .execute();
  if (ids.length === 0) return 0;
  const result = await db
    .deleteFrom('paymentEvents')
    .where(
      'id',
      'in',
      ids.map((r) => r.id),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
