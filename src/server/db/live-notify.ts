import { sql } from 'kysely';
import type { Db } from './database.js';
import { isPostgres } from './dialect.js';

/**
 * Sends a live event's payload through the database, as a statement of the caller's transaction (at once outside
 * one): PostgreSQL's NOTIFY on the channel of the schema in use, or on SQLite the driver's `live_notify` function
 * (sqlite-driver.ts), its in-process counterpart. Both deliver only once the transaction commits and drop the payload
 * when it rolls back, so a screen told to read again never reads the old state.
 */
export async function notifyLive(db: Db, payload: string): Promise<void> {
  if (isPostgres(db)) await sql`select pg_notify('live_' || current_schema(), ${payload})`.execute(db);
  else await sql`select live_notify(${payload})`.execute(db);
}

/** The channel this handle's NOTIFYs go to (PostgreSQL): the schema in use, so each test file or deployment hears its own. */
export async function liveChannel(db: Db): Promise<string> {
  const { rows } = await sql<{ channel: string }>`select 'live_' || current_schema() as channel`.execute(db);
  return rows[0]!.channel;
}
