import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { CamelCasePlugin, Kysely, Migrator, PostgresDialect, SqliteDialect, type MigrationProvider, type SqliteDatabase } from 'kysely';
import type { DatabaseConfig } from '../config.js';
import type { Database } from './types.js';
import { migrations } from './migrations/index.js';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  kind: DatabaseConfig['kind'];
  /** PostgreSQL schema in use, when one is configured (the migration tables live there too). */
  schema?: string;
  close(): Promise<void>;
}

const INT8_OID = 20;

function sqliteDialect(path: string): SqliteDialect {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new BetterSqlite3(path);
  database.pragma('journal_mode = WAL');
  // WAL makes NORMAL durable across process crashes; only power loss can lose the last commits.
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  return new SqliteDialect({ database: withStatementCache(database) });
}

/**
 * Kysely prepares every statement anew, which costs more than running it. The app has a few dozen distinct
 * statements, so they are kept (least recently used out first). Reusing one is safe: Kysely's SQLite driver runs one
 * query at a time on its single connection.
 */
function withStatementCache(database: BetterSqlite3.Database, max = 500): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => database.close(),
    prepare(sql) {
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
  };
}

function postgresDialect(url: string, poolSize: number, schema?: string): PostgresDialect {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // Times and counts are bigint columns; every value we store fits a JS number exactly.
    types: {
      getTypeParser: ((oid: number, format?: string): unknown =>
        // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- pg hands any OID here, not only a TypeId
        oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  return new PostgresDialect({ pool });
}

export function openDatabase(config: DatabaseConfig): DatabaseHandle {
  const dialect = config.kind === 'sqlite' ? sqliteDialect(config.path) : postgresDialect(config.url, config.poolSize, config.schema);
  const db = new Kysely<Database>({ dialect, plugins: [new CamelCasePlugin()] });
  return { db, kind: config.kind, schema: config.kind === 'postgres' ? config.schema : undefined, close: () => db.destroy() };
}

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Applies pending migrations; Kysely's lock table keeps concurrent starts from applying one twice. */
export async function migrateToLatest(handle: DatabaseHandle): Promise<string[]> {
  // Migrations are written against snake_case names, so they run without the camel-case plugin.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see the schema as it was then (Kysely's docs)
  const raw = handle.db.withoutPlugins() as unknown as Kysely<any>;
  // Name the schema: otherwise Kysely would take migration tables in *another* schema of the database for its own.
  const migrator = new Migrator({ db: raw, provider, ...(handle.schema ? { migrationTableSchema: handle.schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error('migration failed', { cause: error });
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
