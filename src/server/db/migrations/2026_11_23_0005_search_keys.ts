import type { Kysely } from 'kysely';

/**
 * Search columns: the text users search in, folded by the server (NFKC and full case folding, see db/search.ts), so
 * both databases match any letters the same way. Existing rows are filled here with a frozen copy of that folding
 * (migrations never import app code: they must do tomorrow what they did today).
 */
const fold = (text: string) =>
  text
    .normalize('NFKC')
    .toUpperCase()
    .toLowerCase()
    .replace(/ς/g, 'σ')
    .replace(/i\u0307/g, 'i')
    .normalize('NFKC');

const KEYS: Record<string, Record<string, string>> = {
  users: { user_name_key: 'user_name' },
  mall_packages: { coin_name_key: 'coin_name' },
  orders: { coin_name_key: 'coin_name' },
  site_information: {
    coin_name_key: 'coin_name',
    notice_bar_key: 'notice_bar',
    points_notification_key: 'points_notification',
  },
};

export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, keys] of Object.entries(KEYS)) {
    for (const key of Object.keys(keys)) {
      await db.schema
        .alterTable(table)
        .addColumn(key, 'text', (c) => c.notNull().defaultTo(''))
        .execute();
    }
    const rows = await db
      .selectFrom(table)
      .select(['id', ...Object.values(keys)])
      .execute();
    for (const row of rows) {
      const set = Object.fromEntries(Object.entries(keys).map(([key, field]) => [key, fold(String(row[field] ?? ''))]));
      await db.updateTable(table).set(set).where('id', '=', row.id).execute();
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [table, keys] of Object.entries(KEYS)) {
    for (const key of Object.keys(keys)) await db.schema.alterTable(table).dropColumn(key).execute();
  }
}
