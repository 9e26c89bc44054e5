import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/**
 * The statement a live event is published with (live/bus-postgres.ts): a NOTIFY on the channel of the schema in use.
 * Outside a transaction it runs as it is. Inside one, the driver below keeps it and sends it with the COMMIT, in the
 * same message: the events of a change cost its transaction no round trip (a transfer stays one call of
 * transfer_coins between BEGIN and COMMIT), and PostgreSQL still delivers them only if the COMMIT succeeds.
 */
export const LIVE_NOTIFY_SQL = `select pg_notify('live_' || current_schema(), $1)`;

/** A SQL string literal (standard_conforming_strings, PostgreSQL's default since 9.1). */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

class DeferringConnection implements DatabaseConnection {
  /** Payloads waiting for the COMMIT; null outside a transaction. */
  pending: string[] | null = null;
  constructor(readonly inner: DatabaseConnection) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.pending && query.sql === LIVE_NOTIFY_SQL) {
      this.pending.push(String(query.parameters[0]));
      return { rows: [] };
    }
    return this.inner.executeQuery<R>(query);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/** Kysely's PostgreSQL driver, with the NOTIFYs of a transaction sent in its COMMIT's message. */
export class NotifyOnCommitDriver implements Driver {
  readonly #wrapped = new WeakMap<DatabaseConnection, DeferringConnection>();
  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let wrapped = this.#wrapped.get(connection);
    if (!wrapped) {
      wrapped = new DeferringConnection(connection);
      this.#wrapped.set(connection, wrapped);
    }
    return wrapped;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const own = deferring(connection);
    await this.inner.beginTransaction(own.inner, settings);
    own.pending = [];
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const own = deferring(connection);
    const pending = own.pending ?? [];
    own.pending = null;
    if (pending.length === 0) return this.inner.commitTransaction(own.inner);
    // One simple-protocol message (no parameters): the NOTIFYs, then COMMIT. A failure anywhere in it leaves the
    // transaction uncommitted and nothing delivered; Kysely then rolls it back.
    const notifies = pending.map((payload) => `${LIVE_NOTIFY_SQL.replace('$1', literal(payload))};`).join(' ');
    await own.inner.executeQuery(CompiledQuery.raw(`${notifies} commit`));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const own = deferring(connection);
    own.pending = null;
    await this.inner.rollbackTransaction(own.inner);
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await this.inner.savepoint?.(deferring(connection).inner, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await this.inner.rollbackToSavepoint?.(deferring(connection).inner, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await this.inner.releaseSavepoint?.(deferring(connection).inner, name, compile);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const own = deferring(connection);
    own.pending = null;
    await this.inner.releaseConnection(own.inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

function deferring(connection: DatabaseConnection): DeferringConnection {
  if (!(connection instanceof DeferringConnection)) throw new Error('postgres driver: a connection it did not open');
  return connection;
}
