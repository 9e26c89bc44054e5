import { sql, type Kysely } from 'kysely';
import { appendOnly, idColumn, isPostgres } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  // One admin grant of free runs or days, on one platform (platform_id) or on all (null). `remaining` is a projection
  // of the grant's entries (like users.coin), written only by modules/quotas/ledger.ts in the entry's transaction.
  await db.schema
    .createTable('quota_grants')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('platform_id', 'integer', (c) => c.references('platforms.id'))
    .addColumn('unit', 'varchar(4)', (c) => c.notNull().check(sql`unit in ('runs', 'days')`))
    .addColumn('amount', 'integer', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('remaining', 'integer', (c) => c.notNull().check(sql`remaining >= 0`))
    .addColumn('reason', 'varchar(100)', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .addColumn('actor_id', 'integer', (c) => c.references('users.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // The charge's look-up: a user's grants with something left.
  await db.schema.createIndex('quota_grants_user').on('quota_grants').columns(['user_id', 'remaining']).execute();

  await db.schema
    .createTable('quota_entries')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('grant_id', 'integer', (c) => c.notNull().references('quota_grants.id'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('amount', 'integer', (c) => c.notNull().check(sql`amount <> 0`))
    .addColumn('remaining_after', 'integer', (c) => c.notNull().check(sql`remaining_after >= 0`))
    .addColumn('kind', 'varchar(8)', (c) => c.notNull().check(sql`kind in ('grant', 'use', 'refund', 'revoke')`))
    .addColumn('run_id', 'integer', (c) => c.references('runs.id'))
    .addColumn('reference', 'varchar(64)', (c) => c.notNull())
    .addColumn('actor_id', 'integer', (c) => c.references('users.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('quota_entries_grant').on('quota_entries').columns(['grant_id', 'id']).execute();
  // Each entry's reference is unique ('grant-<id>', 'use-<charge>', 'refund-<charge>', 'revoke-<id>'): a retry or a
  // second process cannot use or refund the same charge twice.
  await db.schema.createIndex('quota_entries_reference').on('quota_entries').column('reference').unique().execute();

  // Append-only, like coin_entries (migration 0002): a mistake is corrected by a reversing entry.
  await appendOnly(db, 'quota_entries');

  // Which grant paid a run (null: coins or nothing), so a refund gives the unit back to that grant.
  await db.schema.alterTable('runs').addColumn('quota_grant_id', 'integer').execute();
  await db.schema.alterTable('service_charges').addColumn('quota_grant_id', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('service_charges').dropColumn('quota_grant_id').execute();
  await db.schema.alterTable('runs').dropColumn('quota_grant_id').execute();
  await db.schema.dropTable('quota_entries').execute();
  await db.schema.dropTable('quota_grants').execute();
  if (isPostgres(db)) await sql`drop function quota_entries_append_only()`.execute(db);
}
