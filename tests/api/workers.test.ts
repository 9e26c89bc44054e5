import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dbKind, type TestDatabase } from '../helpers/database.js';
import { expectLedgerConsistent, newKey } from '../helpers/ledger.js';
import { expectRunsSettledOnce, FINAL, members, runsOf, waitUntil } from '../helpers/multi-process.js';
import {
  children,
  ensureServerBuilt,
  HttpClient,
  inspect,
  kill,
  startServer,
  type Server,
} from '../helpers/server-process.js';
import { ADMIN, PASSWORD, uniqueAccount, type TestApp } from '../helpers/test-app.js';

// WORKERS=N: N server processes under node:cluster on one port and one PostgreSQL (src/server/cluster.ts). Requests
// spread over the workers, and what must hold across processes holds: a session started on one is good on the others,
// a login limit counts every worker's failures, and a scheduled or manual run is executed and charged once.

const ROOT = resolve(import.meta.dirname, '../..');

/** The pids of the workers that answered requests, read from their access logs (pino writes the pid on each line). */
function answeringPids(server: Server): Set<number> {
  const pids = new Set<number>();
  for (const line of server.output().split('\n')) {
    if (!line.includes('request completed')) continue;
    try {
      pids.add((JSON.parse(line) as { pid: number }).pid);
    } catch {
      // a line cut by the log buffer's start
    }
  }
  return pids;
}

describe(`WORKERS (${dbKind()})`, () => {
  let db: TestDatabase | undefined;
  let inspector: TestApp | undefined;

  afterAll(async () => {
    await Promise.all([...children].map((child) => kill(child, 'SIGTERM')));
    await inspector?.built.fastify.close();
    await db?.drop();
  });

  it('WORKERS>1 on SQLite is refused at start, saying why and what to do', async () => {
    await ensureServerBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'workers-'));
    try {
      const child = spawn(process.execPath, [join(ROOT, 'dist/server/main.js')], {
        cwd: dir,
        env: { PATH: process.env.PATH, WORKERS: '2', DATABASE_URL: `sqlite:${join(dir, 'app.db')}`, PORT: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((done) => child.once('exit', done));
      expect(code).toBe(1);
      expect(output).toContain('配置错误：WORKERS=2 needs PostgreSQL');
      expect(output).toContain('Keep WORKERS=1');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(dbKind() !== 'postgres')(
    'two workers on PostgreSQL: requests spread over both; sessions, login limits and runs hold across them',
    async () => {
      await ensureServerBuilt();
      db = await createTestDatabase();
      const secret = randomBytes(32).toString('base64url');
      const server = await startServer(db, secret, {
        WORKERS: '2',
        LOG_LEVEL: 'info',
        LOG_REQUESTS: 'true',
        SCHEDULER: 'on',
        SCHEDULER_POLL_MS: '50',
        SANDBOX_LATENCY_MS: '5',
        SANDBOX_FAILURE_PERCENT: '0',
      });
      const admin = new HttpClient(() => server);
      await admin.ok('userLogin', ADMIN);

      // One session, many connections at once: the primary hands them to both workers, and each accepts the session.
      const reads = await Promise.all(Array.from({ length: 40 }, () => admin.call('userGetLogin', undefined)));
      expect(reads.every((r) => r.code === 0 && r.data.userAccount === ADMIN.userAccount)).toBe(true);
      expect(answeringPids(server).size).toBe(2);

      // Five wrong passwords, spread over the workers, lock the account for all of them.
      const userAccount = uniqueAccount('w');
      await admin.ok('userAdd', { userAccount, userPassword: PASSWORD });
      const wrong = await Promise.all(
        Array.from({ length: 5 }, () =>
          new HttpClient(() => server).call('userLogin', { userAccount, userPassword: 'Wrong-Passw0rd' }),
        ),
      );
      expect(wrong.every((r) => r.code === 40000)).toBe(true);
      const locked = await new HttpClient(() => server).call('userLogin', { userAccount, userPassword: PASSWORD });
      expect(locked.code).not.toBe(0);

      // Runs: every service due at once plus taps on "run now", through both workers; each run executes and is
      // charged once.
      const team = await members(admin, () => [server], 8, { price: 1, retryLimit: 2 });
      inspector = await inspect(db);
      const ids = team.map((m) => m.serviceId);
      await inspector.built.context.db
        .updateTable('services')
        .set({ nextRunAt: Date.now() + 500 })
        .where('id', 'in', ids)
        .execute();
      await Promise.all(
        team.flatMap((m) => [1, 2, 3].map(() => m.client.ok('serviceRunNow', { id: m.serviceId }, newKey()))),
      );
      await waitUntil(
        'every run is final',
        async () => {
          const runs = await runsOf(inspector!, ids);
          return runs.length === ids.length * 4 && runs.every((r) => FINAL.includes(r.state));
        },
        60_000,
      );
      const runs = await runsOf(inspector, ids);
      expect(runs.every((r) => r.state === 'succeeded' && r.attempts === 1)).toBe(true);
      await expectRunsSettledOnce(inspector, runs, 1);
      await expectLedgerConsistent(inspector);

      // SIGTERM to the primary: both workers finish and the whole group exits cleanly.
      await kill(server.child, 'SIGTERM');
      expect(server.child.exitCode, server.output()).toBe(0);
    },
    180_000,
  );
});
