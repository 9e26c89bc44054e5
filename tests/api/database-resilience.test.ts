import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applicationName } from '../../src/server/db/database.js';
import { migrations } from '../../src/server/db/migrations/index.js';
import type { CallResult } from '../helpers/client.js';
import { dbKind, POSTGRES_URL } from '../helpers/database.js';
import { balanceOf, expectLedgerConsistent, grant, idem } from '../helpers/ledger.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The database may be locked by another process, may drop its connections or refuse new ones. A request then gets a
 * clean 503 envelope (never a hang, never a crash), other requests keep being served, and the app recovers by itself.
 */

const postgresUrl = new URL(POSTGRES_URL);

const expectUnavailable = (r: CallResult) => {
  expect([r.status, r.code, r.data]).toEqual([503, 50000, null]);
  expect(r.message).toMatch(/请稍后再试/);
  expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
};

/** Holds the database's write lock from a second connection, as a backup or the sqlite3 shell would. */
async function holdWriteLock(app: TestApp, postgresMode = 'exclusive'): Promise<() => Promise<void>> {
  const config = app.db.config;
  if (config.kind === 'sqlite') {
    const other = new BetterSqlite3(config.path);
    other.exec('BEGIN EXCLUSIVE');
    return async () => {
      other.exec('COMMIT');
      other.close();
    };
  }
  const other = new pg.Client({ connectionString: POSTGRES_URL });
  await other.connect();
  await other.query(`begin; lock table ${config.schema}.site_information in ${postgresMode} mode`);
  return async () => {
    await other.query('commit');
    await other.end();
  };
}

const appName = (app: TestApp) => applicationName(app.db.config.kind === 'postgres' ? app.db.config.schema : undefined);

/** Resolves once one of the app's PostgreSQL backends is waiting for a lock. */
async function blockedOnLock(app: TestApp): Promise<void> {
  const other = new pg.Client({ connectionString: POSTGRES_URL });
  await other.connect();
  try {
    for (;;) {
      const { rows } = await other.query(
        "select count(*)::int as n from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'",
        [appName(app)],
      );
      if (rows[0].n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await other.end();
  }
}

describe('health', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  it('answers liveness without the database, and readiness with a round trip and the latest migration', async () => {
    expect(await app.client().ok('healthGet')).toEqual({ status: 'ok' });
    const ready = await app.client().ok('healthGet', { query: { ready: true } });
    expect(ready).toEqual({
      status: 'ok',
      database: { kind: dbKind(), migration: expect.stringMatching(/^2026_11_2\d_\d{4}_/) },
    });
    expect(ready.database.migration).toBe(Object.keys(migrations).sort().at(-1));
  });
});

describe('a write lock held by another connection', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({}, { database: (c) => ({ ...c, lockTimeoutMs: 3000 }) });
  });
  afterAll(() => app?.close());

  const update = async (noticeBar: string) =>
    (await app.admin()).call('basicInformationUpdate', { body: { id: 1, noticeBar } });
  const publicRead = () => app.client().call('basicInformationGet', { query: { id: 1 } });

  it('lets public reads answer while a write waits for it, and the write goes through once it is released', async () => {
    await app.admin();
    const release = await holdWriteLock(app);
    // Six minutes on, the admin's session is due to slide forward: the write's very first statement is a write.
    app.clock.advance(6 * 60_000);
    const write = update('锁释放之后');
    let settled = false;
    void write.finally(() => (settled = true));
    if (dbKind() === 'postgres') await blockedOnLock(app);
    // Reads one after another while the write waits (on SQLite a blocking wait would stall them until it gave up).
    for (let i = 0; i < 10; i++) expect((await publicRead()).code).toBe(0);
    expect(settled).toBe(false);
    await release();
    expect((await write).code).toBe(0);
    expect((await publicRead()).data.noticeBar).toBe('锁释放之后');
  });

  it('answers 503 / 50000 with Retry-After when the lock outlasts the lock timeout, and nothing is written', async () => {
    await app.admin();
    const release = await holdWriteLock(app);
    try {
      expectUnavailable(await update('不该写入'));
    } finally {
      await release();
    }
    expect((await publicRead()).data.noticeBar).toBe('锁释放之后');
  });
});

describe.runIf(dbKind() === 'postgres')('PostgreSQL time limits', () => {
  let tight: TestApp;
  let onePool: TestApp;
  beforeAll(async () => {
    tight = await startTestApp({}, { database: (c) => ({ ...c, statementTimeoutMs: 300, lockTimeoutMs: 60_000 }) });
    onePool = await startTestApp(
      {},
      { database: (c) => ({ ...c, poolSize: 1, acquireTimeoutMs: 300, lockTimeoutMs: 60_000 }) },
    );
  });
  afterAll(async () => {
    await tight?.close();
    await onePool?.close();
  });

  it('ends a statement that runs past the statement timeout with 503 / 50000', async () => {
    // Even reads wait behind an ACCESS EXCLUSIVE lock (a migration, a VACUUM FULL): the statement timeout ends the wait.
    const release = await holdWriteLock(tight, 'access exclusive');
    try {
      expectUnavailable(await tight.client().call('basicInformationGet', { query: { id: 1 } }));
    } finally {
      await release();
    }
    expect((await tight.client().call('basicInformationGet', { query: { id: 1 } })).code).toBe(0);
  });

  it('answers 503 / 50000 when no pooled connection frees up within the acquire timeout', async () => {
    const admin = await onePool.admin();
    const release = await holdWriteLock(onePool);
    // The write holds the pool's only connection while it waits for the lock; the read cannot get one.
    const write = admin.call('basicInformationUpdate', { body: { id: 1, noticeBar: '等到了连接' } });
    await blockedOnLock(onePool);
    try {
      expectUnavailable(await onePool.client().call('basicInformationGet', { query: { id: 1 } }));
    } finally {
      await release();
    }
    expect((await write).code).toBe(0);
    expect((await onePool.client().call('basicInformationGet', { query: { id: 1 } })).data.noticeBar).toBe(
      '等到了连接',
    );
  });
});

describe.runIf(dbKind() === 'postgres')('PostgreSQL connections lost', () => {
  let app: TestApp;
  let proxy: TcpProxy;
  beforeAll(async () => {
    proxy = await TcpProxy.start({ host: postgresUrl.hostname, port: Number(postgresUrl.port || 5432) });
    app = await startTestApp(
      {},
      {
        database: (c) => {
          const url = new URL(POSTGRES_URL);
          url.host = `127.0.0.1:${proxy.port}`;
          return { ...c, url: url.toString(), acquireTimeoutMs: 2000 };
        },
      },
    );
  });
  afterAll(async () => {
    await proxy?.restore();
    await app?.close();
    await proxy?.cut();
  });

  it('survives the server ending its backends (pg_terminate_backend), then serves on new connections', async () => {
    const admin = await app.admin();
    expect((await admin.call('userGetLogin')).code).toBe(0);
    const other = new pg.Client({ connectionString: POSTGRES_URL });
    await other.connect();
    try {
      // Only this app's own backends: other test runs share the database.
      const ended = await other.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
        [appName(app)],
      );
      expect(ended.rowCount).toBeGreaterThan(0);
    } finally {
      await other.end();
    }
    // The process is still here (an unhandled pool 'error' would have failed this file), and recovers on its own:
    // a request may still meet a pooled connection whose end has not been noticed yet (a clean 503, each such
    // connection once), and then the pool opens new ones.
    for (let attempt = 0; ; attempt++) {
      const r = await admin.call('userGetLogin');
      if (r.code === 0) break;
      expectUnavailable(r);
      expect(attempt).toBeLessThan(5);
    }
  });

  it('answers 503 / 50000 with Retry-After while the database refuses connections, and recovers when it is back', async () => {
    const admin = await app.admin();
    await proxy.cut();
    expectUnavailable(await app.client().call('basicInformationGet', { query: { id: 1 } }));
    expectUnavailable(await app.client().call('healthGet', { query: { ready: true } }));
    expect((await app.client().call('healthGet')).code).toBe(0);
    expectUnavailable(await admin.call('userGetLogin'));
    await proxy.restore();
    expect((await app.client().call('healthGet', { query: { ready: true } })).code).toBe(0);
    expect((await app.client().call('basicInformationGet', { query: { id: 1 } })).code).toBe(0);
    expect((await admin.call('userGetLogin')).code).toBe(0);
  });
});

// PostgreSQL ends one of two transactions that wait on each other (deadlock, 40P01) or that cannot be serialised
// (40001). That is the database asking for the request again, not a fault of the server: the phone must hear "try
// again" (503 / 50000 with Retry-After), never 500. A trigger makes the database answer so on demand.
describe.runIf(dbKind() === 'postgres')('a transaction PostgreSQL gives up on', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it.each([
    ['a deadlock', '40P01'],
    ['a serialization failure', '40001'],
  ])('answers %s with 503 / 50000 and Retry-After, moving nothing', async (_, state) => {
    const a = app;
    const payer = await a.newUser();
    const payee = await a.newUser();
    await grant(a, payer.userAccount, 50);
    const db = a.built.context.db;
    await sql`create or replace function test_refuse() returns trigger language plpgsql as $$
      begin raise exception 'provoked' using errcode = ${sql.lit(state)}; end $$`.execute(db);
    await sql`create trigger test_refuse before insert on coin_entries
      for each row execute function test_refuse()`.execute(db);
    try {
      const refused = await payer.client.call('userTransferCoin', {
        body: { userAccount: payee.userAccount, coin: 10 },
        headers: idem(),
      });
      expect([refused.status, refused.code]).toEqual([503, 50000]);
      expect(refused.message).toBe('服务器繁忙，请稍后再试');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await sql`drop trigger test_refuse on coin_entries`.execute(db);
      await sql`drop function test_refuse()`.execute(db);
    }
    expect(await balanceOf(a, payer.id)).toBe(50);
    await expectLedgerConsistent(a);
  });
});
