import type { Kysely } from 'kysely';

/**
 * Per-day figures of finished site days, so the admin dashboard stops summing a million ledger rows on every view
 * (issue 12). Keyed by time zone and day: a day's bounds depend on TZ_SITE, and rows of another zone must never be
 * served after the setting changes. Rows are written once, by whichever server process gets there first (an insert
 * that ignores a conflict), and never updated: the ledger is append-only, a paid order stays paid and a user's
 * created_at never changes, so a day that is over (with a safety margin) keeps its figures.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('dashboard_day_rollups')
    .addColumn('time_zone', 'varchar(64)', (c) => c.notNull())
    .addColumn('day', 'varchar(10)', (c) => c.notNull())
    // Coins created (positive entries, not transfers), removed (negative, not transfers), spent on services.
    .addColumn('coins_issued', 'bigint', (c) => c.notNull())
    .addColumn('coins_removed', 'bigint', (c) => c.notNull())
    .addColumn('coins_spent', 'bigint', (c) => c.notNull())
    // Orders paid that day and their amount (fen).
    .addColumn('paid_orders', 'bigint', (c) => c.notNull())
    .addColumn('revenue', 'bigint', (c) => c.notNull())
    // Accounts created that day (deleted later or not: a count that never changes).
    .addColumn('new_users', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('dashboard_day_rollups_pk', ['time_zone', 'day'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('dashboard_day_rollups').execute();
}
