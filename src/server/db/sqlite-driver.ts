import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, SelectQueryNode, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';

/**
 * Why this driver exists instead of Kysely's own SQLite driver: tests/api/database-resilience.test.ts, "a write lock
 * held by another connection" (a backup, the sqlite3 shell, a migration in another process). Kysely's driver runs
 * everything on one connection and leaves waiting for that lock to better-sqlite3's busy timeout, which blocks the
 * whole event loop, so every request would freeze with the write. Here:
 * - reads (a SELECT outside a transaction) go to a second connection: in WAL mode reads never wait for a writer;
 * - a write meets the lock with a short busy timeout and then retries asynchronously with backoff, giving the write
 *   connection back while it sleeps, until `lockTimeoutMs` has passed (then SQLITE_BUSY, answered 503);
 * - transactions start with BEGIN IMMEDIATE, so the lock is taken (and waited for) before any statement runs and a
 *   transaction never fails half-way for want of it.
 */
export interface SqliteConnections {
  writer: Pick<BetterSqlite3.Database, 'prepare' | 'close'>;
  /** Absent for an in-memory database, where a second connection would be a second database. */
  reader?: Pick<BetterSqlite3.Database, 'prepare' | 'close'>;
  lockTimeoutMs: number;
}

type Connection = SqliteConnections['writer'];

export const isSqliteBusy = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
};

/** Connection objects kept for reuse: about as many as queries in flight at once. */
const IDLE_KEPT = 64;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function run(database: Connection, { sql, parameters }: CompiledQuery): QueryResult<unknown> {
  const statement = database.prepare(sql);
  if (statement.reader) return { rows: statement.all(parameters) };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}

class Mutex {
  #tail: Promise<void> = Promise.resolve();
  /** Resolves with the function that releases the mutex, once every earlier holder has released it. */
  lock(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const acquired = this.#tail.then(() => release);
    this.#tail = this.#tail.then(() => held);
    return acquired;
  }
}

export class ResilientSqliteDriver implements Driver {
  readonly #writeLock = new Mutex();
  /** Work waiting for the open transaction to commit; the write lock means there is only ever one open. */
  #afterCommit: (() => void)[] = [];
  constructor(private readonly connections: SqliteConnections) {}

  /** Statements that met a lock held elsewhere and were tried again (/metrics: sqlite_busy_retries_total). */
  busyRetries = 0;

  async init(): Promise<void> {}

  /**
   * Connections Kysely gave back, handed out again: it takes one for every query, and a new object each time also
   * cost an entry in Kysely's own set of the connections it has seen.
   */
  readonly #idle: RoutedConnection[] = [];

  async acquireConnection(): Promise<DatabaseConnection> {
    return this.#idle.pop() ?? new RoutedConnection(this);
  }

  /** Runs `attempt` until it does not fail on a busy lock, backing off between tries, within the lock timeout. */
  async #retrying<T>(attempt: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.connections.lockTimeoutMs;
    for (let pause = 5; ; pause = Math.min(pause * 2, 200)) {
      try {
        return await attempt();
      } catch (error) {
        if (!isSqliteBusy(error) || Date.now() + pause > deadline) throw error;
        this.busyRetries++;
      }
      await sleep(pause);
    }
  }

  /** One write outside a transaction: the write connection is held only while the statement runs, not while waiting. */
  write(query: CompiledQuery): Promise<QueryResult<unknown>> {
    return this.#retrying(async () => {
      const release = await this.#writeLock.lock();
      try {
        return run(this.connections.writer, query);
      } finally {
        release();
      }
    });
  }

  async read(query: CompiledQuery): Promise<QueryResult<unknown>> {
    const reader = this.connections.reader;
    if (!reader) return this.write(query);
    // A read in WAL mode almost never meets a lock (only a checkpoint's brief one): it is tried at once, and only one
    // that did meet a lock pays for the retry loop's clock, closure and promises.
    try {
      return run(reader, query);
    } catch (error) {
      if (!isSqliteBusy(error)) throw error;
    }
    return this.#retrying(async () => run(reader, query));
  }

  /** Takes the write connection and the database's write lock for a transaction; answers the release. */
  begin(): Promise<() => void> {
    return this.#retrying(async () => {
      const release = await this.#writeLock.lock();
      try {
        run(this.connections.writer, CompiledQuery.raw('begin immediate'));
        return release;
      } catch (error) {
        release();
        throw error;
      }
    });
  }

  inTransaction(query: CompiledQuery): QueryResult<unknown> {
    return run(this.connections.writer, query);
  }

  readonly #notified: ((payload: string) => void)[] = [];

  /** Hears every `live_notify(payload)` this database's connections run (db/live-notify.ts), once it commits. */
  onNotify(listener: (payload: string) => void): void {
    this.#notified.push(listener);
  }

  /**
   * The body of the SQL function `live_notify`: inside a transaction the payload waits for the commit (a rollback
   * drops it: events of a change that never was); outside one it is delivered at once.
   */
  notify(payload: string, inTransaction: boolean): void {
    const deliver = () => {
      for (const listener of this.#notified) listener(payload);
    };
    if (inTransaction) this.#afterCommit.push(deliver);
    else deliver();
  }

  /** The transaction ended: its waiting work runs if it committed, and is dropped either way. */
  settle(committed: boolean): void {
    const waiting = this.#afterCommit;
    this.#afterCommit = [];
    if (committed) for (const work of waiting) work();
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await routed(connection).begin();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await routed(connection).finish('commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await routed(connection).finish('rollback');
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const own = routed(connection);
    // A transaction whose commit and rollback both failed must still give the write connection back.
    const release = own.release;
    own.release = undefined;
    release?.();
    if (this.#idle.length < IDLE_KEPT) this.#idle.push(own);
  }

  async destroy(): Promise<void> {
    this.connections.reader?.close();
    this.connections.writer.close();
  }
}

/** Kysely hands back the connection this driver acquired; anything else is a bug worth failing loudly on. */
function routed(connection: DatabaseConnection): RoutedConnection {
  if (!(connection instanceof RoutedConnection)) throw new Error('sqlite driver: a connection it did not open');
  return connection;
}

/** What Kysely holds for one query or one transaction; the connection it routes to is chosen per statement. */
class RoutedConnection implements DatabaseConnection {
  release: (() => void) | undefined;
  constructor(private readonly driver: ResilientSqliteDriver) {}

  async begin(): Promise<void> {
    this.release = await this.driver.begin();
  }

  async finish(command: 'commit' | 'rollback'): Promise<void> {
    let committed = false;
    try {
      this.driver.inTransaction(CompiledQuery.raw(command));
      committed = command === 'commit';
    } finally {
      // Before the lock goes: the next transaction must not find this one's waiting work.
      this.driver.settle(committed);
    }
    const release = this.release;
    this.release = undefined;
    release?.();
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.release) return this.driver.inTransaction(query) as QueryResult<R>;
    return (SelectQueryNode.is(query.query) ? this.driver.read(query) : this.driver.write(query)) as Promise<
      QueryResult<R>
    >;
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not used');
  }
}
