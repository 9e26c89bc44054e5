import type { Kysely } from 'kysely';

// The indexes the admin dashboard's aggregates read (modules/dashboard/repo.ts). Each covers its query, so a sum over
// a range of days reads the index alone, in time order, and never the table's rows.
const INDEXES: readonly { name: string; table: string; columns: string[] }[] = [
  // Coins issued and spent per day, and the all-time totals (one pass over the index, no sort).
  { name: 'coin_entries_created', table: 'coin_entries', columns: ['created_at', 'kind', 'amount'] },
  // Revenue per day: paid orders by the time they were paid.
  { name: 'orders_paid', table: 'orders', columns: ['status', 'paid_at', 'amount'] },
  // New users per day, and who logged in within 7 days.
  { name: 'users_created', table: 'users', columns: ['created_at'] },
  { name: 'users_last_login', table: 'users', columns: ['last_login_at'] },
  // Runs per day by outcome (runs.day is already the site-time-zone day).
  { name: 'runs_day_state', table: 'runs', columns: ['day', 'state'] },
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const { name, table, columns } of INDEXES)
    await db.schema.createIndex(name).on(table).columns(columns).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const { name } of INDEXES) await db.schema.dropIndex(name).execute();
}
