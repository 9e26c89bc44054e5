import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Agent, fetch } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dbKind, type TestDatabase } from '../helpers/database.js';
import { entriesOf, expectLedgerConsistent, newKey } from '../helpers/ledger.js';
import { freePort } from '../helpers/ports.js';
import { findProgram } from '../helpers/programs.js';
import { children, ensureServerBuilt, inspect, kill, startServer, type Server } from '../helpers/server-process.js';
import { ADMIN, PASSWORD, uniqueAccount, type TestApp } from '../helpers/test-app.js';

// docs/deploy.md's nginx, with the guide's own file (docs/deploy/nginx.conf) in front of real server processes: TLS
// at nginx and a Secure cookie behind it, the client address from X-Forwarded-For only when TRUST_PROXY says so, the
// event stream and CSV downloads passed through, and (several processes on PostgreSQL) a rolling restart that loses
// no request.

const ROOT = resolve(import.meta.dirname, '../..');
// In CI a missing nginx has already failed the run (vitest.config.ts); elsewhere these tests are skipped.
const NGINX = findProgram('nginx');
const withNginx = NGINX !== undefined || process.env.CI === 'true';
if (!withNginx) console.warn('⚠ no nginx (apt-get install nginx-light): the behind-nginx tests are skipped');

interface Proxy {
  child: ChildProcess;
  base: string;
  dir: string;
}

/** nginx running the guide's site file, its upstream servers and TLS certificate replaced by the test's. */
async function startNginx(backends: number[]): Promise<Proxy> {
  const dir = mkdtempSync(join(tmpdir(), 'nginx-'));
  chmodSync(dir, 0o755);
  for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, temp), { mode: 0o777 });
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const port = await freePort();
  const plain = await freePort();
  const site = readFileSync(join(ROOT, 'docs/deploy/nginx.conf'), 'utf8')
    .replace(/^\s*server 127\.0\.0\.1:\d+ max_fails=0;\n/gm, '')
    .replace(
      'keepalive 32;',
      `${backends.map((b) => `server 127.0.0.1:${b} max_fails=0;`).join('\n    ')}\n    keepalive 32;`,
    )
    .replace('listen 80;', `listen 127.0.0.1:${plain};`)
    .replace('listen 443 ssl http2;', `listen 127.0.0.1:${port} ssl http2;`)
    .replace(/ssl_certificate\s+\S+;/, `ssl_certificate ${join(dir, 'cert.pem')};`)
    .replace(/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${join(dir, 'key.pem')};`);
  expect(site).toContain(`127.0.0.1:${backends[0]}`);
  writeFileSync(join(dir, 'site.conf'), site);
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off;
user root;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
  include ${join(dir, 'site.conf')};
}
`,
  );
  const child = spawn(NGINX ?? 'nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const base = `https://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 15_000; ;) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${output}`);
    try {
      await fetch(`${base}/api/health`, { dispatcher: client('127.0.0.1') });
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`nginx did not answer: ${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { child, base, dir };
}

const agents = new Map<string, Agent>();
/** HTTPS from a loopback address of our choosing (the whole 127/8 is loopback), trusting the test's own certificate. */
function client(localAddress: string): Agent {
  let agent = agents.get(localAddress);
  if (!agent) {
    agent = new Agent({ localAddress, connect: { rejectUnauthorized: false } });
    agents.set(localAddress, agent);
  }
  return agent;
}

async function call(
  proxy: Proxy,
  path: string,
  {
    from = '127.0.0.1',
    body,
    cookie,
    key,
    headers = {},
  }: { from?: string; body?: unknown; cookie?: string; key?: string; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${proxy.base}${path}`, {
    dispatcher: client(from),
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      'x-requested-with': 'XMLHttpRequest',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(cookie ? { cookie } : {}),
      ...(key ? { 'idempotency-key': key } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json = response.headers.get('content-type')?.includes('json')
    ? (JSON.parse(text) as { code: number; data: any })
    : null;
  return { status: response.status, headers: response.headers, text, code: json?.code, data: json?.data };
}

async function signIn(proxy: Proxy, userAccount: string, userPassword: string) {
  const answer = await call(proxy, '/api/user/login', { body: { userAccount, userPassword } });
  expect(answer.code).toBe(0);
  const setCookie = answer.headers.getSetCookie().find((c) => c.startsWith('sid='))!;
  return { setCookie, cookie: setCookie.split(';')[0]! };
}

/** Failed sign-ins of accounts that do not exist, from one client address: only the address's limit counts them. */
const failFrom = (proxy: Proxy, from: string, headers: Record<string, string> = {}) =>
  call(proxy, '/api/user/login', {
    from,
    headers,
    body: { userAccount: uniqueAccount('x'), userPassword: 'Wrong-Passw0rd' },
  });

describe.skipIf(!withNginx)(`behind nginx, the deploy guide's own config (${dbKind()})`, () => {
  let db: TestDatabase | undefined;
  let inspector: TestApp | undefined;
  let proxy: Proxy | undefined;
  afterAll(async () => {
    await Promise.all([...children].map((child) => kill(child, 'SIGTERM')));
    await inspector?.built.fastify.close();
    await db?.drop();
    if (proxy) rmSync(proxy.dir, { recursive: true, force: true });
  });

  it('TLS at nginx with a Secure cookie, client addresses from X-Forwarded-For only with TRUST_PROXY, events and CSV passed on, a rolling restart that loses nothing', async () => {
    await ensureServerBuilt();
    db = await createTestDatabase();
    const secret = randomBytes(32).toString('base64url');
    // Several processes on PostgreSQL; SQLite has one writer, so one process.
    const count = dbKind() === 'postgres' ? 2 : 1;
    const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
    const env = (port: number, trust: string) => ({
      PORT: String(port),
      COOKIE_SECURE: 'true',
      TRUST_PROXY: trust,
      // The guide's settings: the https address people open (passkeys are bound to it).
      PUBLIC_ORIGIN: 'https://localhost',
    });
    const servers: Server[] = [];
    for (const port of ports) servers.push(await startServer(db, secret, env(port, 'true')));
    proxy = await startNginx(ports);

    // The session cookie is Secure (and HttpOnly) behind the TLS proxy, and good on every process.
    const admin = await signIn(proxy, ADMIN.userAccount, ADMIN.userPassword);
    expect(admin.setCookie).toMatch(/; Secure/i);
    expect(admin.setCookie).toMatch(/; HttpOnly/i);
    for (let i = 0; i < 4; i++)
      expect((await call(proxy, '/api/user/get/login', { cookie: admin.cookie })).code).toBe(0);

    // TRUST_PROXY=true: each client is its own address. 20 failures lock 127.0.0.2 out, whatever it claims to be;
    // 127.0.0.3 is not affected.
    for (let i = 0; i < 20; i++) expect((await failFrom(proxy, '127.0.0.2')).code).toBe(40000);
    expect((await failFrom(proxy, '127.0.0.2', { 'x-forwarded-for': '203.0.113.9' })).code).toBe(42900);
    expect((await failFrom(proxy, '127.0.0.3')).code).toBe(40000);

    // The event stream comes through as it is written: its ready event, then one caused afterwards.
    const user = uniqueAccount('n');
    await call(proxy, '/api/user/add', { cookie: admin.cookie, body: { userAccount: user, userPassword: PASSWORD } });
    const member = await signIn(proxy, user, PASSWORD);
    const stream = await fetch(`${proxy.base}/api/events`, {
      dispatcher: client('127.0.0.1'),
      headers: { cookie: member.cookie, accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    const until = async (text: string, ms: number) => {
      const deadline = Date.now() + ms;
      while (!seen.includes(text)) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`"${text}" did not come through within ${ms} ms; got: ${seen}`);
        const chunk = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), left))]);
        if (chunk && !chunk.done) seen += decoder.decode(chunk.value, { stream: true });
      }
    };
    await until('"kind":"ready"', 3000);
    await call(proxy, '/api/user/addCoin', {
      cookie: admin.cookie,
      key: newKey(),
      body: { userAccount: user, coin: 10, description: '期初' },
    });
    await until('"kind":"balance"', 3000);
    await reader.cancel();

    // A CSV download: the app's file, whole, with its headers.
    const csv = await call(proxy, '/api/coin/entries/export', { cookie: member.cookie });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename=/);
    expect(csv.text).toContain('期初');
    // /metrics is not on the public site.
    expect((await call(proxy, '/metrics')).status).toBe(404);

    // A rolling restart under load (one process at a time; on SQLite its one process, with no load): the new
    // processes come up with TRUST_PROXY off. Nothing is lost, and every transfer answered is in the ledger once.
    const payers = await Promise.all(
      [0, 1, 2].map(async () => {
        const account = uniqueAccount('r');
        await call(proxy!, '/api/user/add', {
          cookie: admin.cookie,
          body: { userAccount: account, userPassword: PASSWORD },
        });
        await call(proxy!, '/api/user/addCoin', {
          cookie: admin.cookie,
          key: newKey(),
          body: { userAccount: account, coin: 10_000, description: '期初' },
        });
        return { account, cookie: (await signIn(proxy!, account, PASSWORD)).cookie };
      }),
    );
    const failures: string[] = [];
    const references: string[] = [];
    let running = count > 1;
    const load = payers.map(async (payer, i) => {
      while (running) {
        const payee = payers[(i + 1) % payers.length]!;
        const transfer = await call(proxy!, '/api/user/transferCoin', {
          cookie: payer.cookie,
          key: newKey(),
          body: { userAccount: payee.account, coin: 1 },
        }).catch((error: Error) => ({ status: 0, code: -1, data: error.message }));
        if (transfer.code === 0) references.push(transfer.data.reference);
        else failures.push(`transfer ${transfer.status} ${transfer.code}`);
        const read = await call(proxy!, '/api/user/get/login', { cookie: payer.cookie }).catch(() => ({
          code: -1,
          status: 0,
        }));
        if (read.code !== 0) failures.push(`get/login ${read.status} ${read.code}`);
      }
    });
    for (const [i, server] of servers.entries()) {
      await new Promise((r) => setTimeout(r, 500));
      await kill(server.child, 'SIGTERM');
      expect(server.child.exitCode, server.output()).toBe(0);
      servers[i] = await startServer(db, secret, env(ports[i]!, 'false'));
    }
    await new Promise((r) => setTimeout(r, 500));
    running = false;
    await Promise.all(load);
    expect(failures).toEqual([]);
    if (count > 1) expect(references.length).toBeGreaterThan(20);
    inspector = await inspect(db);
    const entries = (await entriesOf(inspector)).filter((e) => e.kind === 'transfer_out');
    const seen_ = new Map<string, number>();
    for (const e of entries) seen_.set(e.reference, (seen_.get(e.reference) ?? 0) + 1);
    expect(references.filter((r) => seen_.get(r) !== 1)).toEqual([]);
    await expectLedgerConsistent(inspector);

    // TRUST_PROXY off: every client looks like nginx itself, so 127.0.0.5 pays for 127.0.0.4's failures.
    for (let i = 0; i < 20; i++) expect((await failFrom(proxy, '127.0.0.4')).code).toBe(40000);
    expect((await failFrom(proxy, '127.0.0.5')).code).toBe(42900);
  }, 240_000);
});
