import pg from 'pg';
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

/**
 * PostgreSQL's counterpart of statement-cache.ts. Kysely's pg driver sends every query unnamed, so the server parses
 * and plans it again on every call (issue 19 found about 20 µs of the session lookup every signed-in request makes
 * spent so). Here each connection names the statements it runs, by SQL text, so the server parses each one once per
 * connection and the driver then sends only Bind and Execute. One mechanism for every query alike.
 *
 * - Only queries with parameters are named. They already travel by the extended protocol, so naming changes nothing
 *   else about them; a query without parameters may hold several statements (the COMMIT that carries a
 *   transaction's NOTIFYs: notify-on-commit.ts), which only the simple protocol accepts.
 * - Bounded: at most `max` statements per connection (the app has a few dozen hot ones; each holds a plan in the
 *   server's memory), least recently used out first (DEALLOCATE, queued on the connection ahead of the next query;
 *   harmless when it fails, the name is never used again).
 * - A table whose columns changed after a statement reading it was prepared makes PostgreSQL refuse that statement
 *   once ("cached plan must not change result type"): the name is dropped, so the next call prepares it anew.
 *   Migrations run on a connection of their own (database.ts, `migrate`), so a running app sees this only when a
 *   table is altered under it by hand.
 */
export function namingPool(pool: pg.Pool, max = 200): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, NamingClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let naming = clients.get(client);
      if (!naming) clients.set(client, (naming = new NamingClient(client, max)));
      return naming;
    },
    end: () => pool.end(),
  };
}

/** pg's own record of the statements its connection has parsed (not in its typings). */
type Parsed = { connection?: { parsedStatements?: Record<string, string> } };

/** SQLSTATE 0A000 (feature_not_supported) is what PostgreSQL answers a prepared statement whose result type moved. */
const isStalePlan = (error: unknown) =>
  (error as { code?: unknown }).code === '0A000' && /cached plan must not change result type/.test(String(error));

class NamingClient implements PostgresPoolClient {
  /** SQL text → statement name on this connection, oldest use first. */
  readonly #names = new Map<string, string>();
  #next = 0;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly max: number,
  ) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    sqlOrCursor: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    const client = this.client as unknown as {
      query(query: unknown, values?: unknown): Promise<PostgresQueryResult<R>> | PostgresCursor<R>;
    };
    if (typeof sqlOrCursor !== 'string' || !parameters?.length) return client.query(sqlOrCursor, parameters);
    const sql = sqlOrCursor;
    const name = this.#nameOf(sql);
    return new Promise((resolve, reject) => {
      // pg's own Query, named after it is built: given a { name, text, values } object instead, pg copies it through
      // property descriptors on every call, which cost as much as the rest of sending the query.
      const query = new pg.Query(sql, parameters as unknown[], (error: Error | undefined, result: unknown) => {
        if (error) {
          if (isStalePlan(error)) this.#forget(sql, name);
          reject(error);
        } else {
          resolve(result as PostgresQueryResult<R>);
        }
      });
      (query as unknown as { name: string }).name = name;
      void client.query(query); // the answer comes to the callback above
    });
  }

  release(): void {
    this.client.release();
  }

  #nameOf(sql: string): string {
    let name = this.#names.get(sql);
    if (name !== undefined) {
      this.#names.delete(sql); // to the back: most recently used
    } else {
      name = `k${(this.#next++).toString(36)}`;
      if (this.#names.size >= this.max) {
        const [oldSql, oldName] = this.#names.entries().next().value!;
        this.#forget(oldSql, oldName);
      }
    }
    this.#names.set(sql, name);
    return name;
  }

  #forget(sql: string, name: string): void {
    if (this.#names.get(sql) === name) this.#names.delete(sql);
    const parsed = (this.client as unknown as Parsed).connection?.parsedStatements;
    // Only a statement the server did parse exists there to be deallocated.
    if (parsed?.[name] === undefined) return;
    Reflect.deleteProperty(parsed, name);
    this.client.query(`deallocate ${name}`).catch(() => {});
  }
}
