import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import { paginate, type Page, type PageQuery } from '../../db/paging.js';
import { asciiContains, keyContains, withSearchKeys } from '../../db/search.js';
import type { OrderStatus, OrdersTable, PayMethod } from '../../db/types.js';

export interface OrderListQuery extends PageQuery {
  status?: OrderStatus;
  /** 0: offline orders (no channel); otherwise that channel's. */
  channelId?: number;
  paidLate?: boolean;
  needsRefund?: boolean;
}

/** Orders with the buyer's account name (kept even when the account is later deleted) and their channel's name. */
const withBuyer = (db: Db) =>
  db
    .selectFrom('orders')
    .innerJoin('users', 'users.id', 'orders.userId')
    .leftJoin('paymentChannels', 'paymentChannels.id', 'orders.channelId');

const orderColumns = (q: ReturnType<typeof withBuyer>) =>
  q.selectAll('orders').select(['users.userAccount', 'paymentChannels.name as channelName']);

export type OrderRow = Awaited<ReturnType<typeof findOrder>> & {};

export const findOrder = (db: Db, id: number) =>
  orderColumns(withBuyer(db)).where('orders.id', '=', id).executeTakeFirst();

export const findOrderByNo = (db: Db, orderNo: string) =>
  orderColumns(withBuyer(db)).where('orders.orderNo', '=', orderNo).executeTakeFirst();

/** The buyer's unpaid order for a package that has not expired yet, if any (the newest). */
export const findOpenOrderFor = (db: Db, userId: number, packageId: number, now: number) =>
  orderColumns(withBuyer(db))
    .where('orders.userId', '=', userId)
    .where('orders.packageId', '=', packageId)
    .where('orders.status', '=', 'pending')
    .where((eb) => eb.or([eb('orders.expiresAt', 'is', null), eb('orders.expiresAt', '>', now)]))
    .orderBy('orders.id', 'desc')
    .executeTakeFirst();

function filtered(db: Db, query: OrderListQuery, scope: { userId?: number }) {
  let q = withBuyer(db);
  if (scope.userId !== undefined) q = q.where('orders.userId', '=', scope.userId);
  if (query.status) q = q.where('orders.status', '=', query.status);
  if (query.channelId === 0) q = q.where('orders.channelId', 'is', null);
  else if (query.channelId !== undefined) q = q.where('orders.channelId', '=', query.channelId);
  if (query.paidLate) q = q.where('orders.paidLate', '=', 1);
  if (query.needsRefund) q = q.where('orders.needsRefund', '=', 1);
  if (query.searchText) {
    const text = query.searchText;
    // A buyer searches its own order numbers and package names; an admin order numbers and buyers' accounts.
    q = q.where((eb) =>
      eb.or(
        scope.userId !== undefined
          ? [asciiContains('orders.orderNo', text), keyContains('orders.coinNameKey', text)]
          : [asciiContains('orders.orderNo', text), asciiContains('users.userAccount', text)],
      ),
    );
  }
  return q;
}

/** One page of orders, newest first; one user's when `userId` is given, everyone's otherwise. */
export function listOrders(
  db: Db,
  query: OrderListQuery,
  scope: { userId?: number },
): Promise<Page<NonNullable<OrderRow>>> {
  return paginate(
    query,
    (limit, offset) =>
      orderColumns(filtered(db, query, scope))
        .orderBy('orders.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
    () => filtered(db, query, scope),
  );
}

export async function insertOrder(db: Db, row: Insertable<OrdersTable>): Promise<number> {
  const inserted = await db
    .insertInto('orders')
    .values(withSearchKeys(row, { coinNameKey: 'coinName' }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export async function countPending(db: Db, userId: number): Promise<number> {
  const row = await db
    .selectFrom('orders')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('userId', '=', userId)
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Moves a pending order to `cancelled` in one conditional statement and answers whether it did: of two concurrent
 * attempts the database lets exactly one through (PostgreSQL re-checks the condition after the row lock).
 */
export async function cancelPending(
  db: Db,
  id: number,
  change: { cancelledAt: number; handledBy: number | null },
): Promise<boolean> {
  const result = await db
    .updateTable('orders')
    .set({ status: 'cancelled', ...change })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Marks an order paid in one conditional statement and answers whether it did, so of any number of concurrent
 * settlements (an admin's confirmation, notifications on several processes, the query job) exactly one gets through.
 * An admin confirms pending orders only; a gateway's payment is also taken for an order that closed or was cancelled
 * meanwhile (the money was taken), which is then flagged paid_late. Never twice: a paid order matches neither.
 */
export async function markPaid(
  db: Db,
  id: number,
  change: { paidAt: number; handledBy: number | null; paidBy: 'online' | 'manual'; tradeNo: string | null },
): Promise<boolean> {
  const late = change.paidBy === 'online';
  const result = await db
    .updateTable('orders')
    .set((eb) => ({
      ...change,
      status: 'paid',
      paidLate: late ? eb.case().when('status', '=', 'cancelled').then(1).else(0).end() : 0,
      // A paid order's gateways are not asked again.
      nextCheckAt: null,
    }))
    .where('id', '=', id)
    .where('status', 'in', late ? ['pending', 'cancelled'] : ['pending'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Points a pending order at a channel and method (the buyer's choice on paying); answers whether it was pending. An
 * order keeps the deadline it has; one without (placed offline, paid online now) gets `deadline`.
 */
export async function choosePayment(
  db: Db,
  id: number,
  choice: { channelId: number; method: PayMethod; deadline: number },
): Promise<boolean> {
  const result = await db
    .updateTable('orders')
    .set((eb) => ({
      channelId: choice.channelId,
      method: choice.method,
      expiresAt: eb.fn.coalesce('expiresAt', eb.val(choice.deadline)),
    }))
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Unpaid online orders whose time is up, oldest first. */
export const expiredOnline = (db: Db, now: number, limit: number) =>
  db
    .selectFrom('orders')
    .select(['id', 'userId', 'orderNo', 'coinName'])
    .where('status', '=', 'pending')
    .where('expiresAt', '<=', now)
    .orderBy('expiresAt')
    .limit(limit)
    .execute();

/**
 * Claims up to `limit` orders whose gateways are due to be asked (each order's own next_check_at, the oldest due
 * first), moving their next check to `leaseUntil`: another process claims other orders, and an order whose asker died
 * is due again when the lease ends. One statement: of two processes claiming at once, each order goes to one (SKIP
 * LOCKED on PostgreSQL; SQLite has one writer).
 */
export async function claimDueChecks(
  db: Db,
  claim: { now: number; leaseUntil: number; limit: number; postgres: boolean },
): Promise<{ id: number }[]> {
  let due = db
    .selectFrom('orders')
    .select('id')
    .where('nextCheckAt', '<=', claim.now)
    .orderBy('nextCheckAt')
    .limit(claim.limit);
  if (claim.postgres) due = due.forUpdate().skipLocked();
  return db
    .updateTable('orders')
    .set({ nextCheckAt: claim.leaseUntil })
    .where('id', 'in', due)
    .returning('id')
    .execute();
}

/** Schedules an order's first check unless one is scheduled already (an order sent to a second channel keeps its own). */
export async function setNextCheckIfUnset(db: Db, id: number, at: number): Promise<void> {
  await db
    .updateTable('orders')
    .set({ nextCheckAt: at })
    .where('id', '=', id)
    .where('nextCheckAt', 'is', null)
    .execute();
}

/** When the sweep asks this order's gateways next (null: never again). */
export async function setNextCheck(db: Db, id: number, at: number | null): Promise<void> {
  await db.updateTable('orders').set({ nextCheckAt: at }).where('id', '=', id).execute();
}

/**
 * Takes the right to ask an order's gateways now for a buyer's 重新查询: answers false when someone asked less than
 * `gapMs` ago (one conditional update, so of many taps at once one asks).
 */
export async function claimAsk(db: Db, id: number, now: number, gapMs: number): Promise<boolean> {
  const result = await db
    .updateTable('orders')
    .set({ lastAskedAt: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('lastAskedAt', 'is', null), eb('lastAskedAt', '<=', now - gapMs)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** How many orders wait for a second payment to be refunded (the admin's home says so). */
export async function countNeedingRefund(db: Db): Promise<number> {
  const row = await db
    .selectFrom('orders')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('needsRefund', '=', 1)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function setNeedsRefund(db: Db, id: number, needsRefund: boolean): Promise<void> {
  await db
    .updateTable('orders')
    .set({ needsRefund: needsRefund ? 1 : 0 })
    .where('id', '=', id)
    .execute();
}

export async function setRefundedAt(db: Db, id: number, at: number | null): Promise<void> {
  await db.updateTable('orders').set({ refundedAt: at }).where('id', '=', id).execute();
}

/**
 * Holds the user's row until the transaction ends (PostgreSQL), so one user's submissions count their pending orders
 * one at a time. NO KEY UPDATE, not UPDATE: the idempotency row inserted earlier in the same transaction already holds
 * a KEY SHARE lock on this user through its foreign key, and FOR UPDATE would deadlock two such submissions.
 */
export async function lockUser(db: Db, userId: number, kind: 'sqlite' | 'postgres'): Promise<void> {
  // SQLite runs one write transaction at a time already and has no row locks.
  if (kind === 'postgres') await sql`select id from users where id = ${userId} for no key update`.execute(db);
}
