import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseConfig } from '../../src/server/config.js';

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
