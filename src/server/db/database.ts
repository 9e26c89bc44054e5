import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  CamelCasePlugin,
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type Dialect,
  type MigrationProvider,
} from 'kysely';
import { DATABASE_TIMEOUTS, type DatabaseConfig } from '../config/config.js';
import { isPostgres } from './dialect.js';
import { ResilientSqliteDriver } from './sqlite-driver.js';
import { namingPool } from './named-statements.js';
import { withStatementCache } from './statement-cache.js';
import type { Database } from './types.js';
import { migrations } from './migrations/index.js';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  kind: DatabaseConfig['kind'];
  /** PostgreSQL schema in use, when one is configured (the migration tables live there too). */
  schema?: string;
  /**
   * SQLite only: hears the live events' payloads (live-notify.ts) once their transaction commits. On PostgreSQL they
   * are NOTIFYs, heard by a LISTEN connection of their own (live/bus-postgres.ts).
   */
  onNotify?: (listener: (payload: string) => void) => void;
  /** PostgreSQL: the pool's connections now (for /metrics). */
  poolStats?: () => { total: number; idle: number; waiting: number };
  /** SQLite: writes that met a lock held elsewhere and were tried again so far (for /metrics). */
  busyRetries?: () => number;
  close(): Promise<void>;
}

/**
 * SQLite checkpoints the WAL itself, in the COMMIT that takes it past 1000 pages (its default autocheckpoint). After a
 * burst has grown the WAL beyond this, the file is cut back to it when the log starts over.
 */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

const INT8_OID = 20;
// pg hands any OID to a type parser, not only its TypeId enum's members.
const anyTypeParser = pg.types.getTypeParser as (oid: number, format?: string) => unknown;
/** pg asks for a column's parser on every query: one function, not a new one each time. */
const toNumber = (value: string) => Number(value);

function openSqlite(path: string, busyTimeoutMs: number): BetterSqlite3.Database {
  const database = new BetterSqlite3(path);
  database.pragma('journal_mode = WAL');
  // WAL makes NORMAL durable across process crashes; only power loss can lose the last commits.
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  database.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  // Short: a wait here blocks the event loop. Longer waits for a lock are the driver's asynchronous retries.
  database.pragma(`busy_timeout = ${busyTimeoutMs}`);
  return database;
}

function sqliteDialect(config: Extract<DatabaseConfig, { kind: 'sqlite' }>): Dialect & {
  driver: ResilientSqliteDriver;
} {
  if (config.path !== ':memory:') mkdirSync(dirname(config.path), { recursive: true });
  const rawWriter = openSqlite(config.path, 20);
  const rawReader = config.path === ':memory:' ? undefined : openSqlite(config.path, 20);
  const lockTimeoutMs = config.lockTimeoutMs ?? DATABASE_TIMEOUTS.lockTimeoutMs;
  const driver = new ResilientSqliteDriver({
    writer: withStatementCache(rawWriter),
    reader: rawReader && withStatementCache(rawReader),
    lockTimeoutMs,
  });
  // Live events travel through the database on SQLite too (live-notify.ts): a function of both connections.
  for (const raw of [rawWriter, rawReader])
    raw?.function('live_notify', (payload: unknown) => (driver.notify(String(payload), raw.inTransaction), null));
  return {
    driver,
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => driver,
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}

/** The name PostgreSQL shows for this app's connections (pg_stat_activity): the schema tells test runs apart. */
export const applicationName = (schema?: string) => (schema ? `points-mall:${schema}` : 'points-mall');

function postgresDialect(
  config: Extract<DatabaseConfig, { kind: 'postgres' }>,
  onPoolError: (error: Error) => void,
): Dialect & { pool: pg.Pool } {
  const { statementTimeoutMs, lockTimeoutMs, acquireTimeoutMs } = { ...DATABASE_TIMEOUTS, ...config };
  const settings = [
    `-c statement_timeout=${statementTimeoutMs}`,
    `-c lock_timeout=${lockTimeoutMs}`,
    ...(config.schema ? [`-c search_path=${config.schema}`] : []),
  ];
  const pool = new pg.Pool({
    connectionString: config.url,
    max: config.poolSize,
    // Waiting for a free connection, or for a new one to open, ends with an error instead of a hung request.
    connectionTimeoutMillis: acquireTimeoutMs,
    application_name: applicationName(config.schema),
    // Times and counts are bigint columns; every value we store fits a JS number exactly.
    types: {
      getTypeParser: ((oid: number, format?: string): unknown =>
        oid === INT8_OID ? toNumber : anyTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
    options: settings.join(' '),
  });
  // An idle connection the server ended (restart, failover, idle timeout, a proxy reset) is reported here; without a
  // listener Node would end the process. The pool drops that connection and opens a new one when next needed.
  pool.on('error', onPoolError);
  // The pool listens only to idle connections: one that dies while a request holds it (or just as it is handed
  // out) would otherwise throw from the socket's event. Its query fails on its own, and the request answers 503.
  pool.on('connect', (client) => client.on('error', onPoolError));
  // Each connection parses a statement once and runs it by name after (named-statements.ts).
  return Object.assign(new PostgresDialect({ pool: namingPool(pool) }), { pool });
}

export function openDatabase(config: DatabaseConfig, onPoolError: (error: Error) => void = () => {}): DatabaseHandle {
  const sqlite = config.kind === 'sqlite' ? sqliteDialect(config) : undefined;
  const postgres = config.kind === 'postgres' ? postgresDialect(config, onPoolError) : undefined;
  const dialect = sqlite ?? postgres!;
  const db = new Kysely<Database>({ dialect, plugins: [new CamelCasePlugin()] });
  return {
    db,
    kind: config.kind,
    schema: config.kind === 'postgres' ? config.schema : undefined,
    ...(sqlite
      ? {
          onNotify: (listener: (payload: string) => void) => sqlite.driver.onNotify(listener),
          busyRetries: () => sqlite.driver.busyRetries,
        }
      : {}),
    ...(postgres
      ? {
          poolStats: () => ({
            total: postgres.pool.totalCount,
            idle: postgres.pool.idleCount,
            waiting: postgres.pool.waitingCount,
          }),
        }
      : {}),
    close: () => db.destroy(),
  };
}

/** Which database a Kysely instance or transaction talks to, for the few places that differ (the ledger). */
export const isPostgresDb = (db: Db): boolean => isPostgres(db);

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Applies pending migrations; Kysely's lock table keeps concurrent starts from applying one twice. */
export async function migrateToLatest(handle: DatabaseHandle): Promise<string[]> {
  // Migrations are written against snake_case names, so they run without the camel-case plugin.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see the schema as it was then (Kysely's docs)
  const raw = handle.db.withoutPlugins() as unknown as Kysely<any>;
  // Name the schema: otherwise Kysely would take migration tables in *another* schema of the database for its own.
  const migrator = new Migrator({
    db: raw,
    provider,
    ...(handle.schema ? { migrationTableSchema: handle.schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error('migration failed', { cause: error });
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Applies pending migrations. On PostgreSQL through a connection of their own without the request time limits: a
 * migration on a large table may rightly run longer than any request should (SQLite has no statement timeout).
 */
export async function migrate(config: DatabaseConfig, handle: DatabaseHandle): Promise<string[]> {
  if (config.kind !== 'postgres') return migrateToLatest(handle);
  const own = openDatabase({ ...config, poolSize: 1, statementTimeoutMs: 0, lockTimeoutMs: 0 });
  try {
    return await migrateToLatest(own);
  } finally {
    await own.close();
  }
}
