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
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BenchError,
  RESULTS_FILE,
  ROOT,
  addCleanup,
  checkLoopbackPostgres,
  cleanup,
  cpuProfDirSetting,
  createPostgresSchema,
  fmt,
  installSignalHandlers,
  machine,
  median,
  processCpuSeconds,
  readClockTicks,
  runMain,
  setting,
  startAppServer,
  startBareServer,
  startWatchdog,
  stopChild,
  table,
  writeResults,
} from './lib.mjs';

const GOALS = { getLogin: 0.5, basicInformation: 0.6 };

const ENDPOINTS = [
  { key: 'getLogin', label: 'GET /api/user/get/login (cookie)', path: '/api/user/get/login', withCookie: true },
  {
    key: 'basicInformation',
    label: 'GET /api/basicInformation/get?id=1',
    path: '/api/basicInformation/get?id=1',
    withCookie: false,
  },
];

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
        (server.output.tail.length
          ? `; its last lines:\n${server.output.tail.slice(-10).join('\n')}`
          : '; it printed nothing'),
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
      pairs.push({
        endpoint,
        db,
        round,
        app: appResult,
        bare: bareResult,
        ratio: appResult.requestsPerSecond / bareResult.requestsPerSecond,
      });
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

function printReport(settings, measurements, ratios) {
  console.log('');
  console.log(
    `API throughput: ${settings.connections} connections, ${settings.warmup} s warm-up + ${settings.duration} s measured per run, ` +
      `${settings.rounds} round(s); node ${process.version}, ${cpus().length} CPU(s)`,
  );
  console.log('');
  const rows = measurements.map((m) => [
    m.target === 'bare'
      ? `bare node:http hello (next to ${m.pairedWith})`
      : ENDPOINTS.find((e) => e.key === m.target).label,
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
      [
        'target',
        'db',
        'req/s',
        'p50 ms',
        'p99 ms',
        'avg ms',
        'non-2xx',
        'errors',
        'srv CPU µs/req',
        'srv CPU',
        'loadgen CPU',
      ],
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
  const cpuProfDir = cpuProfDirSetting();
  const databases = ['sqlite', ...(postgresUrl ? ['postgres'] : [])];

  // Bounded: measurement time plus a generous allowance for starts and stops; then everything is stopped.
  const plannedSeconds =
    databases.length * ENDPOINTS.length * settings.rounds * 2 * (settings.warmup + settings.duration);
  const watchdog = startWatchdog(plannedSeconds + 180);

  const mainJs = join(ROOT, 'dist/server/main.js');
  if (!existsSync(mainJs)) throw new BenchError('dist/server/main.js is missing; run `npm run build` first');
  const { default: autocannon } = await import('autocannon');

  const tmp = mkdtempSync(join(tmpdir(), 'points-mall-bench-'));
  addCleanup(() => rmSync(tmp, { recursive: true, force: true }));
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
    if (app.output.suppressed() > 0) console.log(`  (app:${db} printed ${app.output.suppressed()} more lines)`);
  }

  printReport(settings, measurements, ratios);

  const problems = measurements.flatMap((m) =>
    failuresOf(m).map((p) => `${m.target}${m.database ? ` (${m.database})` : ''}: ${p}`),
  );
  writeResults({ api: { ...machine(), settings, goals: GOALS, ratios, measurements, problems } });
  console.log(`results written to ${RESULTS_FILE}`);
  if (cpuProfDir) console.log(`CPU profiles in ${cpuProfDir}`);

  clearTimeout(watchdog);
  await cleanup();
  if (problems.length > 0) {
    console.error(`servers answered errors:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  process.exit(0);
}

runMain(main);
