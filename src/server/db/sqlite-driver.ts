import type BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  SelectQueryNode,
  SqliteAdapter,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';

/**
 * Kysely's own SQLite driver runs everything on one connection behind one mutex, and leaves waiting for a lock held
 * by another process (a backup, the sqlite3 shell, a migration) to better-sqlite3's busy timeout, which blocks the
 * whole event loop. This driver instead:
 * - reads (a SELECT outside a transaction) on a second connection: in WAL mode reads never wait for a writer;
 * - writes with a short busy timeout and, when the lock is still taken, retries asynchronously with backoff, giving
 *   the write connection back while it sleeps, until `lockTimeoutMs` has passed (then SQLITE_BUSY: a 503);
 * - starts transactions with BEGIN IMMEDIATE, so the lock is taken (and waited for) before any statement runs and a
 *   transaction never fails half-way for want of it.
 */
export interface SqliteConnections {
  writer: Pick<BetterSqlite3.Database, 'prepare' | 'close'>;
  /** Absent for an in-memory database, where a second connection would be a second database. */
  reader?: Pick<BetterSqlite3.Database, 'prepare' | 'close'>;
  lockTimeoutMs: number;
  /** Writes submitted with `submitWrite` in the same turn of the event loop share one transaction (see there). */
  groupCommit?: boolean;
}

export type Prepared = Pick<BetterSqlite3.Database, 'prepare'>;

/**
 * A unit of synchronous work on the write connection (a coin transfer), run by `submitWrite` inside a transaction and
 * in a savepoint of its own.
 */
export interface WriteWork<T> {
  run(writer: Prepared): T;
  /**
   * Called when `run` threw, after its savepoint was rolled back (so nothing it wrote stays), in the same transaction:
   * answers instead of the error (an idempotent replay) or throws.
   */
  recover?(error: unknown, writer: Prepared): T;
}

interface Queued {
  work: WriteWork<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Enough to spread a burst over a few commits; a group holds the event loop for about this many transfers. */
const MAX_GROUP = 256;

export const isSqliteBusy = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function run(database: Prepared, { sql, parameters }: CompiledQuery): QueryResult<unknown> {
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
  constructor(private readonly connections: SqliteConnections) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this);
  }

  /** Runs `attempt` until it does not fail on a busy lock, backing off between tries, within the lock timeout. */
  async retrying<T>(attempt: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.connections.lockTimeoutMs;
    for (let pause = 5; ; pause = Math.min(pause * 2, 200)) {
      try {
        return await attempt();
      } catch (error) {
        if (!isSqliteBusy(error) || Date.now() + pause > deadline) throw error;
      }
      await sleep(pause);
    }
  }

  /** One write outside a transaction: the write connection is held only while the statement runs, not while waiting. */
  write(query: CompiledQuery): Promise<QueryResult<unknown>> {
    return this.retrying(async () => {
      const release = await this.#writeLock.lock();
      try {
        return run(this.connections.writer, query);
      } finally {
        release();
      }
    });
  }

  read(query: CompiledQuery): Promise<QueryResult<unknown>> {
    const reader = this.connections.reader;
    return reader ? this.retrying(async () => run(reader, query)) : this.write(query);
  }

  /** Takes the write connection and the database's write lock for a transaction; answers the release. */
  begin(): Promise<() => void> {
    return this.retrying(async () => {
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

  /**
   * Takes the write connection without starting anything on it: this process's writes wait (asynchronously, the
   * event loop goes on) until the answered function is called. For the WAL checkpointer's RESTART, which needs a
   * moment without a writer (db/sqlite-checkpointer.ts): without this the writer's BEGIN would wait for it on the loop.
   */
  holdWrites(): Promise<() => void> {
    return this.#writeLock.lock();
  }

  inTransaction(query: CompiledQuery): QueryResult<unknown> {
    return run(this.connections.writer, query);
  }

  /**
   * The write connection, for synchronous statements of a Kysely transaction that holds it (db/sqlite-writer.ts):
   * only valid while that transaction is open.
   */
  get writer(): Prepared {
    return this.connections.writer;
  }

  readonly #queue: Queued[] = [];
  #draining = false;
  /** Committed groups and the work they carried: how much grouping happened (tests, diagnostics). */
  readonly groupCommits = { transactions: 0, works: 0 };

  /**
   * Runs `work` synchronously in a write transaction and answers once that transaction has COMMITTED: nothing is
   * acknowledged that a crash could still take back.
   *
   * GROUP COMMIT (on unless the config says otherwise): work submitted while the event loop handles one batch of
   * sockets is queued and run, on the next turn, in ONE transaction: BEGIN IMMEDIATE, each piece of work in its own
   * SAVEPOINT (a refusal rolls back only that piece, its caller gets the error, the others go on), one COMMIT, then
   * every caller gets its answer. The cost of a commit (and of taking the lock) is shared by the group, which is what
   * lets SQLite approach its raw speed. If BEGIN or COMMIT fails, every caller of the group gets the error, and none
   * of the group's work is in the database. Without group commit each piece of work has a transaction of its own.
   */
  submitWrite<T>(work: WriteWork<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve, reject });
      if (this.#draining) return;
      this.#draining = true;
      // setImmediate: after the requests read in this poll phase have run up to their submit, so they group.
      setImmediate(() => void this.#drain());
    });
  }

  async #drain(): Promise<void> {
    const size = this.connections.groupCommit === false ? 1 : MAX_GROUP;
    try {
      while (this.#queue.length > 0) {
        let release: () => void;
        try {
          release = await this.begin();
        } catch (error) {
          for (const q of this.#queue.splice(0, size)) q.reject(error);
          continue;
        }
        // Taken after the lock: work that arrived while it was awaited joins this group.
        const group = this.#queue.splice(0, size);
        let outcomes: Outcome[];
        try {
          outcomes = group.map((q) => this.#runInSavepoint(q.work));
          this.connections.writer.prepare('commit').run();
          this.groupCommits.transactions++;
          this.groupCommits.works += group.length;
        } catch (error) {
          try {
            this.connections.writer.prepare('rollback').run();
          } catch {
            // Already rolled back by SQLite (a failed COMMIT may do so); nothing of the group is committed either way.
          }
          outcomes = group.map(() => ({ ok: false, error }));
        } finally {
          release();
        }
        group.forEach((q, i) => {
          const outcome = outcomes[i]!;
          if (outcome.ok) q.resolve(outcome.value);
          else q.reject(outcome.error);
        });
      }
    } finally {
      this.#draining = false;
    }
  }

  #runInSavepoint(work: WriteWork<unknown>): Outcome {
    const writer = this.connections.writer;
    writer.prepare('savepoint work').run();
    try {
      const value = work.run(writer);
      writer.prepare('release work').run();
      return { ok: true, value };
    } catch (error) {
      // A failure here (not the work's refusal) fails the whole group: the caller's catch rolls it back.
      writer.prepare('rollback to work').run();
      writer.prepare('release work').run();
      if (!work.recover) return { ok: false, error };
      try {
        return { ok: true, value: work.recover(error, writer) };
      } catch (recovered) {
        return { ok: false, error: recovered };
      }
    }
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
    // A transaction whose commit and rollback both failed must still give the write connection back.
    routed(connection).release?.();
  }

  async destroy(): Promise<void> {
    this.connections.reader?.close();
    this.connections.writer.close();
  }
}

/**
 * Kysely hides its driver; the ledger's synchronous fast path needs it. The adapter object is shared by a Kysely
 * instance and every transaction made from it, so it is the key from any `db` or `trx` to the driver.
 */
const driversByAdapter = new WeakMap<object, ResilientSqliteDriver>();

export function sqliteAdapterFor(driver: ResilientSqliteDriver): SqliteAdapter {
  const adapter = new SqliteAdapter();
  driversByAdapter.set(adapter, driver);
  return adapter;
}

/** The SQLite driver behind a Kysely instance or transaction; undefined on PostgreSQL. */
export const sqliteDriverOf = (db: { getExecutor(): { adapter: object } }): ResilientSqliteDriver | undefined =>
  driversByAdapter.get(db.getExecutor().adapter);

/** What Kysely holds for one query or one transaction; the connection it routes to is chosen per statement. */
/** Kysely hands back the connection this driver acquired; anything else is a bug worth failing loudly on. */
function routed(connection: DatabaseConnection): RoutedConnection {
  if (!(connection instanceof RoutedConnection)) throw new Error('sqlite driver: a connection it did not open');
  return connection;
}

class RoutedConnection implements DatabaseConnection {
  release: (() => void) | undefined;
  constructor(private readonly driver: ResilientSqliteDriver) {}

  async begin(): Promise<void> {
    this.release = await this.driver.begin();
  }

  async finish(command: 'commit' | 'rollback'): Promise<void> {
    this.driver.inTransaction(CompiledQuery.raw(command));
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
