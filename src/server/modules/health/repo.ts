import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

/** The newest migration applied (a round trip to the database); '' before any. Kysely keeps them in its own table. */
export async function latestMigration(db: Db): Promise<string> {
  const { rows } = await sql<{ name: string | null }>`select max(name) as name from kysely_migration`.execute(db);
  return rows[0]?.name ?? '';
}
