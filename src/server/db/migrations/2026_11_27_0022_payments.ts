import { sql, type Kysely } from 'kysely';
import { idColumn } from './helpers.js';

// Paying online (易支付 protocol). payment_channels are the gateways an admin sets up, plus the one sandbox gateway
// built into the product (kind 'sandbox', added at start by modules/payments/sandbox-channel.ts); a channel's key is
// kept only as AES-GCM ciphertext. The sandbox's `enabled` is null until an admin switches it: null means "on only
// while PUBLIC_ORIGIN is localhost", so a database carried from the quick start to a public address starts with it off.
// payment_settings holds the unpaid-order timeout (row id 1). sandbox_pay_trades are the sandbox gateway's own
// records, as a real gateway keeps its trades. Orders gain how they are paid: the channel and method (null for an
// offline order an admin confirms), the gateway's trade number, the expiry, who settled them (online / manual), and
// paid_late for money that arrived after the order had closed.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('payment_channels')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('kind', 'varchar(16)', (c) => c.notNull().check(sql`kind in ('epay', 'sandbox')`))
    .addColumn('name', 'varchar(40)', (c) => c.notNull())
    .addColumn('gateway', 'varchar(200)', (c) => c.notNull())
    .addColumn('pid', 'varchar(32)', (c) => c.notNull())
    .addColumn('key_cipher', 'text', (c) => c.notNull())
    .addColumn('methods', 'varchar(40)', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.check(sql`enabled in (0, 1)`))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('payment_settings')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('order_timeout_minutes', 'integer', (c) => c.notNull())
    .execute();
  await db.insertInto('payment_settings').values({ id: 1, order_timeout_minutes: 15 }).execute();
  await db.schema
    .createTable('sandbox_pay_trades')
    .addColumn('trade_no', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('channel_id', 'integer', (c) => c.notNull().references('payment_channels.id'))
    .addColumn('out_trade_no', 'varchar(64)', (c) => c.notNull())
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('money', 'varchar(16)', (c) => c.notNull())
    .addColumn('notify_url', 'varchar(300)', (c) => c.notNull())
    .addColumn('return_url', 'varchar(300)', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('paid_at', 'bigint')
    .execute();
  await db.schema.createIndex('sandbox_pay_trades_order').on('sandbox_pay_trades').column('out_trade_no').execute();

  await db.schema
    .alterTable('orders')
    .addColumn('channel_id', 'integer', (c) => c.references('payment_channels.id'))
    .execute();
  await db.schema.alterTable('orders').addColumn('method', 'varchar(16)').execute();
  await db.schema.alterTable('orders').addColumn('trade_no', 'varchar(64)').execute();
  await db.schema.alterTable('orders').addColumn('expires_at', 'bigint').execute();
  await db.schema.alterTable('orders').addColumn('paid_by', 'varchar(8)').execute();
  await db.schema
    .alterTable('orders')
    .addColumn('paid_late', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // Orders paid before channels existed were confirmed by an admin.
  await db.updateTable('orders').set({ paid_by: 'manual' }).where('status', '=', 'paid').execute();
  // The sweeper's two questions: which unpaid online orders have expired, which are old enough to ask the gateway.
  await db.schema.createIndex('orders_pending_online').on('orders').columns(['status', 'expires_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('orders_pending_online').execute();
  for (const column of ['paid_late', 'paid_by', 'expires_at', 'trade_no', 'method', 'channel_id'])
    await db.schema.alterTable('orders').dropColumn(column).execute();
  await db.schema.dropTable('sandbox_pay_trades').execute();
  await db.schema.dropTable('payment_settings').execute();
  await db.schema.dropTable('payment_channels').execute();
}
