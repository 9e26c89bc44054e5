import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import type { OperationId } from '../../src/api/operations.js';
import { operationById } from './contract.js';
import type { TestDatabase } from './database.js';
import { freePort } from './ports.js';
import { buildApp } from '../../src/server/app.js';
import { ApiClient } from './client.js';
import { ADMIN, testConfig, type TestApp } from './test-app.js';

// The production server (dist/server/main.js) as a child process on a test's database: for tests that kill it, or run
// several at once.

const ROOT = resolve(import.meta.dirname, '../..');
const MAIN_JS = join(ROOT, 'dist/server/main.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * Builds the server bundle as `npm run build` does (codegen/build-server.mjs, server part only) when it is missing or
 * older than the sources. Written beside the target and renamed over it, so a test running at the same time in the
 * other project never starts a half-written file.
 */
export async function ensureServerBuilt(): Promise<void> {
  if (existsSync(MAIN_JS) && statSync(MAIN_JS).mtimeMs >= newestMtime(join(ROOT, 'src'))) return;
  const result = await build({
    entryPoints: [join(ROOT, 'src/server/main.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    outfile: MAIN_JS,
    logLevel: 'warning',
    write: false,
  });
  // The map first: main.js names it, and main.js is what decides whether a build is needed.
  const files = [...result.outputFiles].sort(
    (a, b) => Number(b.path.endsWith('.map')) - Number(a.path.endsWith('.map')),
  );
  mkdirSync(dirname(MAIN_JS), { recursive: true });
  for (const file of files) {
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
  }
}

export interface Server {
  child: ChildProcess;
  base: string;
  output(): string;
}

export const children = new Set<ChildProcess>();

/** Starts the built server on the database; `env` adds settings (the scheduler's, the sandbox's). */
export async function startServer(
  db: TestDatabase,
  sessionSecret: string,
  extra: Record<string, string> = {},
): Promise<Server> {
  // A port of the test's own choosing (a process restarted in its place behind a proxy), or a free one.
  const port = extra.PORT ? Number(extra.PORT) : await freePort();
  const base = `http://127.0.0.1:${port}`;
  // The server's settings are these alone, none inherited from the shell.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        !/^(DATABASE_|SESSION_SECRET|ADMIN_|LOG_|SMTP_|MAIL_|COOKIE_|TRUST_PROXY$|PUBLIC_ORIGIN$|PASSKEY_RP_ID$|WEB_ROOT$|PORT$|HOST$|SCHEDULER|SANDBOX_|TZ_SITE$)/.test(
          k,
        ),
    ),
  );
  Object.assign(env, {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: db.config.kind === 'sqlite' ? `sqlite:${db.config.path}` : db.config.url,
    ...(db.config.kind === 'postgres' && db.config.schema ? { DATABASE_SCHEMA: db.config.schema } : {}),
    SESSION_SECRET: sessionSecret,
    ADMIN_ACCOUNT: ADMIN.userAccount,
    ADMIN_PASSWORD: ADMIN.userPassword,
    // These tests sign the admin in with its password alone; `extra` may ask for `required` (e2e/two-factor.test.ts).
    ADMIN_2FA: 'optional',
    LOG_LEVEL: 'warn',
    WEB_ROOT: join(ROOT, 'dist/web'),
    ...extra,
  });
  const child = spawn(process.execPath, [MAIN_JS], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let log = '';
  child.stdout.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-20_000)));
  child.stderr.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-20_000)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the server exited (${child.exitCode ?? child.signalCode}) before answering:\n${log}`);
    if (Date.now() > deadline) throw new Error(`the server did not answer within 60 s:\n${log}`);
    try {
      const response = await fetch(`${base}/api/basicInformation/get?id=1`, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, base, output: () => log };
}

export function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      children.delete(child);
      done();
    });
    child.kill(signal);
  });
}

export interface Answer {
  status: number;
  code: number;
  message: string;
  data: any;
}

/** fetch with the session cookie; a transport failure (the server died under it) is an answer of status 0. */
export class HttpClient {
  cookie: string | undefined;
  constructor(private readonly server: () => Server) {}

  async call(operationId: OperationId, body: unknown, key?: string): Promise<Answer> {
    const op = operationById.get(operationId)!;
    const headers: Record<string, string> = {
      'x-requested-with': 'XMLHttpRequest',
      'content-type': 'application/json',
    };
    if (this.cookie) headers.cookie = this.cookie;
    if (key) headers['idempotency-key'] = key;
    try {
      const response = await fetch(`${this.server().base}${op.path}`, {
        method: op.method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      for (const c of response.headers.getSetCookie()) {
        const [pair] = c.split(';');
        if (pair?.startsWith('sid=')) this.cookie = pair;
      }
      const json = JSON.parse(await response.text());
      return { status: response.status, code: json.code, message: json.message, data: json.data };
    } catch (error) {
      return { status: 0, code: -1, message: (error as Error).message, data: null };
    }
  }

  async ok(operationId: OperationId, body?: unknown, key?: string): Promise<any> {
    const answer = await this.call(operationId, body, key);
    if (answer.code !== 0) throw new Error(`${operationId} failed: ${answer.status} ${answer.code} ${answer.message}`);
    return answer.data;
  }
}

/**
 * The app built in the test's own process on a child server's database (its scheduler not started), to read the
 * database and check the ledger as `TestApp` does. Close `built.fastify` afterwards.
 */
export async function inspect(db: TestDatabase): Promise<TestApp> {
  const built = await buildApp(testConfig(db.config), { logger: false });
  let admin: ApiClient | undefined;
  return {
    built,
    async admin() {
      if (!admin) {
        admin = new ApiClient(built.fastify);
        await admin.ok('userLogin', { body: ADMIN });
      }
      return admin;
    },
  } as unknown as TestApp;
}
