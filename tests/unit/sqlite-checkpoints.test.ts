import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { copyFileSync, existsSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/server/db/database.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { grant, idem, newKey } from '../helpers/ledger.js';
import { startTestApp } from '../helpers/test-app.js';

// SQLite's WAL checkpoints run in a worker thread, not inside the app's COMMITs (db/sqlite-checkpointer.ts). Under a
// stream of writes the WAL must stay bounded and the database file receive the pages; closing must end the worker and
// leave everything in the database file; a dead worker must hand checkpointing back to the writer. SQLite only, so a
// unit suite rather than an API suite (those run on both databases).

const BLOB = 'x'.repeat(60_000); // about 15 pages per row
const MAX_WAL = 512 * 1024;
const walSize = (path: string) => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);

describe('SQLite WAL checkpoints off the event loop', { timeout: 60_000 }, () => {
  let database: TestDatabase;
  let handle: DatabaseHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
    await database?.drop();
  });

  async function open(onFailure: (error: Error) => void = () => {}) {
    database = await createTestDatabase('sqlite');
    if (database.config.kind !== 'sqlite') throw new Error('a SQLite file was asked for');
    const config = { ...database.config, checkpointer: { intervalMs: 10, maxWalBytes: MAX_WAL } };
    handle = openDatabase(config, undefined, onFailure);
    await sql`create table scratch (id integer primary key, body text not null)`.execute(handle.db);
    return { handle, path: config.path };
  }

  /** Inserts `rows` rows of BLOB, a few at a time with pauses (as requests come), and answers the largest WAL seen. */
  async function writeStream(db: DatabaseHandle['db'], path: string, rows: number): Promise<number> {
    let largest = 0;
    for (let i = 0; i < rows; i++) {
      await sql`insert into scratch (body) values (${BLOB})`.execute(db);
      largest = Math.max(largest, walSize(path));
      if (i % 4 === 3) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return largest;
  }

  it('keeps the WAL bounded under a stream of writes while the database file receives the pages', async () => {
    const { handle, path } = await open();
    await handle.checkpointer!.stats(); // the worker is up (starting a thread takes a moment on a busy machine)
    const rows = 500; // about 30 MB through the WAL
    const largestWal = await writeStream(handle.db, path, rows);
    // The worker restarts the WAL near MAX_WAL; rows written while it waits for its turn on a busy machine pass that.
    expect(largestWal).toBeLessThan(20 * MAX_WAL);
    expect(statSync(path).size).toBeGreaterThan(rows * BLOB.length * 0.9);
    const stats = await handle.checkpointer!.stats();
    expect(stats.restarts).toBeGreaterThan(0);
  });

  it('ends the worker on close, leaving every page in the database file and no WAL', async () => {
    const { handle: opened, path } = await open();
    await writeStream(opened.db, path, 40);
    const worker = opened.checkpointer!.worker;
    const exited = once(worker, 'exit');
    handle = undefined;
    await opened.close();
    await exited; // the worker is gone: nothing keeps this process alive
    expect(worker.threadId).toBe(-1);
    expect(walSize(path)).toBe(0);
    // The database file alone, without any WAL beside it, holds every row.
    copyFileSync(path, `${path}.copy`);
    const fresh = new BetterSqlite3(`${path}.copy`, { readonly: true });
    try {
      expect(fresh.prepare('select count(*) as n from scratch').get()).toEqual({ n: 40 });
    } finally {
      fresh.close();
    }
  });

  it('hands checkpointing back to the writer when the worker dies, losing nothing', async () => {
    const failures: Error[] = [];
    const { handle, path } = await open((error) => failures.push(error));
    await writeStream(handle.db, path, 20);
    await handle.checkpointer!.worker.terminate();
    expect(failures).toHaveLength(1);
    // SQLite's own autocheckpoint (1000 pages, about 4 MB) bounds the WAL again: 24 MB go through it.
    const largestWal = await writeStream(handle.db, path, 400);
    expect(largestWal).toBeLessThan(6 * 1024 * 1024);
    const other = new BetterSqlite3(path, { readonly: true });
    try {
      expect(other.prepare('select count(*) as n from scratch').get()).toEqual({ n: 420 });
    } finally {
      other.close();
    }
  });

  it('runs no worker for an in-memory database', async () => {
    handle = openDatabase({ kind: 'sqlite', path: ':memory:' });
    expect(handle.checkpointer).toBeUndefined();
    await sql`select 1`.execute(handle.db);
  });

  it('the app starts one, its transfers reach the database file, and closing the app ends it', async () => {
    const app = await startTestApp();
    const path = app.db.config.kind === 'sqlite' ? app.db.config.path : '';
    try {
      const checkpointer = app.built.database.checkpointer!;
      expect(checkpointer).toBeDefined();
      const [payer, payee] = [await app.newUser(), await app.newUser()];
      await grant(app, payer.userAccount, 50);
      for (let i = 0; i < 20; i++) {
        const r = await payer.client.call('userTransferCoin', {
          body: { userAccount: payee.userAccount, coin: 1 },
          headers: idem(newKey()),
        });
        expect(r.code).toBe(0);
      }
      const exited = once(checkpointer.worker, 'exit');
      await app.built.fastify.close();
      await exited;
      expect(walSize(path)).toBe(0);
      const fresh = new BetterSqlite3(path, { readonly: true });
      try {
        const row = fresh.prepare('select coin from users where user_account = ?').get(payee.userAccount);
        expect(row).toEqual({ coin: 20 });
      } finally {
        fresh.close();
      }
    } finally {
      await app.db.drop();
    }
  });
});
