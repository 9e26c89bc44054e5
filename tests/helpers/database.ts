import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseConfig } from '../../src/server/config/config.js';

export type DbKind = 'sqlite' | 'postgres';

/** Set by the vitest project: every API test file runs once per database. */
export const dbKind = (): DbKind => (process.env.DB_KIND === 'postgres' ? 'postgres' : 'sqlite');

export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  config: DatabaseConfig;
  drop(): Promise<void>;
}

/** A database of its own for one test file: a temporary SQLite file, or a fresh PostgreSQL schema. */
export async function createTestDatabase(kind: DbKind = dbKind()): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'points-mall-'));
    return {
      config: { kind: 'sqlite', path: join(dir, 'test.db') },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`create schema ${schema}`);
  } finally {
    await client.end();
  }
  return {
    config: { kind: 'postgres', url: POSTGRES_URL, schema, poolSize: 5 },
    async drop() {
      const c = new pg.Client({ connectionString: POSTGRES_URL });
      await c.connect();
      try {
        await c.query(`drop schema if exists ${schema} cascade`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * Runs one statement on a connection of its own, as an operator's script or the sqlite3 shell would: no app code is
 * involved, so nothing in the app hears of the change. Written with `?` placeholders for both databases.
 */
export async function sqlOutsideTheApp(
  config: DatabaseConfig,
  statement: string,
  parameters: unknown[],
): Promise<void> {
  if (config.kind === 'sqlite') {
    const { default: BetterSqlite3 } = await import('better-sqlite3');
    const other = new BetterSqlite3(config.path);
    try {
      other.pragma('busy_timeout = 2000');
      other.prepare(statement).run(...parameters);
    } finally {
      other.close();
    }
    return;
  }
  const other = new pg.Client({ connectionString: POSTGRES_URL });
  await other.connect();
  try {
    await other.query(`set search_path to ${config.schema}`);
    let n = 0;
    await other.query(
      statement.replace(/\?/g, () => `$${++n}`),
      parameters,
    );
  } finally {
    await other.end();
  }
}
