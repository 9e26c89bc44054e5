import { sql, type Kysely } from 'kysely';
import { idColumn } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('redeem_codes')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('code', 'varchar(12)', (c) => c.notNull().unique())
    .addColumn('batch_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('coin', 'bigint', (c) => c.notNull().check(sql`coin > 0`))
    .addColumn('package_id', 'integer', (c) => c.references('mall_packages.id'))
    .addColumn('note', 'varchar(50)', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('disabled_at', 'bigint')
    .addColumn('used_by', 'integer', (c) => c.references('users.id'))
    .addColumn('used_at', 'bigint')
    .addColumn('created_by', 'integer', (c) => c.references('users.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('redeem_codes_batch').on('redeem_codes').columns(['batch_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('redeem_codes').execute();
}
