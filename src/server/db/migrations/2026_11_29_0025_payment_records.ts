import { sql, type Kysely } from 'kysely';
import { idColumn } from './helpers.js';

// No payment lost, and the operator sees every notification (issue 41).
// - payment_attempts: every channel and method an order was sent to (去支付 on another channel, the same package
//   bought again): each stays valid for the order, so a notification from any of them is verified against the one
//   that signed it, and checks ask all of them.
// - gateway_payments: every payment a gateway reported for an order (its trade number and money): the one that
//   credited the order (credited = 1) and any second payment (credited = 0, 需退款), each refunded at most once.
// - payment_events: the order's payment timeline and 回调记录 in one table: sent, notify (every notification received,
//   with the sender's address and its verdict), query (each question to a gateway and its answer), credited, closed,
//   cancelled, refunded. Notifications and queries are purged after payment_settings.notify_retention_days.
// - orders gain next_check_at (when the sweep asks its gateways next: each order its own time, with backoff, so a
//   hundred abandoned orders never hide a newer paid one), last_asked_at (重新查询 asks at most once every few
//   seconds), needs_refund (a second payment not yet refunded) and refunded_at. An order whose payment is refunded
//   stays `paid` (so a finished day's dashboard figures never change); its refund is counted on the refund's day.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('payment_attempts')
    .addColumn('order_id', 'integer', (c) => c.notNull().references('orders.id'))
    .addColumn('channel_id', 'integer', (c) => c.notNull().references('payment_channels.id'))
    .addColumn('method', 'varchar(16)', (c) => c.notNull())
    .addColumn('first_sent_at', 'bigint', (c) => c.notNull())
    .addColumn('last_sent_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('payment_attempts_pk', ['order_id', 'channel_id', 'method'])
    .execute();

  await db.schema
    .createTable('gateway_payments')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('order_id', 'integer', (c) => c.notNull().references('orders.id'))
    .addColumn('channel_id', 'integer', (c) => c.notNull().references('payment_channels.id'))
    .addColumn('trade_no', 'varchar(64)', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('credited', 'integer', (c) => c.notNull().check(sql`credited in (0, 1)`))
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('refund_state', 'varchar(12)', (c) => c.check(sql`refund_state in ('refunding', 'refunded')`))
    .addColumn('refund_mode', 'varchar(8)', (c) => c.check(sql`refund_mode in ('gateway', 'offline')`))
    .addColumn('refunded_at', 'bigint')
    .addColumn('refunded_by', 'integer')
    .execute();
  // One gateway's trade number is one payment: a repeated notification or query answer finds it again.
  await db.schema
    .createIndex('gateway_payments_trade')
    .on('gateway_payments')
    .columns(['channel_id', 'trade_no'])
    .unique()
    .execute();
  await db.schema.createIndex('gateway_payments_order').on('gateway_payments').column('order_id').execute();
  // The dashboard counts refunds on the day they were made.
  await db.schema.createIndex('gateway_payments_refunded').on('gateway_payments').column('refunded_at').execute();

  await db.schema
    .createTable('payment_events')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('order_id', 'integer')
    .addColumn('order_no', 'varchar(64)')
    .addColumn('channel_id', 'integer')
    .addColumn('method', 'varchar(32)')
    .addColumn('trade_no', 'varchar(64)')
    .addColumn('money', 'varchar(16)')
    .addColumn('verdict', 'varchar(16)')
    .addColumn('expected_amount', 'integer')
    .addColumn('source', 'varchar(8)')
    .addColumn('sender', 'varchar(64)')
    .addColumn('actor_id', 'integer')
    .addColumn('detail', 'varchar(200)')
    .execute();
  await db.schema.createIndex('payment_events_order').on('payment_events').columns(['order_id', 'id']).execute();
  // 回调记录 newest first, per channel (渠道自检's last notification), and the retention purge.
  await db.schema.createIndex('payment_events_kind').on('payment_events').columns(['kind', 'id']).execute();
  await db.schema
    .createIndex('payment_events_channel')
    .on('payment_events')
    .columns(['channel_id', 'kind', 'id'])
    .execute();

  await db.schema
    .alterTable('payment_settings')
    .addColumn('notify_retention_days', 'integer', (c) => c.notNull().defaultTo(90))
    .execute();

  await db.schema.alterTable('orders').addColumn('next_check_at', 'bigint').execute();
  await db.schema.alterTable('orders').addColumn('last_asked_at', 'bigint').execute();
  await db.schema
    .alterTable('orders')
    .addColumn('needs_refund', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('orders').addColumn('refunded_at', 'bigint').execute();
  await db.schema.createIndex('orders_next_check').on('orders').column('next_check_at').execute();

  // Orders paid online before this migration: their channel is their one attempt, their trade their payment; unpaid
  // online ones are due for a check at once. Closed ones are not asked about again (no record of when to stop).
  await sql`insert into payment_attempts (order_id, channel_id, method, first_sent_at, last_sent_at)
    select id, channel_id, method, created_at, created_at from orders
    where channel_id is not null and method is not null`.execute(db);
  await sql`insert into gateway_payments (order_id, channel_id, trade_no, amount, credited, received_at)
    select id, channel_id, trade_no, amount, 1, paid_at from orders
    where status = 'paid' and paid_by = 'online' and channel_id is not null and trade_no is not null`.execute(db);
  await sql`update orders set next_check_at = created_at + 120000
    where status = 'pending' and channel_id is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('orders_next_check').execute();
  for (const column of ['refunded_at', 'needs_refund', 'last_asked_at', 'next_check_at'])
    await db.schema.alterTable('orders').dropColumn(column).execute();
  await db.schema.alterTable('payment_settings').dropColumn('notify_retention_days').execute();
  await db.schema.dropTable('payment_events').execute();
  await db.schema.dropTable('gateway_payments').execute();
  await db.schema.dropTable('payment_attempts').execute();
}
