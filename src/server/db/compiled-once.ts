import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from './database.js';

/**
 * A hot Kysely query compiled once per database instead of on every call. Building and compiling a query costs
 * about as much as running a small one (measured on the session lookup every signed-in request makes: Kysely's
 * builder, its immutable nodes and the compiler were a quarter of the request's CPU). `build` is called once per
 * database with `placeholders`, distinct values standing for the parameters; the compiled parameters must be exactly
 * those, in that order, so each call can pass its own values in their place. A transaction (a new object each time)
 * compiles as usual.
 */
export function compiledOnce<P extends readonly unknown[], R>(
  build: (db: Db, ...params: P) => Compilable<R>,
  placeholders: P,
): (db: Db, ...params: P) => Promise<R[]> {
  const compiled = new WeakMap<Db, CompiledQuery<R>>();
  return async (db, ...params) => {
    let query = compiled.get(db);
    if (!query) {
      query = build(db, ...placeholders).compile();
      const same =
        query.parameters.length === placeholders.length && query.parameters.every((p, i) => p === placeholders[i]);
      if (!same) throw new Error('compiledOnce: the query must take each placeholder once, in order');
      compiled.set(db, query);
    }
    return (await db.executeQuery<R>({ ...query, parameters: params })).rows;
  };
}
