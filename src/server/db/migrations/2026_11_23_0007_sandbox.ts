import { type Kysely } from 'kysely';
import { idColumn } from './helpers.js';

// The simulated platform's own state, apart from the product's tables: what a real platform would keep on its side.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sandbox_accounts')
    .addColumn('service_id', 'integer', (c) => c.primaryKey())
    .addColumn('received', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // Received check-ins; the run id is the request's idempotency key, so a redelivery is counted, not logged twice.
  await db.schema
    .createTable('sandbox_checkins')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('run_id', 'integer', (c) => c.notNull().unique())
    .addColumn('service_id', 'integer', (c) => c.notNull())
    .addColumn('deliveries', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sandbox_checkins_service')
    .on('sandbox_checkins')
    .columns(['service_id', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sandbox_checkins').execute();
  await db.schema.dropTable('sandbox_accounts').execute();
}
