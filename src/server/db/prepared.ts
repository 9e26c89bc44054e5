import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from './database.js';

/**
 * A query built and compiled once per database, then run again with new parameters. For the few queries on every
 * request (the session lookup, the site record), where Kysely's building and compiling cost more than running them.
 * `build` receives placeholder values in the order the compiled query expects its parameters.
 */
export function preparedQuery<P extends readonly unknown[], Row>(
  build: (db: Db, ...placeholders: P) => Compilable<Row>,
  placeholders: P,
) {
  const compiled = new WeakMap<Db, CompiledQuery<Row>>();
  return async (db: Db, ...parameters: P): Promise<Row | undefined> => {
    let query = compiled.get(db);
    if (!query) {
      query = build(db, ...placeholders).compile();
      if (query.parameters.length !== parameters.length)
        throw new Error('preparedQuery: parameter count differs from the compiled query');
      compiled.set(db, query);
    }
    const result = await db.executeQuery<Row>({ ...query, parameters });
    return result.rows[0];
  };
}
