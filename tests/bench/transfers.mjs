// `npm run bench` (after `npm run build`): coin transfers per second through the production bundle, against the bare
// node:http server of tests/bench/run.mjs measured in the same run (paired, the order alternating).
//
// Funded users log in once; autocannon then posts POST /api/user/transferCoin with, per request, a payer's session, a
// fresh Idempotency-Key and a random payee among the users (1 coin, so nobody runs dry). Every answer must be the
// success envelope. Afterwards the ledger check must report no mismatch, and the number of transfer entries must be
// exactly twice the number of successful answers (nothing moved twice, nothing answered without moving).
// Goals are reported, never enforced: the exit code is non-zero only when a server fails or answers errors.
//
// Settings (environment, all optional and bounded):
//   BENCH_CONNECTIONS   concurrent connections                   10   (1..256)
//   BENCH_WARMUP        warm-up seconds before each measurement  2    (0..30)
//   BENCH_DURATION      measured seconds per run                 8    (1..60)
//   BENCH_ROUNDS        paired runs per database; median ratio   1    (1..5)
//   BENCH_USERS         funded users (payers and payees)         20   (2..200)
//   BENCH_DATABASE_URL  postgres://…@127.0.0.1/… to also measure PostgreSQL (a private schema, dropped afterwards)
//   BENCH_CPU_PROF      1: run the app with --cpu-prof, profiles in dist/bench/profiles
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const RUN_MJS = join(ROOT, 'tests/bench/run.mjs');
const LOOPBACK = '127.0.0.1';
const GOALS = { sqlite: 0.2, postgres: null };
const PATH = '/api/user/transferCoin';

class BenchError extends Error {}

function setting(name, fallback, min, max) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new BenchError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}

// ---------------------------------------------------------------------------------------------------------------------
// Children, tracked so every exit path kills them.

const children = new Set();
const cleanups = [];
let cleaningUp = false;

function stopChild(child, graceMs = 5000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      children.delete(child);
      done();
    });
    child.kill('SIGTERM');
  });
}

async function cleanup() {
  if (cleaningUp) return;
  cleaningUp = true;
  await Promise.all([...children].map((child) => stopChild(child)));
  for (const fn of cleanups.reverse()) {
    try {
      await fn();
    } catch (error) {
      console.error(`cleanup: ${error.message}`);
    }
  }
}

function installSignalHandlers() {
  process.on('exit', () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]]) {
    process.on(signal, () => {
      console.error(`\n${signal}: stopping servers`);
      setTimeout(() => process.exit(code), 8000).unref();
      cleanup().finally(() => process.exit(code));
    });
  }
}

function freePort() {
  return new Promise((done, fail) => {
    const server = createNetServer();
    server.unref();
    server.on('error', fail);
    server.listen(0, LOOPBACK, () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

function captureOutput(child, prefix) {
  const tail = [];
  const onData = (stream) => (chunk) => {
    for (const line of chunk.toString().split('\n')) {
      if (line.trim() === '') continue;
      tail.push(line);
      if (tail.length > 40) tail.shift();
      if (tail.length <= 30) stream.write(`${prefix} ${line}\n`);
    }
  };
  child.stdout?.on('data', onData(process.stdout));
  child.stderr?.on('data', onData(process.stderr));
  return tail;
}

/** The bare server is run.mjs's own (`--bare-server`), so both benches compare against the same thing. */
async function startBareServer() {
  const port = await freePort();
  const child = spawn(process.execPath, [RUN_MJS, '--bare-server', String(port)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  children.add(child);
  const tail = captureOutput(child, '[bare]');
  await new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new BenchError('bare server did not start within 10 s')), 10_000);
    child.once('message', (message) => {
      clearTimeout(timer);
      if (message?.ready) done();
      else fail(new BenchError('bare server sent an unexpected message'));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      fail(new BenchError(`bare server exited (${signal ?? code}) before it was ready:\n${tail.join('\n')}`));
    });
  });
  child.removeAllListeners('exit');
  return { name: 'bare', child, base: `http://${LOOPBACK}:${port}`, tail };
}

async function startAppServer({ label, databaseUrl, schema, adminPassword, cpuProfDir }) {
  const port = await freePort();
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(DATABASE_|SESSION_SECRET|ADMIN_|LOG_|SMTP_|MAIL_|COOKIE_|TRUST_PROXY$|WEB_ROOT$|PORT$|HOST$)/.test(name)) delete env[name];
  }
  Object.assign(env, {
    NODE_ENV: 'production',
    HOST: LOOPBACK,
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    ...(schema ? { DATABASE_SCHEMA: schema } : {}),
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    ADMIN_ACCOUNT: 'admin',
    ADMIN_PASSWORD: adminPassword,
    LOG_LEVEL: 'warn',
  });
  const args = [];
  if (cpuProfDir) args.push('--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`, `--cpu-prof-name=transfers-${label}-${process.pid}.cpuprofile`);
  args.push(join(ROOT, 'dist/server/main.js'));
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const tail = captureOutput(child, `[app:${label}]`);
  const base = `http://${LOOPBACK}:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new BenchError(`app (${label}) exited before answering:\n${tail.join('\n')}`);
    if (Date.now() > deadline) throw new BenchError(`app (${label}) did not answer within 60 s:\n${tail.join('\n')}`);
    try {
      const response = await fetch(`${base}/api/basicInformation/get?id=1`, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status < 500) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name: label, child, base, tail };
}

// ---------------------------------------------------------------------------------------------------------------------
// Setup over the API: the admin creates and funds the users; each logs in once.

async function api(base, path, { body, cookie, key, method = 'POST' } = {}) {
  const headers = { 'x-requested-with': 'bench' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (cookie) headers.cookie = cookie;
  if (key) headers['idempotency-key'] = key;
  const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BenchError(`${path} answered HTTP ${response.status}: ${text.slice(0, 200)}`);
  }
  if (json.code !== 0) throw new BenchError(`${path} answered HTTP ${response.status} ${json.code} ${json.message}`);
  const sid = response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0].trim())
    .find((c) => c.startsWith('sid='));
  return { data: json.data, sid };
}

async function prepareUsers(base, adminPassword, count) {
  const { sid: admin } = await api(base, '/api/user/login', { body: { userAccount: 'admin', userPassword: adminPassword } });
  const password = `Bench-${randomBytes(6).toString('base64url')}`;
  const users = [];
  // A few at a time: every creation and login is a scrypt hash.
  for (let i = 0; i < count; i += 4) {
    const batch = Array.from({ length: Math.min(4, count - i) }, (_, j) => `bench_${i + j}_${randomBytes(3).toString('hex')}`.slice(0, 16));
    users.push(
      ...(await Promise.all(
        batch.map(async (userAccount) => {
          await api(base, '/api/user/add', { body: { userAccount, userPassword: password }, cookie: admin });
          await api(base, '/api/user/addCoin', { body: { userAccount, coin: 10_000_000, description: 'bench' }, cookie: admin, key: `fund-${randomBytes(8).toString('hex')}` });
          const { sid } = await api(base, '/api/user/login', { body: { userAccount, userPassword: password } });
          return { userAccount, cookie: sid };
        }),
      )),
    );
  }
  return { admin, users };
}

async function ledgerCheck(base, admin) {
  const { data } = await api(base, '/api/coin/check', { cookie: admin, method: 'GET' });
  return data;
}

// ---------------------------------------------------------------------------------------------------------------------
// Load

let clockTicks = 100;
function processCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return null;
  }
}

/** Requests for autocannon: each one a payer's session, a payee other than the payer, and a key never used before. */
function transferRequests(users) {
  const prefix = randomBytes(4).toString('hex');
  let sequence = 0;
  return [
    {
      method: 'POST',
      path: PATH,
      setupRequest(request) {
        const payer = Math.floor(Math.random() * users.length);
        let payee = Math.floor(Math.random() * (users.length - 1));
        if (payee >= payer) payee++;
        request.headers['content-type'] = 'application/json';
        request.headers['x-requested-with'] = 'bench';
        request.headers['cookie'] = users[payer].cookie;
        request.headers['idempotency-key'] = `b${prefix}${(sequence++).toString(36)}`.padEnd(8, '0');
        request.body = JSON.stringify({ userAccount: users[payee].userAccount, coin: 1 });
        return request;
      },
    },
  ];
}

function summarise(result, cpu, target, database) {
  return {
    target,
    database,
    requestsPerSecond: result.requests.average,
    requestsTotal: result.requests.total,
    durationSeconds: result.duration,
    latencyMs: { average: result.latency.average, p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    status2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    mismatches: result.mismatches,
    serverCpuMicrosPerRequest: cpu === null || result.requests.total === 0 ? null : (cpu / result.requests.total) * 1e6,
    serverCpuUtilisation: cpu === null ? null : cpu / result.duration,
  };
}

async function measure(autocannon, settings, server, options, label, database) {
  const opts = {
    url: server.base,
    connections: settings.connections,
    duration: settings.duration,
    timeout: 10,
    verifyBody: (body) => typeof body === 'string' && body.startsWith('{"code":0'),
    ...options,
  };
  let warm = null;
  if (settings.warmup > 0) warm = await autocannon({ ...opts, duration: settings.warmup });
  const before = processCpuSeconds(server.child.pid);
  const result = await autocannon(opts);
  const after = processCpuSeconds(server.child.pid);
  if (server.child.exitCode !== null || server.child.signalCode !== null) {
    throw new BenchError(`${server.name} exited while measured:\n${server.tail.slice(-10).join('\n')}`);
  }
  const summary = summarise(result, before === null || after === null ? null : after - before, label, database);
  // Transfers that succeeded in the warm-up moved coins too; the ledger count below includes them.
  summary.warmup2xx = warm ? warm['2xx'] : 0;
  summary.warmupNon2xx = warm ? warm.non2xx + warm.errors + warm.timeouts + warm.mismatches : 0;
  return summary;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function benchDatabase(autocannon, settings, db, target, bare, adminPassword) {
  console.log(`starting app on ${db} …`);
  const app = await startAppServer({ label: db, ...target, adminPassword, cpuProfDir: settings.cpuProfDir });
  try {
    console.log(`  creating and funding ${settings.users} users …`);
    const { admin, users } = await prepareUsers(app.base, adminPassword, settings.users);
    const opening = await ledgerCheck(app.base, admin);
    const rounds = [];
    for (let round = 0; round < settings.rounds; round++) {
      const runApp = () => {
        console.log(`  measuring ${db} POST ${PATH} …`);
        return measure(autocannon, settings, app, { requests: transferRequests(users) }, 'transfer', db);
      };
      const runBare = () => {
        console.log(`  measuring bare hello-world (paired with ${db} transfers) …`);
        return measure(autocannon, settings, bare, { requests: [{ method: 'GET', path: '/' }] }, 'bare', null);
      };
      const bareFirst = round % 2 === 1;
      const first = await (bareFirst ? runBare() : runApp());
      const second = await (bareFirst ? runApp() : runBare());
      const [appResult, bareResult] = bareFirst ? [second, first] : [first, second];
      bareResult.pairedWith = `${db}:transfer`;
      rounds.push({ app: appResult, bare: bareResult, ratio: appResult.requestsPerSecond / bareResult.requestsPerSecond });
    }
    // Every 2xx moved exactly one coin, once: two entries per success, and the ledger still adds up. Autocannon stops
    // with up to one request per connection in flight, which the server still completes but autocannon never counts:
    // so up to `connections` more transfers per run (warm-up and measured) may be in the ledger than were counted.
    const closing = await ledgerCheck(app.base, admin);
    const successes = rounds.reduce((n, r) => n + r.app.status2xx + r.app.warmup2xx, 0);
    const runs = settings.rounds * (settings.warmup > 0 ? 2 : 1);
    const entriesAdded = closing.entries - opening.entries;
    const ledger = {
      mismatches: closing.mismatches.length,
      entriesAdded,
      countedTransfers: successes,
      uncountedTransfers: (entriesAdded - 2 * successes) / 2,
      maxUncounted: settings.connections * runs,
      totalBalanceUnchanged: closing.totalBalance === opening.totalBalance,
    };
    ledger.ok = ledger.mismatches === 0 && ledger.totalBalanceUnchanged && Number.isInteger(ledger.uncountedTransfers) && ledger.uncountedTransfers >= 0 && ledger.uncountedTransfers <= ledger.maxUncounted;
    const ratio = median(rounds.map((r) => r.ratio));
    return {
      database: db,
      transfersPerSecond: median(rounds.map((r) => r.app.requestsPerSecond)),
      bareRequestsPerSecond: median(rounds.map((r) => r.bare.requestsPerSecond)),
      ratio,
      roundRatios: rounds.map((r) => r.ratio),
      goal: GOALS[db],
      met: GOALS[db] === null ? null : ratio >= GOALS[db],
      ledger,
      measurements: rounds.flatMap((r) => [r.app, r.bare]),
    };
  } finally {
    await stopChild(app.child);
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Report

function table(headers, rows, rightAligned) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (rightAligned.includes(i) ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const fmt = (value, digits = 0) => (value === null || value === undefined ? '-' : value.toFixed(digits));

function printReport(settings, results) {
  console.log('');
  console.log(
    `Transfers: ${settings.connections} connections, ${settings.users} users, ${settings.warmup} s warm-up + ${settings.duration} s measured per run, ` +
      `${settings.rounds} round(s); node ${process.version}, ${cpus().length} CPU(s)`,
  );
  console.log('');
  const rows = results.flatMap((r) =>
    r.measurements.map((m) => [
      m.target === 'bare' ? `bare node:http hello (next to ${m.pairedWith})` : `POST ${PATH}`,
      m.database ?? '-',
      fmt(m.requestsPerSecond),
      fmt(m.latencyMs.p50),
      fmt(m.latencyMs.p99),
      m.non2xx,
      m.errors + m.timeouts + m.mismatches,
      fmt(m.serverCpuMicrosPerRequest),
      m.serverCpuUtilisation === null ? '-' : `${fmt(m.serverCpuUtilisation * 100)}%`,
    ]),
  );
  console.log(table(['target', 'db', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'srv CPU µs/req', 'srv CPU'], rows, [2, 3, 4, 5, 6, 7, 8]));
  console.log('');
  console.log(
    table(
      ['transfers vs bare', 'transfers/s', 'bare req/s', 'ratio', 'goal', 'met', 'ledger'],
      results.map((r) => [
        r.database,
        fmt(r.transfersPerSecond),
        fmt(r.bareRequestsPerSecond),
        r.ratio.toFixed(3) + (r.roundRatios.length > 1 ? ` (${r.roundRatios.map((x) => x.toFixed(3)).join('/')})` : ''),
        r.goal === null ? '-' : `>= ${r.goal.toFixed(2)}`,
        r.met === null ? '-' : r.met ? 'yes' : 'NO',
        r.ledger.ok ? `ok (${r.ledger.entriesAdded} entries, ${r.ledger.uncountedTransfers} transfers in flight at stops)` : `WRONG ${JSON.stringify(r.ledger)}`,
      ]),
      [1, 2, 3],
    ),
  );
  console.log('');
}

function writeResults(file, report) {
  mkdirSync(dirname(file), { recursive: true });
  let existing = {};
  if (existsSync(file)) {
    try {
      existing = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      existing = {};
    }
  }
  existing.transfers = report;
  writeFileSync(file, JSON.stringify(existing, null, 2) + '\n');
}

function checkLoopbackPostgres(raw) {
  let url;
  try {
    url = new URL(raw);
  } catch {
    throw new BenchError('BENCH_DATABASE_URL is not a URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw new BenchError('BENCH_DATABASE_URL must be postgres://…');
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) throw new BenchError('BENCH_DATABASE_URL must point at a loopback address');
  if (url.searchParams.size > 0) throw new BenchError('BENCH_DATABASE_URL must not carry query options; the bench picks the schema');
  return raw;
}

async function createPostgresSchema(url) {
  const { default: pg } = await import('pg');
  const schema = `bench_tr_${process.pid}_${randomBytes(4).toString('hex')}`;
  const run = async (sql) => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
      await client.query(sql);
    } finally {
      await client.end().catch(() => {});
    }
  };
  try {
    await run(`create schema ${schema}`);
  } catch (error) {
    throw new BenchError(`cannot create a schema on BENCH_DATABASE_URL: ${error.message}`);
  }
  cleanups.push(() => run(`drop schema if exists ${schema} cascade`));
  return schema;
}

async function main() {
  installSignalHandlers();
  try {
    const { execFileSync } = await import('node:child_process');
    clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    // the usual 100 Hz
  }
  const settings = {
    connections: setting('BENCH_CONNECTIONS', 10, 1, 256),
    warmup: setting('BENCH_WARMUP', 2, 0, 30),
    duration: setting('BENCH_DURATION', 8, 1, 60),
    rounds: setting('BENCH_ROUNDS', 1, 1, 5),
    users: setting('BENCH_USERS', 20, 2, 200),
  };
  const cpuProfDir = ['1', 'true', 'yes'].includes((process.env.BENCH_CPU_PROF ?? '').toLowerCase()) ? join(ROOT, 'dist/bench/profiles') : null;
  if (cpuProfDir) mkdirSync(cpuProfDir, { recursive: true });
  // Not a measured setting: kept out of results.json.
  Object.defineProperty(settings, 'cpuProfDir', { value: cpuProfDir, enumerable: false });
  const postgresUrl = process.env.BENCH_DATABASE_URL ? checkLoopbackPostgres(process.env.BENCH_DATABASE_URL) : null;
  const databases = ['sqlite', ...(postgresUrl ? ['postgres'] : [])];

  const plannedSeconds = databases.length * settings.rounds * 2 * (settings.warmup + settings.duration);
  const allowance = 180 + databases.length * settings.users * 2;
  const watchdog = setTimeout(() => {
    console.error(`bench exceeded ${plannedSeconds + allowance} s; stopping`);
    cleanup().finally(() => process.exit(1));
  }, (plannedSeconds + allowance) * 1000);
  watchdog.unref();

  if (!existsSync(join(ROOT, 'dist/server/main.js'))) throw new BenchError('dist/server/main.js is missing; run `npm run build` first');
  const { default: autocannon } = await import('autocannon');
  const tmp = mkdtempSync(join(tmpdir(), 'points-mall-bench-transfers-'));
  cleanups.push(() => rmSync(tmp, { recursive: true, force: true }));
  const adminPassword = `Bench-${randomBytes(9).toString('base64url')}`;

  console.log(`bench transfers: ${databases.join(' + ')}; about ${plannedSeconds} s of load`);
  const bare = await startBareServer();
  const targets = { sqlite: { databaseUrl: `sqlite:${join(tmp, 'bench.db')}` } };
  if (postgresUrl) targets.postgres = { databaseUrl: postgresUrl, schema: await createPostgresSchema(postgresUrl) };

  const results = [];
  for (const db of databases) results.push(await benchDatabase(autocannon, settings, db, targets[db], bare, adminPassword));
  printReport(settings, results);

  const problems = [];
  for (const r of results) {
    for (const m of r.measurements) {
      const label = m.target === 'bare' ? `bare (next to ${m.pairedWith})` : `${m.target} (${m.database})`;
      if (m.non2xx) problems.push(`${label}: ${m.non2xx} non-2xx`);
      if (m.errors + m.timeouts + m.mismatches) problems.push(`${label}: ${m.errors} errors, ${m.timeouts} timeouts, ${m.mismatches} bodies not {"code":0…}`);
      if (m.warmupNon2xx) problems.push(`${label}: ${m.warmupNon2xx} failures in the warm-up`);
      if (m.requestsTotal === 0) problems.push(`${label}: no answers`);
    }
    const l = r.ledger;
    if (l.mismatches) problems.push(`${r.database}: the ledger check reports ${l.mismatches} mismatches`);
    if (!Number.isInteger(l.uncountedTransfers) || l.uncountedTransfers < 0 || l.uncountedTransfers > l.maxUncounted) {
      problems.push(`${r.database}: ${l.entriesAdded} entries written for ${l.countedTransfers} counted transfers (+ at most ${l.maxUncounted} in flight)`);
    }
    if (!l.totalBalanceUnchanged) problems.push(`${r.database}: transfers changed the total of balances`);
  }

  const resultsFile = join(ROOT, 'dist/bench/results.json');
  writeResults(resultsFile, {
    measuredAt: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? null,
    settings,
    goals: GOALS,
    results: results.map(({ measurements, ...rest }) => rest),
    measurements: results.flatMap((r) => r.measurements),
    problems,
  });
  console.log(`results written to ${resultsFile} (key "transfers")`);
  if (cpuProfDir) console.log(`CPU profiles in ${cpuProfDir}`);

  clearTimeout(watchdog);
  await cleanup();
  if (problems.length > 0) {
    console.error(`problems:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  process.exit(0);
}

function fail(error) {
  console.error(`bench failed: ${error instanceof BenchError ? error.message : (error?.stack ?? error)}`);
  cleanup().finally(() => process.exit(1));
}

process.on('unhandledRejection', fail);
process.on('uncaughtException', fail);
main().catch(fail);
