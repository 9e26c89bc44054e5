import { sql, type Kysely } from 'kysely';
import { isPostgres } from './helpers.js';

/**
 * Costs that stay flat at a million ledger rows (issue 10):
 * - `users.entry_count` beside the balance, so a statement's total is read, not counted per page. A trigger on
 *   coin_entries keeps it (chosen over the balance UPDATE so that every insert path, including a hand-written fast
 *   path, keeps it right in the inserting transaction without knowing about it);
 * - the statement index also carries `amount`, so the ledger check sums a user's entries from the index alone;
 * - user search through an index: pg_trgm GIN on PostgreSQL, an FTS5 trigram table on SQLite.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('entry_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update users set entry_count = (select count(*) from coin_entries where coin_entries.user_id = users.id)
    where exists (select 1 from coin_entries where coin_entries.user_id = users.id)`.execute(db);

  if (isPostgres(db)) {
    await sql`create function coin_entries_count() returns trigger language plpgsql as $$
      begin
        update users set entry_count = entry_count + 1 where id = new.user_id;
        return null;
      end;
      $$`.execute(db);
    await sql`create trigger coin_entries_count after insert on coin_entries
      for each row execute function coin_entries_count()`.execute(db);
  } else {
    await sql`create trigger coin_entries_count after insert on coin_entries
      begin update users set entry_count = entry_count + 1 where id = new.user_id; end`.execute(db);
  }

  // Same leading columns as before (statement pages by user, newest first), plus the amount for the ledger check.
  await db.schema
    .createIndex('coin_entries_user_amount')
    .on('coin_entries')
    .columns(['user_id', 'id', 'amount'])
    .execute();
  await db.schema.dropIndex('coin_entries_user').execute();

  if (isPostgres(db)) await postgresSearchIndex(db);
  else await sqliteSearchIndex(db);
}

/**
 * pg_trgm GIN indexes on both searched columns. pg_trgm ships with PostgreSQL (contrib) and is a trusted extension,
 * but a server may lack contrib or the role may not create extensions: then the indexes are left out and search
 * stays correct, scanning the users (the same LIKE query; the index only makes it fast). The extension goes into
 * `public` unless it is already installed elsewhere, so every schema of the database can use it.
 */
async function postgresSearchIndex(db: Kysely<any>): Promise<void> {
  const available = await sql`select 1 from pg_available_extensions where name = 'pg_trgm'`.execute(db);
  if (available.rows.length === 0) return;
  await sql`savepoint pg_trgm`.execute(db);
  try {
    await sql`create extension if not exists pg_trgm with schema public`.execute(db);
    await sql`release savepoint pg_trgm`.execute(db);
  } catch {
    // No privilege, or another process created it at the same moment: use it if it is there now.
    await sql`rollback to savepoint pg_trgm`.execute(db);
  }
  const installed = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e
    join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
  const schema = installed.rows[0]?.schema;
  if (schema === undefined) return;
  const ops = sql`${sql.id(schema)}.gin_trgm_ops`;
  // On `lower(user_account) || ''`, not `lower(user_account)`: pg_trgm also serves `=`, and an index on the very
  // expression the account lookups compare (`lower(user_account) in (...)`, 500 names at a time) drew them off the
  // unique btree into a slow trigram bitmap. The search (users/repo.ts) spells the same expression.
  await sql`create index users_account_trgm on users using gin ((lower(user_account) || '') ${ops})`.execute(db);
  await sql`create index users_name_key_trgm on users using gin (user_name_key ${ops})`.execute(db);
}

/**
 * An FTS5 trigram table over the two searched texts (the lower-cased account and the folded nickname), kept by
 * triggers. case_sensitive 1: both sides are already folded by the server, so the index compares exactly what the
 * LIKE it replaces compared, and both databases find the same rows.
 */
async function sqliteSearchIndex(db: Kysely<any>): Promise<void> {
  await sql`create virtual table users_search using fts5(account, name_key, content='', contentless_delete=1,
    tokenize='trigram case_sensitive 1')`.execute(db);
  await sql`insert into users_search (rowid, account, name_key)
    select id, lower(user_account), user_name_key from users`.execute(db);
  await sql`create trigger users_search_insert after insert on users begin
    insert into users_search (rowid, account, name_key) values (new.id, lower(new.user_account), new.user_name_key);
    end`.execute(db);
  await sql`create trigger users_search_update after update of user_account, user_name_key on users begin
    delete from users_search where rowid = old.id;
    insert into users_search (rowid, account, name_key) values (new.id, lower(new.user_account), new.user_name_key);
    end`.execute(db);
  await sql`create trigger users_search_delete after delete on users begin
    delete from users_search where rowid = old.id;
    end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop index if exists users_account_trgm`.execute(db);
    await sql`drop index if exists users_name_key_trgm`.execute(db);
    await sql`drop trigger coin_entries_count on coin_entries`.execute(db);
    await sql`drop function coin_entries_count()`.execute(db);
  } else {
    for (const t of ['users_search_insert', 'users_search_update', 'users_search_delete', 'coin_entries_count'])
      await sql`drop trigger ${sql.raw(t)}`.execute(db);
    await sql`drop table users_search`.execute(db);
  }
  await db.schema.createIndex('coin_entries_user').on('coin_entries').columns(['user_id', 'id']).execute();
  await db.schema.dropIndex('coin_entries_user_amount').execute();
  await db.schema.alterTable('users').dropColumn('entry_count').execute();
}
