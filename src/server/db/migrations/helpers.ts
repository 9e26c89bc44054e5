import { PostgresAdapter, type ColumnDefinitionBuilder, type Kysely } from 'kysely';

/** Migrations never import app code; this is the one dialect fact they need. */
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** An auto-increment integer primary key in either database. */
export function idColumn(db: Kysely<any>) {
  return (col: ColumnDefinitionBuilder) =>
    isPostgres(db) ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();
}
