import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from './database.js';
import { compiledProbe } from './dialect.js';

/**
 * A hot Kysely query compiled once per database instead of on every call. Building and compiling a query costs
 * about as much as running a small one (measured on the session lookup every signed-in request makes: Kysely's
 * builder, its immutable nodes and the compiler were a quarter of the request's CPU; on a transfer, whose eight
 * statements run in one transaction, they were a fifth). `build` is called once per database with `placeholders`,
 * distinct values standing for the parameters; the compiled parameters must be exactly those, in that order, so each
 * call can pass its own values in their place.
 *
 * The compiled query is kept per way of compiling (dialect and plugins, told apart by db/dialect.ts's probe): a
 * transaction (a new Kysely object each time) compiles as its database does, so it reuses the same compiled query,
 * and a handle with other plugins (the migrations' plugin-free one) gets its own.
 */
export function compiledOnce<P extends readonly unknown[], R>(
  build: (db: Db, ...params: P) => Compilable<R>,
  placeholders: P,
): (db: Db, ...params: P) => Promise<R[]> {
  const compiled = new Map<string, CompiledQuery<R>>();
  return async (db, ...params) => {
    const way = compiledProbe(db);
    let query = compiled.get(way);
    if (!query) {
      query = build(db, ...placeholders).compile();
      const same =
        query.parameters.length === placeholders.length && query.parameters.every((p, i) => p === placeholders[i]);
      if (!same) throw new Error('compiledOnce: the query must take each placeholder once, in order');
      compiled.set(way, query);
    }
    // Written out: a spread followed by one more property leaves V8's fast object copy (several times slower).
    return (
      await db.executeQuery<R>({ query: query.query, queryId: query.queryId, sql: query.sql, parameters: params })
    ).rows;
  };
}
