import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from './database.js';

/**
 * A hot Kysely query compiled once per database instead of on every call. Building and compiling a query costs
 * about as much as running a small one (measured on the session lookup every signed-in request makes: Kysely's
 * builder, its immutable nodes and the compiler were a quarter of the request's CPU; on a transfer, whose eight
 * statements run in one transaction, they were a fifth). `build` is called once per database with `placeholders`,
 * distinct values standing for the parameters; the compiled parameters must be exactly those, in that order, so each
 * call can pass its own values in their place.
 *
 * The compiled query is kept per database adapter: a transaction (a new Kysely object each time) shares its
 * database's adapter, compiler and plugins, so it reuses the same compiled query. A handle with other plugins (the
 * migrations' plugin-free one) compiles as usual.
 */
export function compiledOnce<P extends readonly unknown[], R>(
  build: (db: Db, ...params: P) => Compilable<R>,
  placeholders: P,
): (db: Db, ...params: P) => Promise<R[]> {
  const compiled = new WeakMap<object, { query: CompiledQuery<R>; plugins: number }>();
  return async (db, ...params) => {
    const executor = db.getExecutor();
    let kept = compiled.get(executor.adapter);
    if (kept?.plugins !== executor.plugins.length) {
      const query = build(db, ...placeholders).compile();
      const same =
        query.parameters.length === placeholders.length && query.parameters.every((p, i) => p === placeholders[i]);
      if (!same) throw new Error('compiledOnce: the query must take each placeholder once, in order');
      kept = { query, plugins: executor.plugins.length };
      if (!compiled.has(executor.adapter)) compiled.set(executor.adapter, kept);
    }
    const { query } = kept;
    // Written out: a spread followed by one more property leaves V8's fast object copy (several times slower).
    return (
      await db.executeQuery<R>({ query: query.query, queryId: query.queryId, sql: query.sql, parameters: params })
    ).rows;
  };
}
