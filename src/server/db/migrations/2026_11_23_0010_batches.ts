import { sql, type Kysely } from 'kysely';
import { idColumn } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  // A batch task: a durable admin job worked in chunks by the scheduler's loop under a lease, like a run. `cursor` is
  // the last item (or target id) whose effect committed; a chunk's effects and the cursor's move are one transaction,
  // so a resumed batch starts right after the last committed chunk and applies nothing twice.
  await db.schema
    .createTable('batches')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('kind', 'varchar(16)', (c) =>
      c.notNull().check(sql`kind in ('quota_grant', 'broadcast', 'platform_run', 'platform_pause', 'statements')`),
    )
    .addColumn('title', 'varchar(80)', (c) => c.notNull())
    .addColumn('params', 'text', (c) => c.notNull())
    .addColumn('state', 'varchar(10)', (c) =>
      c.notNull().check(sql`state in ('queued', 'running', 'done', 'cancelled', 'failed')`),
    )
    .addColumn('total', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('cursor', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('result', 'varchar(200)', (c) => c.notNull().defaultTo(''))
    .addColumn('lease_owner', 'varchar(64)')
    .addColumn('lease_expires_at', 'bigint')
    .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('started_at', 'bigint')
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema.createIndex('batches_claim').on('batches').columns(['state', 'lease_expires_at']).execute();

  // Items: a list batch's input lines (written, validated, when it starts) and any batch's failures, by sequence
  // number (the line number, or the target's id for a batch over users or services).
  await db.schema
    .createTable('batch_items')
    .addColumn('batch_id', 'integer', (c) => c.notNull().references('batches.id'))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('label', 'varchar(64)', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('state', 'varchar(8)', (c) => c.notNull().check(sql`state in ('pending', 'done', 'failed')`))
    .addColumn('error', 'varchar(200)', (c) => c.notNull().defaultTo(''))
    .addPrimaryKeyConstraint('batch_items_pk', ['batch_id', 'seq'])
    .execute();
  await db.schema.createIndex('batch_items_state').on('batch_items').columns(['batch_id', 'state', 'seq']).execute();

  // An export batch's file, line by line, written with the chunk that produced it.
  await db.schema
    .createTable('batch_output')
    .addColumn('batch_id', 'integer', (c) => c.notNull().references('batches.id'))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('line', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('batch_output_pk', ['batch_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('batch_output').execute();
  await db.schema.dropTable('batch_items').execute();
  await db.schema.dropTable('batches').execute();
}
