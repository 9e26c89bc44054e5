import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from '../helpers/ports.js';

// The e2e project's global setup: build once, start the production server (dist/server/main.js) on a free loopback
// port with a fresh SQLite database in a temp dir, and hand its address to the tests (`inject('baseUrl')`). The
// teardown stops the server and removes the temp dir.

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    adminPassword: string;
  }
}

const ROOT = resolve(import.meta.dirname, '../..');
const ADMIN_PASSWORD = 'AdminPassw0rd!';

async function waitUntilAnswering(
  url: string,
  child: ChildProcess,
  output: () => string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the server exited (${child.exitCode ?? child.signalCode}) before answering:\n${output()}`);
    }
    try {
      const response = await fetch(`${url}/api/basicInformation/get?id=1`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the server did not answer ${url} within ${timeoutMs} ms:\n${output()}`);
}

export default async function setup(project: TestProject) {
  if (process.env.E2E_SKIP_BUILD !== '1') {
    const build = spawnSync(process.execPath, ['codegen/build-server.mjs'], { cwd: ROOT, stdio: 'inherit' });
    if (build.status !== 0) throw new Error(`the build failed (exit ${build.status})`);
  }
  if (!existsSync(join(ROOT, 'dist/web/index.html'))) throw new Error('dist/web is missing: run `npm run build`');
  const dir = mkdtempSync(join(tmpdir(), 'points-mall-e2e-'));
  writeFileSync(join(dir, 'secret'), `${crypto.randomUUID()}${crypto.randomUUID()}`, { mode: 0o600 });
  const port = await freePort();
  // The tests open the site where its PUBLIC_ORIGIN says it is, as a phone would: a payment channel's cashier and
  // the way back from it (return_url) are addresses on that origin, and the session cookie follows only there. The
  // server listens on 127.0.0.1; localhost is the name PUBLIC_ORIGIN may have (it refuses an IP address).
  const baseUrl = `http://localhost:${port}`;
  let log = '';
  // The server's settings are these alone: none inherited from the shell (a SESSION_SECRET or COOKIE_SECURE there
  // would change what the tests meet).
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) =>
        !/^(SESSION_SECRET|ADMIN_ACCOUNT|DATABASE_|COOKIE_SECURE|TRUST_PROXY|PUBLIC_ORIGIN|PASSKEY_RP_ID|SMTP_URL|MAIL_FROM|LOG_REQUESTS)/.test(
          key,
        ),
    ),
  );
  const child = spawn(process.execPath, ['dist/server/main.js'], {
    cwd: ROOT,
    env: {
      ...inherited,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_ORIGIN: baseUrl,
      DATABASE_URL: `sqlite:${join(dir, 'app.db')}`,
      SESSION_SECRET_FILE: join(dir, 'secret'),
      ADMIN_PASSWORD,
      // The suites sign the admin in with its password alone; two-factor.test.ts starts its own server with `required`.
      ADMIN_2FA: 'optional',
      LOG_LEVEL: 'warn',
      WEB_ROOT: join(ROOT, 'dist/web'),
      // The scheduler runs in this server: it looks for due runs often, and the sandbox platform answers quickly and
      // never fails at random, so a run started from a screen ends within a second or two, always the same way.
      SCHEDULER_POLL_MS: '200',
      SANDBOX_LATENCY_MS: '50',
      SANDBOX_FAILURE_PERCENT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    log += chunk.toString();
    process.stderr.write(chunk); // warnings and errors of the server show in the test output
  });

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await waitUntilAnswering(baseUrl, child, () => log);
  } catch (error) {
    await stop();
    throw error;
  }

  project.provide('baseUrl', baseUrl);
  project.provide('adminPassword', ADMIN_PASSWORD);
  return stop;
}
