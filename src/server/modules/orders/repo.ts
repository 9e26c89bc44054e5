import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import { paginate, type Page, type PageQuery } from '../../db/paging.js';
import { asciiContains, keyContains, withSearchKeys } from '../../db/search.js';
import type { OrderStatus, OrdersTable } from '../../db/types.js';

export interface OrderListQuery extends PageQuery {
  status?: OrderStatus;
}

/** Orders with the buyer's account name (kept even when the account is later deleted). */
const withBuyer = (db: Db) => db.selectFrom('orders').innerJoin('users', 'users.id', 'orders.userId');

export type OrderRow = Awaited<ReturnType<typeof findOrder>> & {};

export const findOrder = (db: Db, id: number) =>
  withBuyer(db).selectAll('orders').select('users.userAccount').where('orders.id', '=', id).executeTakeFirst();

function filtered(db: Db, query: OrderListQuery, scope: { userId?: number }) {
  let q = withBuyer(db);
  if (scope.userId !== undefined) q = q.where('orders.userId', '=', scope.userId);
  if (query.status) q = q.where('orders.status', '=', query.status);
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
      filtered(db, query, scope)
        .selectAll('orders')
        .select('users.userAccount')
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
 * Moves a pending order to `paid` or `cancelled` in one conditional statement and answers whether it did: of two
 * concurrent attempts the database lets exactly one through (PostgreSQL re-checks the condition after the row lock).
 */
export async function settlePending(
  db: Db,
  id: number,
  change:
    | { status: 'paid'; paidAt: number; handledBy: number }
    | { status: 'cancelled'; cancelledAt: number; handledBy: number },
): Promise<boolean> {
  const result = await db
    .updateTable('orders')
    .set(change)
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
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
