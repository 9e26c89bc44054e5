import type BetterSqlite3 from 'better-sqlite3';
import type { Compilable, CompiledQuery } from 'kysely';
import type pg from 'pg';
import type { Db } from './database.js';

/**
 * Where a prepared query may run without Kysely: the SQLite connection that only reads (WAL: it never sees a
 * transaction's uncommitted writes, and never waits for a writer), or the PostgreSQL pool. Registered by
 * openDatabase for a root database only, so a query given a transaction always runs inside that transaction.
 */
export type DirectRoute = { kind: 'sqlite'; reader: BetterSqlite3.Database } | { kind: 'postgres'; pool: pg.Pool };

const directRoutes = new WeakMap<Db, DirectRoute>();

export function registerDirectRoute(db: Db, route: DirectRoute): void {
  directRoutes.set(db, route);
}

/** The PostgreSQL pool behind a root database (not a transaction), for statements sent without Kysely. */
export function postgresPoolOf(db: Db): pg.Pool | undefined {
  const route = directRoutes.get(db);
  return route?.kind === 'postgres' ? route.pool : undefined;
}

/** The result key the CamelCasePlugin gives a column (its mapper, which Kysely does not export): `_x` becomes `X`. */
function camelCase(column: string): string {
  let out = column.slice(0, 1);
  for (let i = 1; i < column.length; i++) {
    const char = column[i]!;
    if (char !== '_') out += column[i - 1] === '_' ? char.toUpperCase() : char;
  }
  return out;
}

/** What VersionedMemo.get answers when it has nothing for the key (undefined is a remembered answer: no row). */
const NOT_REMEMBERED = Symbol('not remembered');
const MEMO_ENTRIES = 10_000;

const dataVersionStatements = new WeakMap<BetterSqlite3.Database, BetterSqlite3.Statement>();
function dataVersionStatement(reader: BetterSqlite3.Database): BetterSqlite3.Statement {
  let statement = dataVersionStatements.get(reader);
  if (!statement) dataVersionStatements.set(reader, (statement = reader.prepare('pragma data_version').pluck()));
  return statement;
}

/**
 * Answers of one query on SQLite, kept only while nothing has been committed to the database file since they were
 * read. `PRAGMA data_version` on the reading connection changes whenever ANY other connection commits (this process's
 * write connection, another process, the sqlite3 shell), so a remembered row is exactly the row the query would read
 * now: a logout or ban anywhere is seen by the very next request. Between writes (most of the time, for the session
 * lookup every signed-in request makes) a request costs a version check instead of the query.
 * Bounded: the oldest key goes first; everything goes at the next commit.
 */
class VersionedMemo<T> {
  readonly #entries = new Map<unknown, T>();
  #version: unknown = undefined;
  constructor(private readonly versionStatement: BetterSqlite3.Statement) {}

  get(key: unknown): T | typeof NOT_REMEMBERED {
    const version = this.versionStatement.get();
    if (version !== this.#version) {
      this.#entries.clear();
      this.#version = version;
      return NOT_REMEMBERED;
    }
    return this.#entries.has(key) ? this.#entries.get(key)! : NOT_REMEMBERED;
  }

  set(key: unknown, value: T): T {
    if (this.#entries.size >= MEMO_ENTRIES) this.#entries.delete(this.#entries.keys().next().value);
    this.#entries.set(key, value);
    return value;
  }
}

const isSqliteBusy = (error: unknown) => String((error as { code?: unknown } | null)?.code).startsWith('SQLITE_BUSY');

let statementNames = 0;

/**
 * A query built and compiled once per database, then run again with new parameters. For the few queries on every
 * request (the session lookup, the site record), where Kysely's building, compiling and result transforms cost more
 * than running them. On a root database they skip Kysely altogether: on SQLite one kept better-sqlite3 statement
 * answering arrays, on PostgreSQL a named (server-side prepared) statement; the row keys are mapped to camelCase
 * once per statement; on SQLite the rows are also remembered until the next commit to the file (VersionedMemo), and
 * handed out frozen, shared by every caller. `build` receives placeholder values in the order the compiled query expects its parameters.
 */
export function preparedQuery<P extends readonly unknown[], Row>(
  build: (db: Db, ...placeholders: P) => Compilable<Row>,
  placeholders: P,
) {
  const compiled = new WeakMap<Db, CompiledQuery<Row>>();
  const direct = new WeakMap<Db, (parameters: P) => Promise<Row | undefined> | Row | undefined>();
  const name = `prepared_${++statementNames}`;

  const compile = (db: Db, parameters: P) => {
    let query = compiled.get(db);
    if (!query) {
      query = build(db, ...placeholders).compile();
      if (query.parameters.length !== parameters.length)
        throw new Error('preparedQuery: parameter count differs from the compiled query');
      compiled.set(db, query);
    }
    return query;
  };

  const throughKysely = async (db: Db, parameters: P): Promise<Row | undefined> => {
    const result = await db.executeQuery<Row>({ ...compile(db, parameters), parameters });
    return result.rows[0];
  };

  const directRunner = (db: Db, route: DirectRoute, parameters: P) => {
    const { sql } = compile(db, parameters);
    let keys: string[] | undefined;
    const toRow = (values: readonly unknown[]) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < values.length; i++) row[keys![i]!] = values[i];
      return row as Row;
    };
    if (route.kind === 'sqlite') {
      const statement = route.reader.prepare(sql).raw(true);
      keys = statement.columns().map((c) => camelCase(c.name));
      const memo = new VersionedMemo<Row | undefined>(dataVersionStatement(route.reader));
      return (values: P) => {
        try {
          // The version is read BEFORE the row: a commit in between leaves a newer row under an older version,
          // which the next call's version check throws away; the other order could keep an older row as current.
          const key = values.length === 1 ? values[0] : JSON.stringify(values);
          const remembered = memo.get(key);
          if (remembered !== NOT_REMEMBERED) return remembered;
          const first = statement.get(values) as unknown[] | undefined;
          return memo.set(key, first ? Object.freeze(toRow(first)) : undefined);
        } catch (error) {
          // A busy reader (a checkpoint restarting the log): the driver's path waits and retries.
          if (isSqliteBusy(error)) return throughKysely(db, values);
          throw error;
        }
      };
    }
    const { pool } = route;
    return async (values: P) => {
      const result = await pool.query<unknown[]>({
        name,
        text: sql,
        values: values as unknown as unknown[],
        rowMode: 'array',
      });
      keys ??= result.fields.map((f) => camelCase(f.name));
      const first = result.rows[0];
      return first ? toRow(first) : undefined;
    };
  };

  return async (db: Db, ...parameters: P): Promise<Row | undefined> => {
    let run = direct.get(db);
    if (!run) {
      const route = directRoutes.get(db);
      if (!route) return throughKysely(db, parameters);
      run = directRunner(db, route, parameters);
      direct.set(db, run);
    }
    return run(parameters);
  };
}
