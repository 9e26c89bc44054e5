import { sql, type Kysely } from 'kysely';
import { appendOnly, idColumn, isPostgres } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  // The balance is a projection of the ledger, written only by the one service function that also writes the entry.
  await db.schema
    .alterTable('users')
    .addColumn('coin', 'bigint', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`coin >= 0`),
    )
    .execute();

  await db.schema
    .createTable('coin_entries')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount <> 0`))
    .addColumn('balance_after', 'bigint', (c) => c.notNull().check(sql`balance_after >= 0`))
    .addColumn('kind', 'varchar(20)', (c) => c.notNull())
    .addColumn('counterparty_id', 'integer', (c) => c.references('users.id'))
    .addColumn('reference', 'varchar(64)', (c) => c.notNull())
    .addColumn('description', 'varchar(200)', (c) => c.notNull())
    .addColumn('actor_id', 'integer', (c) => c.references('users.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('coin_entries_user').on('coin_entries').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('coin_entries_reference').on('coin_entries').column('reference').execute();

  // Append-only, enforced by the database itself: a mistake is corrected by a reversing entry, never by an edit.
  await appendOnly(db, 'coin_entries');

  // A coin-moving request's first result, kept so that a retry with the same key returns it and moves nothing.
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('actor_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('key', 'varchar(64)', (c) => c.notNull())
    .addColumn('operation', 'varchar(40)', (c) => c.notNull())
    .addColumn('request_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('response', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['actor_id', 'key'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
  await db.schema.dropTable('coin_entries').execute();
  if (isPostgres(db)) await sql`drop function coin_entries_append_only()`.execute(db);
  await db.schema.alterTable('users').dropColumn('coin').execute();
}
