import type { Kysely } from 'kysely';

// 用户协议 and 隐私政策: the texts an admin edited (a kind without a row reads its default, modules/policies/defaults.ts)
// and one version for both on the live site record, raised by every change. users.policy_accepted is the version a
// user last agreed to (0: never, as for every account older than this migration and every account an admin creates).
// 注销: users.closing_at is when the user asked to close the account (the 7-day cooling-off runs from it; signing in
// clears it), users.closed_at when it was closed for good (the row stays, masked, for the orders and the ledger).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('policies')
    .addColumn('kind', 'varchar(10)', (c) => c.primaryKey())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_by', 'integer')
    .execute();
  await db.schema
    .alterTable('site_information')
    .addColumn('policy_version', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable('users')
    .addColumn('policy_accepted', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('users').addColumn('closing_at', 'bigint').execute();
  await db.schema.alterTable('users').addColumn('closed_at', 'bigint').execute();
  // The closing sweep looks for accounts whose cooling-off has ended: few rows ever hold a closing_at.
  await db.schema.createIndex('users_closing').on('users').column('closing_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('users_closing').execute();
  await db.schema.alterTable('users').dropColumn('closed_at').execute();
  await db.schema.alterTable('users').dropColumn('closing_at').execute();
  await db.schema.alterTable('users').dropColumn('policy_accepted').execute();
  await db.schema.alterTable('site_information').dropColumn('policy_version').execute();
  await db.schema.dropTable('policies').execute();
}
