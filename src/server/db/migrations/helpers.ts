import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';

/** Migrations never import app code; the dialect is the one fact they need (db/dialect.ts, beside them in db/). */
export { isPostgres };

/** An auto-increment integer primary key in either database. */
export function idColumn(db: Kysely<any>) {
  return (col: ColumnDefinitionBuilder) =>
    isPostgres(db) ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();
}

/**
 * Makes a ledger table append-only, enforced by the database itself: a mistake is corrected by a reversing entry,
 * never by an edit. On PostgreSQL a trigger function `<table>_append_only` (drop it in `down`).
 */
export async function appendOnly(db: Kysely<any>, table: 'coin_entries' | 'quota_entries'): Promise<void> {
  const t = sql.raw(table);
  const refuse = sql.raw(`'${table} is append-only'`);
  if (isPostgres(db)) {
    await sql`
      create function ${t}_append_only() returns trigger language plpgsql as $$
      begin
        raise exception ${refuse};
      end;
      $$`.execute(db);
    await sql`create trigger ${t}_no_update before update or delete on ${t}
      for each row execute function ${t}_append_only()`.execute(db);
    // Row triggers do not see TRUNCATE.
    await sql`create trigger ${t}_no_truncate before truncate on ${t}
      for each statement execute function ${t}_append_only()`.execute(db);
  } else {
    await sql`create trigger ${t}_no_update before update on ${t}
      begin select raise(abort, ${refuse}); end`.execute(db);
    await sql`create trigger ${t}_no_delete before delete on ${t}
      begin select raise(abort, ${refuse}); end`.execute(db);
    // INSERT OR REPLACE deletes the old row without firing delete triggers (recursive_triggers is off): refuse it here.
    await sql`create trigger ${t}_no_replace before insert on ${t}
      when exists (select 1 from ${t} where id = new.id)
      begin select raise(abort, ${refuse}); end`.execute(db);
  }
}
