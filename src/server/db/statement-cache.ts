import type BetterSqlite3 from 'better-sqlite3';

export type PreparingDatabase = Pick<BetterSqlite3.Database, 'prepare' | 'close'>;

/**
 * Kysely asks better-sqlite3 to prepare every statement anew, which costs more than running one of the app's small
 * queries. The app has a few dozen distinct statements, so every connection keeps them by SQL text, for every query
 * alike. Reusing one is safe: a connection runs one statement at a time, to completion, synchronously.
 *
 * Bounded by forgetting them all when `max` is reached rather than by least-recent use: a few dozen statements never
 * reach it (only SQL built with a varying number of values could, e.g. an IN list), and keeping a recency order cost
 * every query a Map delete and insert.
 */
export function withStatementCache(database: BetterSqlite3.Database, max = 500): PreparingDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (statement === undefined) {
        if (statements.size >= max) statements.clear();
        statement = database.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
  } as PreparingDatabase;
}
