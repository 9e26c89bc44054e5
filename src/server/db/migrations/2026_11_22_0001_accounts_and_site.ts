import { sql, type Kysely } from 'kysely';
import { idColumn } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_account', 'varchar(16)', (c) => c.notNull())
    .addColumn('user_name', 'varchar(20)', (c) => c.notNull())
    .addColumn('password_hash', 'varchar(200)', (c) => c.notNull())
    .addColumn('user_role', 'varchar(10)', (c) => c.notNull().check(sql`user_role in ('user', 'agent', 'admin')`))
    .addColumn('status', 'varchar(10)', (c) => c.notNull().check(sql`status in ('active', 'banned')`))
    .addColumn('email', 'varchar(64)')
    .addColumn('invitation_code', 'varchar(8)', (c) => c.notNull().unique())
    .addColumn('inviter_id', 'integer', (c) => c.references('users.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('last_login_at', 'bigint')
    .addColumn('deleted_at', 'bigint')
    .execute();
  // Accounts differ by more than letter case: 'Alice' cannot pose as 'alice' when a payer checks a payee.
  await sql`create unique index users_account_ci on users (lower(user_account))`.execute(db);
  // One live account per address; a deleted account releases its address.
  await sql`create unique index users_email_live on users (email) where email is not null and deleted_at is null`.execute(
    db,
  );
  await db.schema.createIndex('users_inviter').on('users').column('inviter_id').execute();

  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('revoke_reason', 'varchar(20)')
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
  await db.schema.createIndex('sessions_expires').on('sessions').column('expires_at').execute();

  await db.schema
    .createTable('site_information')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('website_name', 'varchar(32)', (c) => c.notNull())
    .addColumn('notice_bar', 'varchar(200)', (c) => c.notNull())
    .addColumn('notice_announcement_title', 'varchar(50)', (c) => c.notNull())
    .addColumn('notice_announcement', 'text', (c) => c.notNull())
    .addColumn('points_notification', 'text', (c) => c.notNull())
    .addColumn('coin_name', 'varchar(10)', (c) => c.notNull())
    .addColumn('add_coin', 'integer', (c) => c.notNull().check(sql`add_coin >= 0`))
    .addColumn('amount', 'integer', (c) => c.notNull().check(sql`amount >= 0`))
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('analytics_url', 'varchar(200)', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.references('users.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Record 1 is the one the app reads at start. Seeding it here, under the migration lock, means two processes
  // starting together cannot both create it; a fresh identity column hands out 1 first in both databases.
  const now = Date.now();
  await db
    .insertInto('site_information')
    .values({
      website_name: '积分商城',
      notice_bar: '欢迎来到积分商城',
      notice_announcement_title: '公告',
      notice_announcement: '欢迎使用积分商城。积分仅限站内使用，不能提现。',
      points_notification: '提交订单后请联系管理员付款，确认收款后积分自动到账。',
      coin_name: '积分',
      add_coin: 0,
      amount: 0,
      status: 1,
      analytics_url: '',
      user_id: null,
      created_at: now,
      updated_at: now,
    })
    .execute();

  await db.schema
    .createTable('email_captchas')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('email', 'varchar(64)', (c) => c.notNull())
    .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('consumed_at', 'bigint')
    .execute();
  await db.schema.createIndex('email_captchas_user_email').on('email_captchas').columns(['user_id', 'email']).execute();

  await db.schema
    .createTable('rate_limits')
    .addColumn('bucket', 'varchar(120)', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('hits', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_limits_pk', ['bucket', 'window_start'])
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('actor_id', 'integer', (c) => c.references('users.id'))
    .addColumn('action', 'varchar(40)', (c) => c.notNull())
    .addColumn('target_type', 'varchar(20)', (c) => c.notNull())
    .addColumn('target_id', 'varchar(40)', (c) => c.notNull())
    .addColumn('before', 'text')
    .addColumn('after', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_target').on('audit_log').columns(['target_type', 'target_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['audit_log', 'rate_limits', 'email_captchas', 'site_information', 'sessions', 'users']) {
    await db.schema.dropTable(table).execute();
  }
}
