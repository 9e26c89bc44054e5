import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import type { OperationId } from '../../src/api/operations.js';
import { buildApp, type BuiltApp } from '../../src/server/app.js';
import { ApiClient } from '../helpers/client.js';
import { operationById } from '../helpers/contract.js';
import { createTestDatabase, dbKind, type TestDatabase } from '../helpers/database.js';
import { entriesOf, expectLedgerConsistent } from '../helpers/ledger.js';
import { ADMIN, PASSWORD, testConfig, uniqueAccount, type TestApp } from '../helpers/test-app.js';
import { freePort } from '../helpers/ports.js';

// The production server (dist/server/main.js) in a child process on this test's database, killed with SIGKILL in the
// middle of a concurrent transfer load, then started again on the same database. Whatever was in flight either
// committed whole or not at all: the invariants hold, no transfer has one side without the other, and a request
// retried with its key after the restart either replays the stored answer or, if it never committed, runs once.

const ROOT = resolve(import.meta.dirname, '../..');
const MAIN_JS = join(ROOT, 'dist/server/main.js');
const USERS = 12;
const OPENING_BALANCE = 2000;
const WORKERS = 16;
/** The kill comes after this many answered transfers (or after KILL_AFTER_MS, whichever is first). */
const KILL_AFTER_TRANSFERS = 300;
const KILL_AFTER_MS = 4000;

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
async function ensureServerBuilt(): Promise<void> {
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
  const files = [...result.outputFiles].sort((a, b) => Number(b.path.endsWith('.map')) - Number(a.path.endsWith('.map')));
  for (const file of files) {
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
  }
}


interface Server {
  child: ChildProcess;
  base: string;
  output(): string;
}

const children = new Set<ChildProcess>();

async function startServer(db: TestDatabase, sessionSecret: string): Promise<Server> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // The server's settings are these alone, none inherited from the shell.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(DATABASE_|SESSION_SECRET|ADMIN_|LOG_|SMTP_|MAIL_|COOKIE_|TRUST_PROXY$|WEB_ROOT$|PORT$|HOST$)/.test(k)),
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
    LOG_LEVEL: 'warn',
    WEB_ROOT: join(ROOT, 'dist/web'),
  });
  const child = spawn(process.execPath, [MAIN_JS], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let log = '';
  child.stdout.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-20_000)));
  child.stderr.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-20_000)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited (${child.exitCode ?? child.signalCode}) before answering:\n${log}`);
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

function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
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

interface Answer {
  status: number;
  code: number;
  message: string;
  data: any;
}

/** fetch with the session cookie; a transport failure (the server died under it) is an answer of status 0. */
class HttpClient {
  cookie: string | undefined;
  constructor(private readonly server: () => Server) {}

  async call(operationId: OperationId, body: unknown, key?: string): Promise<Answer> {
    const op = operationById.get(operationId)!;
    const headers: Record<string, string> = { 'x-requested-with': 'XMLHttpRequest', 'content-type': 'application/json' };
    if (this.cookie) headers.cookie = this.cookie;
    if (key) headers['idempotency-key'] = key;
    try {
      const response = await fetch(`${this.server().base}${op.path}`, { method: op.method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
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

interface Transfer {
  key: string;
  payer: Member;
  payee: Member;
  coin: number;
  first: Answer;
  retry?: Answer;
}

interface Member {
  id: number;
  userAccount: string;
  client: HttpClient;
}

/** The ledger's state straight from the database: balances, entries, and the recorded idempotency keys. */
async function snapshot(app: TestApp) {
  const db = app.built.context.db;
  const users = await db.selectFrom('users').select(['id', 'coin']).execute();
  const entries = await entriesOf(app);
  const keys = await db.selectFrom('idempotencyKeys').select(['actorId', 'key', 'operation', 'response']).execute();
  return { balances: new Map(users.map((u) => [Number(u.id), Number(u.coin)])), entries, keys };
}

/** Transfer entries by reference; every reference must hold one transfer_out and one transfer_in of the opposite amount. */
function halfApplied(entries: Awaited<ReturnType<typeof entriesOf>>): string[] {
  const byReference = new Map<string, typeof entries>();
  for (const e of entries) if (e.kind === 'transfer_out' || e.kind === 'transfer_in') (byReference.get(e.reference) ?? byReference.set(e.reference, []).get(e.reference)!).push(e);
  const problems: string[] = [];
  for (const [reference, pair] of byReference) {
    const out = pair.filter((e) => e.kind === 'transfer_out');
    const into = pair.filter((e) => e.kind === 'transfer_in');
    if (out.length !== 1 || into.length !== 1) problems.push(`${reference}: ${out.length} out, ${into.length} in`);
    else if (out[0]!.amount !== -into[0]!.amount || out[0]!.userId !== into[0]!.counterpartyId || into[0]!.userId !== out[0]!.counterpartyId) {
      problems.push(`${reference}: ${JSON.stringify(out[0])} / ${JSON.stringify(into[0])}`);
    }
  }
  return problems;
}

describe(`the production server killed mid-transfer (${dbKind()})`, () => {
  let db: TestDatabase | undefined;
  let inspector: BuiltApp | undefined;

  afterAll(async () => {
    await Promise.all([...children].map((child) => kill(child, 'SIGKILL')));
    await inspector?.fastify.close();
    await db?.drop();
  });

  it('SIGKILL under load leaves no transfer half applied, and retries after the restart replay or run once', async () => {
    await ensureServerBuilt();
    db = await createTestDatabase();
    const sessionSecret = randomBytes(32).toString('base64url');
    let server = await startServer(db, sessionSecret);
    const current = () => server;

    const admin = new HttpClient(current);
    await admin.ok('userLogin', ADMIN);
    const members: Member[] = [];
    for (let i = 0; i < USERS; i++) {
      const userAccount = uniqueAccount('k');
      const id: number = await admin.ok('userAdd', { userAccount, userPassword: PASSWORD });
      const client = new HttpClient(current);
      await client.ok('userLogin', { userAccount, userPassword: PASSWORD });
      await admin.ok('userAddCoin', { userAccount, coin: OPENING_BALANCE, description: '期初余额' }, `open-${id}-${randomBytes(6).toString('hex')}`);
      members.push({ id, userAccount, client });
    }

    // The load: transfers between random members, each with its own key, until the server dies under them.
    const transfers: Transfer[] = [];
    let answered = 0;
    const load = Promise.all(
      Array.from({ length: WORKERS }, async (_, w) => {
        for (let n = 0; ; n++) {
          const payer = members[Math.floor(Math.random() * members.length)]!;
          const others = members.filter((m) => m !== payer);
          const payee = others[Math.floor(Math.random() * others.length)]!;
          const coin = 1 + Math.floor(Math.random() * 120);
          const key = `crash-${w}-${n}-${randomBytes(4).toString('hex')}`;
          const t: Transfer = { key, payer, payee, coin, first: { status: -1, code: -1, message: 'in flight', data: null } };
          transfers.push(t);
          t.first = await payer.client.call('userTransferCoin', { userAccount: payee.userAccount, coin }, key);
          if (t.first.status === 0) return; // the server is gone
          answered++;
        }
      }),
    );
    const started = Date.now();
    while (answered < KILL_AFTER_TRANSFERS && Date.now() - started < KILL_AFTER_MS) await new Promise((r) => setTimeout(r, 5));
    server.child.kill('SIGKILL');
    await load;
    await new Promise<void>((r) => (server.child.exitCode !== null || server.child.signalCode !== null ? r() : server.child.once('exit', () => r())));
    children.delete(server.child);
    expect(server.child.signalCode).toBe('SIGKILL');

    const answeredOk = transfers.filter((t) => t.first.code === 0);
    const refused = transfers.filter((t) => t.first.status > 0 && t.first.code !== 0);
    const lost = transfers.filter((t) => t.first.status === 0);
    // Before the kill, every answer is a success or 积分不足; never a server error.
    expect(refused.filter((t) => t.first.status !== 400 || t.first.code !== 40000).map((t) => t.first)).toEqual([]);
    expect(answeredOk.length).toBeGreaterThan(0);
    // The workers were all waiting on an answer when the server died: those requests may or may not have committed.
    expect(lost.length).toBeGreaterThan(0);

    // Restarted on the same database (same session secret: the sessions in the database stay valid).
    server = await startServer(db, sessionSecret);
    inspector = await buildApp(testConfig(db.config), { logger: false });
    const built = inspector;
    let inspectorAdmin: ApiClient | undefined;
    const app = {
      built,
      async admin() {
        if (!inspectorAdmin) {
          inspectorAdmin = new ApiClient(built.fastify);
          await inspectorAdmin.ok('userLogin', { body: ADMIN });
        }
        return inspectorAdmin;
      },
    } as unknown as TestApp;

    // Right after the restart, before any retry: the ledger is whole.
    await expectLedgerConsistent(app);
    const before = await snapshot(app);
    expect(halfApplied(before.entries), 'transfers half applied after the crash').toEqual([]);
    const transferKeys = before.keys.filter((k) => k.operation === 'transfer');
    // A recorded key always carries its answer (recorded in the same transaction as the movement) …
    expect(transferKeys.filter((k) => k.response === '').map((k) => k.key), 'keys recorded without an answer').toEqual([]);
    // … and the keys and the transfers match one to one.
    const recordedReferences = transferKeys.map((k) => JSON.parse(k.response).reference as string);
    const outReferences = before.entries.filter((e) => e.kind === 'transfer_out').map((e) => e.reference);
    expect(new Set(recordedReferences).size).toBe(recordedReferences.length);
    expect([...recordedReferences].sort()).toEqual([...outReferences].sort());
    // Every transfer answered before the kill is there.
    const committed = new Set(outReferences);
    expect(answeredOk.filter((t) => !committed.has(t.first.data.reference)).map((t) => t.key)).toEqual([]);

    // Retries with the same keys: every request the kill cut off, and a sample of answered ones.
    const recordedKeys = new Set(transferKeys.map((k) => `${k.actorId}:${k.key}`));
    const sample = answeredOk.filter((_, i) => i % Math.max(1, Math.floor(answeredOk.length / 25)) === 0);
    await Promise.all(
      [...lost, ...sample].map(async (t) => {
        t.retry = await t.payer.client.call('userTransferCoin', { userAccount: t.payee.userAccount, coin: t.coin }, t.key);
      }),
    );
    const outcome = { replayed: 0, ranOnce: 0, refused: 0 };
    const problems: string[] = [];
    for (const t of [...lost, ...sample]) {
      const r = t.retry!;
      const wasRecorded = recordedKeys.has(`${t.payer.id}:${t.key}`);
      if (t.first.code === 0) {
        if (!isDeepStrictEqual([r.status, r.code, r.data], [200, 0, t.first.data])) problems.push(`retry of answered ${t.key}: ${JSON.stringify(r)} vs ${JSON.stringify(t.first.data)}`);
        continue;
      }
      if (r.code === 0) {
        // Committed before the kill: the stored answer comes back. Never committed: it runs now, once.
        if (wasRecorded) outcome.replayed++;
        else outcome.ranOnce++;
        if (r.data.coin !== t.coin || r.data.payee.userAccount !== t.payee.userAccount) problems.push(`retry of ${t.key} answered ${JSON.stringify(r.data)}`);
        if (wasRecorded !== committed.has(r.data.reference)) problems.push(`retry of ${t.key}: recorded ${wasRecorded}, reference known ${committed.has(r.data.reference)}`);
      } else if (r.status === 400 && r.code === 40000 && !wasRecorded) {
        outcome.refused++; // never committed, and now the payer lacks the coins: nothing moved, as before
      } else {
        problems.push(`retry of ${t.key} (recorded ${wasRecorded}) answered ${r.status} ${r.code} ${r.message}`);
      }
    }
    expect(problems).toEqual([]);
    console.log(
      `ledger crash (${dbKind()}): ${transfers.length} transfers started, ${answeredOk.length} answered ok and ${refused.length} refused before the kill, ` +
        `${lost.length} cut off (${transferKeys.length - answeredOk.length} of those had committed); after the restart their retries ` +
        `replayed ${outcome.replayed}, ran once ${outcome.ranOnce}, refused ${outcome.refused}; ${sample.length} answered ones replayed identically`,
    );
    expect(outcome.replayed + outcome.ranOnce + outcome.refused).toBe(lost.length);

    // Afterwards: one pair of entries per successful key, and each balance is the opening balance plus what moved.
    const after = await snapshot(app);
    expect(halfApplied(after.entries)).toEqual([]);
    const succeeded = transfers.filter((t) => t.first.code === 0 || t.retry?.code === 0);
    const references = new Set(succeeded.map((t) => (t.first.code === 0 ? t.first.data : t.retry!.data).reference as string));
    expect(references.size).toBe(succeeded.length);
    expect(after.entries.filter((e) => e.kind === 'transfer_out').length).toBe(succeeded.length);
    const expected = new Map(members.map((m) => [m.id, OPENING_BALANCE]));
    for (const t of succeeded) {
      expected.set(t.payer.id, expected.get(t.payer.id)! - t.coin);
      expected.set(t.payee.id, expected.get(t.payee.id)! + t.coin);
    }
    expect(Object.fromEntries(members.map((m) => [m.userAccount, after.balances.get(m.id)]))).toEqual(Object.fromEntries(members.map((m) => [m.userAccount, expected.get(m.id)])));
    await expectLedgerConsistent(app);
    // And the restarted production server's own ledger check agrees.
    const check = await admin.ok('coinLedgerCheck');
    expect(check.mismatches).toEqual([]);
    expect(check.totalBalance).toBe(USERS * OPENING_BALANCE);

    await kill(server.child, 'SIGTERM');
    expect(server.child.exitCode, server.output()).toBe(0);
  }, 180_000);
});
