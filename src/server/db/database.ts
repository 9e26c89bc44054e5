import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  CamelCasePlugin,
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type Dialect,
  type MigrationProvider,
} from 'kysely';
import { DATABASE_TIMEOUTS, SQLITE_CHECKPOINTS, type DatabaseConfig } from '../config.js';
import { registerDirectRoute, type DirectRoute } from './prepared.js';
import { startCheckpointer, type Checkpointer } from './sqlite-checkpointer.js';
import { ResilientSqliteDriver, sqliteAdapterFor } from './sqlite-driver.js';
import type { Database } from './types.js';
import { migrations } from './migrations/index.js';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  kind: DatabaseConfig['kind'];
  /** PostgreSQL schema in use, when one is configured (the migration tables live there too). */
  schema?: string;
  /** SQLite file: the worker thread that checkpoints the WAL (absent in memory or when turned off). */
  checkpointer?: Checkpointer;
  close(): Promise<void>;
}

/** What SQLite does when nobody says otherwise: the writer checkpoints in its COMMIT past this many WAL pages. */
const AUTOCHECKPOINT_PAGES = 1000;

const INT8_OID = 20;
// pg hands any OID to a type parser, not only its TypeId enum's members.
const anyTypeParser = pg.types.getTypeParser as (oid: number, format?: string) => unknown;

function openSqlite(path: string, busyTimeoutMs: number): BetterSqlite3.Database {
  const database = new BetterSqlite3(path);
  database.pragma('journal_mode = WAL');
  // WAL makes NORMAL durable across process crashes; only power loss can lose the last commits.
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  // Short: a wait here blocks the event loop. Longer waits for a lock are the driver's asynchronous retries.
  database.pragma(`busy_timeout = ${busyTimeoutMs}`);
  return database;
}

function sqliteDialect(
  config: Extract<DatabaseConfig, { kind: 'sqlite' }>,
  onCheckpointerFailure: (error: Error) => void,
): {
  dialect: Dialect;
  direct?: DirectRoute;
  checkpointer?: Checkpointer;
} {
  if (config.path !== ':memory:') mkdirSync(dirname(config.path), { recursive: true });
  const writerDatabase = openSqlite(config.path, 20);
  const writer = withStatementCache(writerDatabase);
  const readerDatabase = config.path === ':memory:' ? undefined : openSqlite(config.path, 20);
  const reader = readerDatabase ? withStatementCache(readerDatabase) : undefined;
  const lockTimeoutMs = config.lockTimeoutMs ?? DATABASE_TIMEOUTS.lockTimeoutMs;
  const driver = new ResilientSqliteDriver({ writer, reader, lockTimeoutMs, groupCommit: config.groupCommit ?? true });
  const checkpointer =
    config.path === ':memory:' || config.checkpointer === false
      ? undefined
      : checkpointOffTheLoop(config.path, writerDatabase, driver, config.checkpointer, onCheckpointerFailure);
  const adapter = sqliteAdapterFor(driver);
  return {
    dialect: {
      createAdapter: () => adapter,
      createDriver: () => driver,
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
    // In memory there is no reader: the one connection may be inside a transaction, so everything goes through Kysely.
    ...(readerDatabase ? { direct: { kind: 'sqlite' as const, reader: readerDatabase } } : {}),
    checkpointer,
  };
}

/** The writer stops checkpointing inside its COMMITs; a worker thread does it (db/sqlite-checkpointer.ts). */
function checkpointOffTheLoop(
  path: string,
  writer: BetterSqlite3.Database,
  driver: ResilientSqliteDriver,
  settings: Extract<DatabaseConfig, { kind: 'sqlite' }>['checkpointer'],
  onFailure: (error: Error) => void,
): Checkpointer {
  const { intervalMs, maxWalBytes } = { ...SQLITE_CHECKPOINTS, ...(typeof settings === 'object' ? settings : {}) };
  writer.pragma('wal_autocheckpoint = 0');
  // When the WAL starts over after a burst that grew it past the limit, the file shrinks back to the limit.
  writer.pragma(`journal_size_limit = ${maxWalBytes}`);
  return startCheckpointer({
    path,
    intervalMs,
    maxWalBytes,
    holdWrites: () => driver.holdWrites(),
    onFailure(error) {
      // Nothing is lost (the WAL is durable), but without checkpoints it would grow forever: the writer takes over.
      if (writer.open) writer.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
      onFailure(error);
    },
  });
}

type PreparingDatabase = Pick<BetterSqlite3.Database, 'prepare' | 'close'>;

/**
 * Kysely prepares every statement anew, which costs more than running it. The app has a few dozen distinct
 * statements, so they are kept (least recently used out first). Reusing one is safe: a connection runs one statement
 * at a time, to completion, synchronously.
 */
function withStatementCache(database: BetterSqlite3.Database, max = 500): PreparingDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (statement) {
        statements.delete(sql);
      } else {
        statement = database.prepare(sql);
        if (statements.size >= max) statements.delete(statements.keys().next().value!);
      }
      statements.set(sql, statement);
      return statement;
    },
  } as PreparingDatabase;
}

/** The name PostgreSQL shows for this app's connections (pg_stat_activity): the schema tells test runs apart. */
export const applicationName = (schema?: string) => (schema ? `points-mall:${schema}` : 'points-mall');

function postgresDialect(
  config: Extract<DatabaseConfig, { kind: 'postgres' }>,
  onPoolError: (error: Error) => void,
): { dialect: PostgresDialect; direct: DirectRoute } {
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
        oid === INT8_OID
          ? (value: string) => Number(value)
          : anyTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
    options: settings.join(' '),
  });
  // An idle connection the server ended (restart, failover, idle timeout, a proxy reset) is reported here; without a
  // listener Node would end the process. The pool drops that connection and opens a new one when next needed.
  pool.on('error', onPoolError);
  // The pool listens only to idle connections: one that dies while a request holds it (or just as it is handed
  // out) would otherwise throw from the socket's event. Its query fails on its own, and the request answers 503.
  pool.on('connect', (client) => client.on('error', onPoolError));
  return { dialect: new PostgresDialect({ pool }), direct: { kind: 'postgres', pool } };
}

export function openDatabase(
  config: DatabaseConfig,
  onPoolError: (error: Error) => void = () => {},
  onCheckpointerFailure: (error: Error) => void = (error) => console.error('sqlite checkpointer failed', error),
): DatabaseHandle {
  const opened =
    config.kind === 'sqlite' ? sqliteDialect(config, onCheckpointerFailure) : postgresDialect(config, onPoolError);
  const db = new Kysely<Database>({ dialect: opened.dialect, plugins: [new CamelCasePlugin()] });
  if (opened.direct) registerDirectRoute(db, opened.direct);
  const checkpointer = 'checkpointer' in opened ? opened.checkpointer : undefined;
  return {
    db,
    kind: config.kind,
    schema: config.kind === 'postgres' ? config.schema : undefined,
    ...(checkpointer ? { checkpointer } : {}),
    async close() {
      try {
        await db.destroy();
      } finally {
        // After the app's connections: the worker's is then the last, and closing it checkpoints off the loop.
        await checkpointer?.close();
      }
    },
  };
}

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
