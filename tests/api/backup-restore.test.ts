import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dbKind, POSTGRES_URL, type TestDatabase } from '../helpers/database.js';
import { newKey } from '../helpers/ledger.js';
import { children, ensureServerBuilt, HttpClient, kill, startServer, type Server } from '../helpers/server-process.js';
import { ADMIN, PASSWORD, uniqueAccount } from '../helpers/test-app.js';

// Backups while the server runs and writes, restored and started again (README "Backups and restores"): on SQLite
// through `npm run db:backup` / `db:restore` (better-sqlite3's backup API), on PostgreSQL through pg_dump and
// pg_restore. After the restore every balance equals the sum of its entries and every transfer answered before the
// backup began is there.

const ROOT = resolve(import.meta.dirname, '../..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');

interface Ran {
  code: number | null;
  output: string;
}

function run(command: string, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', fail);
    child.once('exit', (code) => done({ code, output }));
  });
}

const npmScript = (script: 'backup' | 'restore', file: string, databasePath: string) =>
  run(TSX, [`src/server/cli/${script}.ts`, file], { DATABASE_URL: `sqlite:${databasePath}` });

/** Transfers among funded users until stopped, remembering when each answered. */
async function transferLoad(server: () => Server, count = 8) {
  const admin = new HttpClient(server);
  await admin.ok('userLogin', ADMIN);
  const users: { userAccount: string; client: HttpClient }[] = [];
  for (let i = 0; i < count; i++) {
    const userAccount = uniqueAccount('b');
    await admin.ok('userAdd', { userAccount, userPassword: PASSWORD });
    await admin.ok('userAddCoin', { userAccount, coin: 100_000, description: '期初' }, newKey());
    const client = new HttpClient(server);
    await client.ok('userLogin', { userAccount, userPassword: PASSWORD });
    users.push({ userAccount, client });
  }
  const answered: { reference: string; at: number }[] = [];
  let running = true;
  const loops = users.map(async (payer, i) => {
    while (running) {
      const payee = users[(i + 1 + Math.floor(Math.random() * (count - 1))) % count]!;
      const answer = await payer.client.call('userTransferCoin', { userAccount: payee.userAccount, coin: 1 }, newKey());
      if (answer.code === 0) answered.push({ reference: answer.data.reference, at: Date.now() });
    }
  });
  return {
    admin,
    answered,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

const waitFor = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(`backups while the server writes (${dbKind()})`, () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    await Promise.all([...children].map((child) => kill(child, 'SIGTERM')));
    for (const fn of cleanups.reverse()) await fn();
  });

  it.skipIf(dbKind() !== 'sqlite')(
    'SQLite: db:backup during transfers, db:restore into a fresh folder, start',
    async () => {
      await ensureServerBuilt();
      const db = await createTestDatabase('sqlite');
      cleanups.push(() => db.drop());
      if (db.config.kind !== 'sqlite') throw new Error('sqlite expected');
      const livePath = db.config.path;
      const secret = randomBytes(32).toString('base64url');
      const live = await startServer(db, secret);
      const load = await transferLoad(() => live);
      await waitFor(1000);

      const dir = mkdtempSync(join(tmpdir(), 'backup-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const file = join(dir, 'points-mall.backup');
      const began = Date.now();
      const backup = await npmScript('backup', file, livePath);
      await waitFor(300);
      await load.stop();
      expect(backup.code, backup.output).toBe(0);
      expect(backup.output).toMatch(/备份完成：.*完整性 ok，账本核对 ok/);
      const answeredBefore = load.answered.filter((a) => a.at < began).map((a) => a.reference);
      expect(answeredBefore.length).toBeGreaterThan(10);
      expect(load.answered.some((a) => a.at > began)).toBe(true); // the server kept writing during the backup

      // Not over a running server.
      const refused = await npmScript('restore', file, livePath);
      expect(refused.code).toBe(1);
      expect(refused.output).toContain('正在使用');

      // Into a fresh data folder, then started: the ledger holds, and every transfer answered before the backup is there.
      const fresh = mkdtempSync(join(tmpdir(), 'restored-'));
      cleanups.push(() => rmSync(fresh, { recursive: true, force: true }));
      const restoredPath = join(fresh, 'app.db');
      const restore = await npmScript('restore', file, restoredPath);
      expect(restore.code, restore.output).toBe(0);
      const restoredDb: TestDatabase = { config: { kind: 'sqlite', path: restoredPath }, drop: async () => {} };
      const restored = await startServer(restoredDb, secret);
      await expectRestored(restored, answeredBefore, async () => {
        const copy = new BetterSqlite3(restoredPath, { readonly: true });
        try {
          return (
            copy.prepare("select reference from coin_entries where kind = 'transfer_out'").all() as {
              reference: string;
            }[]
          ).map((r) => r.reference);
        } finally {
          copy.close();
        }
      });
      await kill(restored.child, 'SIGTERM');

      // Over an existing database (the server stopped): the one it replaces is kept beside it.
      const again = await npmScript('restore', file, restoredPath);
      expect(again.code, again.output).toBe(0);
      expect(again.output).toContain('原来的数据库保留为');
      expect(readdirSync(fresh).some((name) => name.startsWith('app.db.replaced-'))).toBe(true);
      expect(existsSync(restoredPath)).toBe(true);
    },
    180_000,
  );

  it.skipIf(dbKind() !== 'postgres')(
    'PostgreSQL: pg_dump during transfers, pg_restore into a new database, start',
    async () => {
      await ensureServerBuilt();
      const db = await createTestDatabase('postgres');
      cleanups.push(() => db.drop());
      if (db.config.kind !== 'postgres' || !db.config.schema) throw new Error('postgres schema expected');
      const schema = db.config.schema;
      const secret = randomBytes(32).toString('base64url');
      const live = await startServer(db, secret);
      const load = await transferLoad(() => live);
      await waitFor(1000);

      const dir = mkdtempSync(join(tmpdir(), 'pgdump-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const file = join(dir, 'points-mall.dump');
      const began = Date.now();
      // README "Backups and restores": the custom format, this schema only.
      const dump = await run('pg_dump', ['--format=custom', `--schema=${schema}`, `--file=${file}`, POSTGRES_URL]);
      await waitFor(300);
      await load.stop();
      expect(dump.code, dump.output).toBe(0);
      const answeredBefore = load.answered.filter((a) => a.at < began).map((a) => a.reference);
      expect(answeredBefore.length).toBeGreaterThan(10);

      const database = `restore_${process.pid}_${randomBytes(3).toString('hex')}`;
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      await admin.query(`create database ${database}`);
      cleanups.push(async () => {
        await admin.query(`drop database if exists ${database} with (force)`);
        await admin.end();
      });
      const target = new URL(POSTGRES_URL);
      target.pathname = `/${database}`;
      // A schema's dump leaves out the extensions it uses (README): the new database gets them first.
      const fresh = new pg.Client({ connectionString: target.toString() });
      await fresh.connect();
      await fresh.query('create extension if not exists pg_trgm');
      await fresh.end();
      const restore = await run('pg_restore', ['--no-owner', `--dbname=${target.toString()}`, file]);
      expect(restore.code, restore.output).toBe(0);
      const restoredDb: TestDatabase = {
        config: { kind: 'postgres', url: target.toString(), schema, poolSize: 5 },
        drop: async () => {},
      };
      const restored = await startServer(restoredDb, secret);
      await expectRestored(restored, answeredBefore, async () => {
        const client = new pg.Client({ connectionString: target.toString() });
        await client.connect();
        try {
          const { rows } = await client.query<{ reference: string }>(
            `select reference from ${schema}.coin_entries where kind = 'transfer_out'`,
          );
          return rows.map((r) => r.reference);
        } finally {
          await client.end();
        }
      });
      await kill(restored.child, 'SIGTERM');
    },
    180_000,
  );
});

/**
 * The restored server's ledger is consistent (checked by the app itself) and the restored database holds every one of
 * the transfers' references (read from it directly).
 */
async function expectRestored(server: Server, references: string[], stored: () => Promise<string[]>) {
  const admin = new HttpClient(() => server);
  await admin.ok('userLogin', ADMIN);
  const check = await admin.ok('coinLedgerCheck');
  expect(check.mismatches).toEqual([]);
  expect(check.entries).toBeGreaterThan(references.length);
  const have = new Set(await stored());
  expect(references.filter((r) => !have.has(r))).toEqual([]);
}
