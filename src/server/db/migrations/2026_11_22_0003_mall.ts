import { sql, type Kysely } from 'kysely';
import { idColumn } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('site_information')
    .addColumn('rebate_percent', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`rebate_percent between 0 and 100`),
    )
    .execute();

  await db.schema
    .createTable('mall_packages')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('coin_name', 'varchar(20)', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('add_coin', 'bigint', (c) => c.notNull().check(sql`add_coin > 0`))
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('sort', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  // An order keeps the package's name, price and coins as they were when it was placed.
  await db.schema
    .createTable('orders')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('order_no', 'varchar(32)', (c) => c.notNull().unique())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('package_id', 'integer', (c) => c.notNull().references('mall_packages.id'))
    .addColumn('coin_name', 'varchar(20)', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('add_coin', 'bigint', (c) => c.notNull())
    .addColumn('status', 'varchar(10)', (c) => c.notNull().check(sql`status in ('pending', 'paid', 'cancelled')`))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('paid_at', 'bigint')
    .addColumn('cancelled_at', 'bigint')
    .addColumn('handled_by', 'integer', (c) => c.references('users.id'))
    .execute();
  await db.schema.createIndex('orders_user').on('orders').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('orders_status').on('orders').columns(['status', 'id']).execute();
  await db.schema.createIndex('orders_package').on('orders').column('package_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('orders').execute();
  await db.schema.dropTable('mall_packages').execute();
  await db.schema.alterTable('site_information').dropColumn('rebate_percent').execute();
}
