import type BetterSqlite3 from 'better-sqlite3';

export type PreparingDatabase = Pick<BetterSqlite3.Database, 'prepare' | 'close'>;

/**
 * Kysely asks better-sqlite3 to prepare every statement anew, which costs more than running one of the app's small
 * queries. The app has a few dozen distinct statements, so every connection keeps them by SQL text (least recently
 * used out first), for every query alike. Reusing one is safe: a connection runs one statement at a time, to
 * completion, synchronously.
 */
export function withStatementCache(database: BetterSqlite3.Database, max = 500): PreparingDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (statement) {
        statements.delete(sql);
      } else {
        statement = database.prepare(sql);
        if (statements.size >= max) statements.delete(statements.keys().next().value!);
      }
      statements.set(sql, statement);
      return statement;
    },
  } as PreparingDatabase;
}
