// `npm run bench` (after `npm run build`): API throughput of the production bundle against a bare node:http server.
//
// Every app measurement is paired with a bare hello-world measurement taken right next to it (the order alternates),
// so the app/bare ratio compares like with like on a small, noisy machine where the load generator shares the CPUs.
// Goals are reported, never enforced: the exit code is non-zero only when a server fails to start or answers errors.
//
// Settings (environment, all optional and bounded):
//   BENCH_CONNECTIONS   concurrent connections                   10   (1..256)
//   BENCH_WARMUP        warm-up seconds before each measurement  2    (0..30)
//   BENCH_DURATION      measured seconds per run                 8    (1..60)
//   BENCH_ROUNDS        paired runs per endpoint; median ratio   1    (1..5)
//   BENCH_DATABASE_URL  postgres://…@127.0.0.1/… to also measure PostgreSQL (a private schema, dropped afterwards)
//   BENCH_CPU_PROF      1: run the app with --cpu-prof, profiles in dist/bench/profiles
//
// Internal: `node tests/bench/run.mjs --bare-server <port>` is the bare server child.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const THIS_FILE = fileURLToPath(import.meta.url);
const ROOT = resolve(dirname(THIS_FILE), '../..');
const LOOPBACK = '127.0.0.1';
const HELLO = JSON.stringify({ code: 0, message: 'ok', data: 'hello' });

// ---------------------------------------------------------------------------------------------------------------------
// The bare server child: node:http, one JSON answer, exits when its parent goes away.

function runBareServer(port) {
  const body = Buffer.from(HELLO);
  const server = createHttpServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
  server.listen(port, LOOPBACK, () => process.send?.({ ready: true, port: server.address().port }));
  // The IPC channel closes when the parent exits, however it exits.
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGINT', () => process.exit(0));
}

// ---------------------------------------------------------------------------------------------------------------------
// Settings

/** A failure the operator can act on (bad setting, unreachable database, server that does not start). */
class BenchError extends Error {}

function setting(name, fallback, min, max) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new BenchError(`${name} must be a number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

const GOALS = { getLogin: 0.5, basicInformation: 0.6 };

const ENDPOINTS = [
  { key: 'getLogin', label: 'GET /api/user/get/login (cookie)', path: '/api/user/get/login', withCookie: true },
  { key: 'basicInformation', label: 'GET /api/basicInformation/get?id=1', path: '/api/basicInformation/get?id=1', withCookie: false },
];

// ---------------------------------------------------------------------------------------------------------------------
// Child processes: tracked so every exit path kills them.

const children = new Set();
const cleanups = [];
let cleaningUp = false;

function killAllSync() {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
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

function stopChild(child, graceMs = 5000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }, graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill('SIGTERM');
  });
}

function installSignalHandlers() {
  process.on('exit', killAllSync);
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ]) {
    process.on(signal, () => {
      console.error(`\n${signal}: stopping servers`);
      // A second signal, or a cleanup that hangs, still ends the run.
      setTimeout(() => process.exit(code), 8000).unref();
      cleanup().finally(() => process.exit(code));
    });
  }
}

/** A port the kernel just handed out on loopback; the server binds it a moment later. */
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

/** Keeps the last lines a child printed (for failure reports) and forwards the first few, prefixed. */
function captureOutput(child, prefix, forwardLimit = 30) {
  const tail = [];
  let forwarded = 0;
  let suppressed = 0;
  const onData = (stream) => (chunk) => {
    for (const line of chunk.toString().split('\n')) {
      if (line.trim() === '') continue;
      tail.push(line);
      if (tail.length > 40) tail.shift();
      if (forwarded < forwardLimit) {
        forwarded++;
        stream.write(`${prefix} ${line}\n`);
      } else {
        suppressed++;
      }
    }
  };
  child.stdout?.on('data', onData(process.stdout));
  child.stderr?.on('data', onData(process.stderr));
  return { tail, suppressed: () => suppressed };
}

async function startBareServer() {
  const port = await freePort();
  const child = spawn(process.execPath, [THIS_FILE, '--bare-server', String(port)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  children.add(child);
  const output = captureOutput(child, '[bare]');
  await new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new BenchError('bare server did not start within 10 s')), 10_000);
    child.once('message', (message) => {
      clearTimeout(timer);
      if (message?.ready) done();
      else fail(new Error('bare server sent an unexpected message'));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      fail(new BenchError(`bare server exited (${signal ?? code}) before it was ready:\n${output.tail.join('\n')}`));
    });
  });
  child.removeAllListeners('exit');
  return { name: 'bare', child, base: `http://${LOOPBACK}:${port}`, output };
}

async function startAppServer({ label, databaseUrl, schema, adminPassword, cpuProfDir }) {
  const port = await freePort();
  const env = { ...process.env };
  // The app's own settings come from this bench only, never from the caller's shell.
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
  if (cpuProfDir) args.push('--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`, `--cpu-prof-name=app-${label}-${process.pid}.cpuprofile`);
  args.push(join(ROOT, 'dist/server/main.js'));
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const output = captureOutput(child, `[app:${label}]`);
  const base = `http://${LOOPBACK}:${port}`;

  let exited = null;
  child.once('exit', (code, signal) => (exited = signal ?? code));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited !== null) throw new BenchError(`app (${label}) exited (${exited}) before answering:\n${output.tail.join('\n')}`);
    if (Date.now() > deadline) throw new BenchError(`app (${label}) did not answer within 60 s:\n${output.tail.join('\n')}`);
    try {
      const response = await fetch(`${base}/api/basicInformation/get?id=1`, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status < 500) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name: label, child, base, output };
}

// ---------------------------------------------------------------------------------------------------------------------
// Requests outside the load: login and one probe per target.

async function login(base, adminPassword) {
  const response = await fetch(`${base}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-requested-with': 'x' },
    body: JSON.stringify({ userAccount: 'admin', userPassword: adminPassword }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== 200 || !text.startsWith('{"code":0')) {
    throw new BenchError(`admin login failed: HTTP ${response.status} ${text.slice(0, 300)}`);
  }
  const sid = response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0].trim())
    .find((c) => c.startsWith('sid='));
  if (!sid) throw new BenchError('admin login answered without a sid cookie');
  return sid;
}

async function probe(url, headers) {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  if (response.status !== 200 || !text.startsWith('{"code":0')) {
    throw new BenchError(`${url} answered HTTP ${response.status}: ${text.slice(0, 300)}`);
  }
  return { bytes: Buffer.byteLength(text), headerCount: [...response.headers.keys()].length };
}

// ---------------------------------------------------------------------------------------------------------------------
// Load

let clockTicks = 100;
function readClockTicks() {
  try {
    clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    // no getconf: the usual 100 Hz
  }
}

/** CPU seconds a process has used (user + system), from /proc; null where there is no /proc. */
function processCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks; // utime, stime
  } catch {
    return null;
  }
}

async function measure(autocannon, settings, { target, server, path, headers }) {
  const url = `${server.base}${path}`;
  const opts = {
    url,
    connections: settings.connections,
    duration: settings.duration,
    headers,
    timeout: 10,
    // Every answer must be the success envelope; anything else counts as a mismatch.
    verifyBody: (body) => typeof body === 'string' && body.startsWith('{"code":0'),
  };
  if (settings.warmup > 0) {
    // Autocannon reports the warm-up separately; only the run after it is counted.
    await autocannon({ ...opts, duration: settings.warmup });
  }
  const cpuBefore = processCpuSeconds(server.child.pid);
  const loadCpuBefore = process.cpuUsage();
  const result = await autocannon(opts);
  const cpuAfter = processCpuSeconds(server.child.pid);
  const loadCpu = process.cpuUsage(loadCpuBefore);
  if (server.child.exitCode !== null || server.child.signalCode !== null) {
    throw new BenchError(
      `${server.name} server exited (${server.child.signalCode ?? `code ${server.child.exitCode}`}) while ${path} was measured` +
        (server.output.tail.length ? `; its last lines:\n${server.output.tail.slice(-10).join('\n')}` : '; it printed nothing'),
    );
  }
  const total = result.requests.total;
  const serverCpu = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore;
  return {
    target,
    url: path,
    server: server.name,
    requestsPerSecond: result.requests.average,
    requestsPerSecondStddev: result.requests.stddev,
    requestsTotal: total,
    durationSeconds: result.duration,
    latencyMs: {
      average: result.latency.average,
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    bytesPerSecond: result.throughput.average,
    status2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    mismatches: result.mismatches,
    // Where the CPU went: the server's share per request, and the load generator's share of a core.
    serverCpuSeconds: serverCpu,
    serverCpuMicrosPerRequest: serverCpu === null || total === 0 ? null : (serverCpu / total) * 1e6,
    serverCpuUtilisation: serverCpu === null ? null : serverCpu / result.duration,
    loadGeneratorCpuUtilisation: (loadCpu.user + loadCpu.system) / 1e6 / result.duration,
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function failuresOf(m) {
  const problems = [];
  if (m.non2xx) problems.push(`${m.non2xx} non-2xx`);
  if (m.errors) problems.push(`${m.errors} errors`);
  if (m.timeouts) problems.push(`${m.timeouts} timeouts`);
  if (m.mismatches) problems.push(`${m.mismatches} bodies not {"code":0…}`);
  if (m.requestsTotal === 0) problems.push('no answers');
  return problems;
}

/** Paired runs for one database: each endpoint next to a bare run, the order alternating from run to run. */
async function benchDatabase(autocannon, settings, db, bare, app, cookie) {
  const measurements = [];
  const pairs = [];
  let turn = 0;
  for (const endpoint of ENDPOINTS) {
    const headers = endpoint.withCookie ? { cookie } : {};
    await probe(`${app.base}${endpoint.path}`, headers);
    for (let round = 0; round < settings.rounds; round++) {
      const bareFirst = turn++ % 2 === 0;
      const runApp = () => {
        console.log(`  measuring ${db} ${endpoint.label} …`);
        return measure(autocannon, settings, { target: endpoint.key, server: app, path: endpoint.path, headers });
      };
      const runBare = () => {
        console.log(`  measuring bare hello-world (paired with ${db} ${endpoint.key}) …`);
        return measure(autocannon, settings, { target: 'bare', server: bare, path: '/', headers: {} });
      };
      let appResult;
      let bareResult;
      if (bareFirst) {
        bareResult = await runBare();
        appResult = await runApp();
      } else {
        appResult = await runApp();
        bareResult = await runBare();
      }
      bareResult.pairedWith = `${db}:${endpoint.key}`;
      appResult.database = db;
      measurements.push(bareFirst ? bareResult : appResult, bareFirst ? appResult : bareResult);
      pairs.push({ endpoint, db, round, app: appResult, bare: bareResult, ratio: appResult.requestsPerSecond / bareResult.requestsPerSecond });
    }
  }
  const ratios = ENDPOINTS.map((endpoint) => {
    const mine = pairs.filter((p) => p.endpoint === endpoint);
    const ratio = median(mine.map((p) => p.ratio));
    return {
      endpoint: endpoint.key,
      path: endpoint.path,
      database: db,
      appRequestsPerSecond: median(mine.map((p) => p.app.requestsPerSecond)),
      bareRequestsPerSecond: median(mine.map((p) => p.bare.requestsPerSecond)),
      ratio,
      roundRatios: mine.map((p) => p.ratio),
      goal: GOALS[endpoint.key],
      met: ratio >= GOALS[endpoint.key],
    };
  });
  return { measurements, ratios };
}

// ---------------------------------------------------------------------------------------------------------------------
// Report

function table(headers, rows, rightAligned) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells.map((c, i) => (rightAligned.includes(i) ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const fmt = (value, digits = 0) => (value === null || value === undefined ? '-' : value.toFixed(digits));

function printReport(settings, measurements, ratios) {
  console.log('');
  console.log(
    `API throughput: ${settings.connections} connections, ${settings.warmup} s warm-up + ${settings.duration} s measured per run, ` +
      `${settings.rounds} round(s); node ${process.version}, ${cpus().length} CPU(s)`,
  );
  console.log('');
  const rows = measurements.map((m) => [
    m.target === 'bare' ? `bare node:http hello (next to ${m.pairedWith})` : ENDPOINTS.find((e) => e.key === m.target).label,
    m.target === 'bare' ? '-' : m.database,
    fmt(m.requestsPerSecond),
    fmt(m.latencyMs.p50),
    fmt(m.latencyMs.p99),
    fmt(m.latencyMs.average, 2),
    m.non2xx,
    m.errors + m.timeouts + m.mismatches,
    fmt(m.serverCpuMicrosPerRequest),
    m.serverCpuUtilisation === null ? '-' : `${fmt(m.serverCpuUtilisation * 100)}%`,
    `${fmt(m.loadGeneratorCpuUtilisation * 100)}%`,
  ]);
  console.log(
    table(
      ['target', 'db', 'req/s', 'p50 ms', 'p99 ms', 'avg ms', 'non-2xx', 'errors', 'srv CPU µs/req', 'srv CPU', 'loadgen CPU'],
      rows,
      [2, 3, 4, 5, 6, 7, 8, 9, 10],
    ),
  );
  console.log('');
  console.log(
    table(
      ['ratio app/bare', 'db', 'app req/s', 'bare req/s', 'ratio', 'goal', 'met'],
      ratios.map((r) => [
        r.path,
        r.database,
        fmt(r.appRequestsPerSecond),
        fmt(r.bareRequestsPerSecond),
        r.ratio.toFixed(2) + (r.roundRatios.length > 1 ? ` (${r.roundRatios.map((x) => x.toFixed(2)).join('/')})` : ''),
        `>= ${r.goal.toFixed(2)}`,
        r.met ? 'yes' : 'NO',
      ]),
      [2, 3, 4],
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
  // Other benches (page weight, transfers) keep their own top-level keys in the same file.
  existing.api = report;
  writeFileSync(file, JSON.stringify(existing, null, 2) + '\n');
}

// ---------------------------------------------------------------------------------------------------------------------

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

/** A schema of its own on the PostgreSQL server, dropped when the bench ends however it ends. */
async function createPostgresSchema(url) {
  const { default: pg } = await import('pg');
  const schema = `bench_${process.pid}_${randomBytes(4).toString('hex')}`;
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
  readClockTicks();
  const settings = {
    connections: setting('BENCH_CONNECTIONS', 10, 1, 256),
    warmup: setting('BENCH_WARMUP', 2, 0, 30),
    duration: setting('BENCH_DURATION', 8, 1, 60),
    rounds: setting('BENCH_ROUNDS', 1, 1, 5),
  };
  const postgresUrl = process.env.BENCH_DATABASE_URL ? checkLoopbackPostgres(process.env.BENCH_DATABASE_URL) : null;
  const cpuProfDir = ['1', 'true', 'yes'].includes((process.env.BENCH_CPU_PROF ?? '').toLowerCase())
    ? join(ROOT, 'dist/bench/profiles')
    : null;
  const databases = ['sqlite', ...(postgresUrl ? ['postgres'] : [])];

  // Bounded: measurement time plus a generous allowance for starts and stops; then everything is stopped.
  const plannedSeconds = databases.length * ENDPOINTS.length * settings.rounds * 2 * (settings.warmup + settings.duration);
  const watchdog = setTimeout(() => {
    console.error(`bench exceeded ${plannedSeconds + 180} s; stopping`);
    cleanup().finally(() => process.exit(1));
  }, (plannedSeconds + 180) * 1000);
  watchdog.unref();

  const mainJs = join(ROOT, 'dist/server/main.js');
  if (!existsSync(mainJs)) throw new BenchError('dist/server/main.js is missing; run `npm run build` first');
  const { default: autocannon } = await import('autocannon');

  const tmp = mkdtempSync(join(tmpdir(), 'points-mall-bench-'));
  cleanups.push(() => rmSync(tmp, { recursive: true, force: true }));
  if (cpuProfDir) mkdirSync(cpuProfDir, { recursive: true });
  const adminPassword = `Bench-${randomBytes(9).toString('base64url')}`;

  console.log(`bench: ${databases.join(' + ')}; about ${plannedSeconds} s of load`);
  const bare = await startBareServer();
  await probe(`${bare.base}/`, {});

  const targets = { sqlite: { databaseUrl: `sqlite:${join(tmp, 'bench.db')}` } };
  if (postgresUrl) targets.postgres = { databaseUrl: postgresUrl, schema: await createPostgresSchema(postgresUrl) };

  const measurements = [];
  const ratios = [];
  for (const db of databases) {
    const { databaseUrl, schema } = targets[db];
    console.log(`starting app on ${db} …`);
    const app = await startAppServer({ label: db, databaseUrl, schema, adminPassword, cpuProfDir });
    const cookie = await login(app.base, adminPassword);
    const result = await benchDatabase(autocannon, settings, db, bare, app, cookie);
    measurements.push(...result.measurements);
    ratios.push(...result.ratios);
    // One app at a time: an idle second server would still hold memory and a database pool.
    await stopChild(app.child);
    children.delete(app.child);
    if (app.output.suppressed() > 0) console.log(`  (app:${db} printed ${app.output.suppressed()} more lines)`);
  }

  printReport(settings, measurements, ratios);

  const problems = measurements.flatMap((m) => failuresOf(m).map((p) => `${m.target}${m.database ? ` (${m.database})` : ''}: ${p}`));
  const resultsFile = join(ROOT, 'dist/bench/results.json');
  writeResults(resultsFile, {
    measuredAt: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? null,
    settings,
    goals: GOALS,
    ratios,
    measurements,
    problems,
  });
  console.log(`results written to ${resultsFile}`);
  if (cpuProfDir) console.log(`CPU profiles in ${cpuProfDir}`);

  clearTimeout(watchdog);
  await cleanup();
  if (problems.length > 0) {
    console.error(`servers answered errors:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  process.exit(0);
}

function fail(error) {
  console.error(`bench failed: ${error instanceof BenchError ? error.message : (error?.stack ?? error)}`);
  cleanup().finally(() => process.exit(1));
}

if (process.argv[2] === '--bare-server') {
  runBareServer(Number(process.argv[3]));
} else {
  process.on('unhandledRejection', fail);
  process.on('uncaughtException', fail);
  main().catch(fail);
}
