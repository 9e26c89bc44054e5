import { sql, type Kysely } from 'kysely';
import { idColumn } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  // A platform record; its kind is one declared in screens.config.ts. Never deleted, only put off shelf.
  await db.schema
    .createTable('platforms')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('kind', 'varchar(8)', (c) => c.notNull())
    // Set only on the record seeded for a kind at start: unique, so concurrent starts seed each kind once.
    .addColumn('seed_kind', 'varchar(8)', (c) => c.unique())
    .addColumn('name', 'varchar(20)', (c) => c.notNull())
    // The server-folded search form of the name (db/search.ts), as for the other searchable lists.
    .addColumn('name_key', 'varchar(80)', (c) => c.notNull().defaultTo(''))
    .addColumn('description', 'varchar(500)', (c) => c.notNull())
    .addColumn('price', 'bigint', (c) => c.notNull().check(sql`price >= 0`))
    .addColumn('billing_unit', 'varchar(8)', (c) =>
      c.notNull().check(sql`billing_unit in ('per_run', 'per_day', 'one_off')`),
    )
    .addColumn('retry_limit', 'integer', (c) => c.notNull().check(sql`retry_limit between 0 and 10`))
    .addColumn('on_shelf', 'integer', (c) => c.notNull().check(sql`on_shelf in (0, 1)`))
    .addColumn('sort', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('platforms_kind').on('platforms').columns(['kind', 'on_shelf', 'sort', 'id']).execute();

  // One user's subscription on one platform. next_run_at is the planner's cursor: the next occurrence not yet enqueued.
  await db.schema
    .createTable('services')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('platform_id', 'integer', (c) => c.notNull().references('platforms.id'))
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('state', 'varchar(8)', (c) => c.notNull().check(sql`state in ('draft', 'active', 'paused', 'stopped')`))
    .addColumn('next_run_at', 'bigint')
    .addColumn('succeeded', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_run_state', 'varchar(10)')
    .addColumn('last_run_at', 'bigint')
    .addColumn('sandbox_mode', 'varchar(10)', (c) => c.notNull().defaultTo('auto'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('services_user_platform', ['user_id', 'platform_id'])
    .execute();
  await db.schema.createIndex('services_due').on('services').columns(['state', 'next_run_at']).execute();
  await db.schema.createIndex('services_platform').on('services').columns(['platform_id', 'id']).execute();

  // The queue. (service_id, scheduled_at) is unique: however many processes plan a minute, each run exists once.
  await db.schema
    .createTable('runs')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('service_id', 'integer', (c) => c.notNull().references('services.id'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('platform_id', 'integer', (c) => c.notNull().references('platforms.id'))
    .addColumn('trigger', 'varchar(8)', (c) => c.notNull().check(sql`"trigger" in ('schedule', 'manual')`))
    .addColumn('scheduled_at', 'bigint', (c) => c.notNull())
    .addColumn('day', 'varchar(10)', (c) => c.notNull())
    .addColumn('state', 'varchar(10)', (c) =>
      c.notNull().check(sql`state in ('due', 'running', 'succeeded', 'failed', 'refunded', 'skipped')`),
    )
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'varchar(64)')
    .addColumn('lease_expires_at', 'bigint')
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('started_at', 'bigint')
    .addColumn('finished_at', 'bigint')
    .addColumn('result', 'varchar(200)', (c) => c.notNull().defaultTo(''))
    .addColumn('charged', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('charge_reference', 'varchar(64)')
    .addColumn('refund_reference', 'varchar(64)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('runs_service_scheduled', ['service_id', 'scheduled_at'])
    .execute();
  // The claimer's scan: due runs by the time they may start, and running ones by their lease.
  await db.schema.createIndex('runs_claim').on('runs').columns(['state', 'next_attempt_at']).execute();
  await db.schema.createIndex('runs_user').on('runs').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('runs_service').on('runs').columns(['service_id', 'id']).execute();
  await db.schema.createIndex('runs_user_day').on('runs').columns(['user_id', 'day', 'state']).execute();

  // What a service has paid for, one row per billing period ('run:<id>', 'day:<yyyy-mm-dd>', 'once'). The primary
  // key makes a charge happen once per period, whichever process or retry asks.
  await db.schema
    .createTable('service_charges')
    .addColumn('service_id', 'integer', (c) => c.notNull().references('services.id'))
    .addColumn('period', 'varchar(32)', (c) => c.notNull())
    .addColumn('run_id', 'integer', (c) => c.references('runs.id'))
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('reference', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('service_charges_pk', ['service_id', 'period'])
    .execute();

  // The inbox: one row per event; the next issue gives it a screen.
  await db.schema
    .createTable('notices')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('kind', 'varchar(20)', (c) => c.notNull())
    .addColumn('title', 'varchar(50)', (c) => c.notNull())
    .addColumn('body', 'varchar(500)', (c) => c.notNull())
    .addColumn('read_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notices_user').on('notices').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('notices_unread').on('notices').columns(['user_id', 'read_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('notices').execute();
  await db.schema.dropTable('service_charges').execute();
  await db.schema.dropTable('runs').execute();
  await db.schema.dropTable('services').execute();
  await db.schema.dropTable('platforms').execute();
}
