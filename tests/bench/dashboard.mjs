// `npm run build` first, then `node tests/bench/dashboard.mjs`: the admin dashboard's answer time at scale.
//
// The production bundle runs on a fresh SQLite file; this script then seeds it with bulk SQL straight into the file
// (seed-scale.mjs, shared with scale.mjs): BENCH_USERS users with a service each, BENCH_ENTRIES coin entries and BENCH_RUNS runs spread over the last 120 days, and paid orders. It times, over HTTP, the two
// operations the dashboard screen asks for together (summary + 90-day series) cold (its day rollups deleted first, so
// the request rebuilds them) and warm, and each operation alone (summary, series 7/30/90) in interleaved rounds, with
// the server's CPU per request. Then a concurrent load of GET /api/user/get/login (a signed-in user's cheapest read)
// measures its p99 alone, while the warm dashboard is asked again and again, and while the dashboard rebuilds its
// rollups again and again: how long the dashboard's statements hold the event loop, as other requests feel it.
// Figures are reported, never enforced (goal: < 300 ms).
//
// Settings (environment, optional): BENCH_ENTRIES 1000000 · BENCH_RUNS 100000 · BENCH_USERS 2000 · BENCH_ROUNDS 5 ·
// BENCH_CONNECTIONS 8 (concurrent login reads) · BENCH_LOAD_SECONDS 4 · BENCH_LOAD_ROUNDS 3 · BENCH_COLD_ROUNDS 3
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  addCleanup,
  cleanup,
  cpuLayout,
  cpuMeter,
  fmt,
  fmtRange,
  installSignalHandlers,
  interleavedRounds,
  machine,
  median,
  pinSelf,
  readClockTicks,
  runLoad,
  runMain,
  summary as summaryOf,
  writeResults,
  setting,
  startAppServer,
  startWatchdog,
  summary,
  table,
} from './lib.mjs';
import { seedScale } from './seed-scale.mjs';

const Database = createRequire(import.meta.url)('better-sqlite3');

const ENTRIES = setting('BENCH_ENTRIES', 1_000_000, 1000, 20_000_000, { integer: true, quick: 200_000 });
const RUNS = setting('BENCH_RUNS', 100_000, 100, 5_000_000, { integer: true, quick: 20_000 });
const USERS = setting('BENCH_USERS', 2000, 10, 100_000, { integer: true });
const ROUNDS = setting('BENCH_ROUNDS', 5, 3, 50, { integer: true });
const CONNECTIONS = setting('BENCH_CONNECTIONS', 8, 1, 64, { integer: true });
const LOAD_SECONDS = setting('BENCH_LOAD_SECONDS', 4, 1, 60, { integer: true, quick: 2 });
const LOAD_ROUNDS = setting('BENCH_LOAD_ROUNDS', 3, 1, 20, { integer: true, quick: 1 });
const COLD_ROUNDS = setting('BENCH_COLD_ROUNDS', 3, 1, 20, { integer: true, quick: 1 });

async function call(base, path, { cookie, body } = {}) {
  const headers = { 'x-requested-with': 'bench' };
  if (cookie) headers.cookie = cookie;
  if (body) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${path}`, {
    method: body ? 'POST' : 'GET',
    headers,
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = await response.json();
  if (json.code !== 0) throw new Error(`${path}: ${response.status} ${json.code} ${json.message}`);
  const sid = response.headers.getSetCookie().find((c) => c.startsWith('sid='));
  return { data: json.data, cookie: sid?.split(';')[0] };
}

/** The screen's own request pattern: both operations at once; answers the wall time of the pair in ms. */
async function dashboardOnce(base, cookie) {
  const started = performance.now();
  await Promise.all([
    call(base, '/api/dashboard/summary', { cookie }),
    call(base, '/api/dashboard/series?days=90', { cookie }),
  ]);
  return performance.now() - started;
}

/**
 * Deletes the day rollups straight in the file (another connection; the server keeps none in memory), so the next
 * dashboard request builds them again: the first view after a deploy of migration 0014, or after a TZ_SITE change.
 */
function dropRollups(file) {
  const db = new Database(file);
  db.prepare('DELETE FROM dashboard_day_rollups').run();
  db.close();
}

/**
 * GET /api/user/get/login from CONNECTIONS connections for LOAD_SECONDS, by wrk in its own process on the load core
 * (lib.mjs runLoad); answers its p99 in ms.
 */
async function loginP99(base, cookie, layout) {
  const run = await runLoad({
    url: `${base}/api/user/get/login`,
    connections: CONNECTIONS,
    duration: LOAD_SECONDS,
    headers: { cookie },
    cpu: layout.load,
  });
  return run.latencyUs.p99 / 1000;
}

const loadavgText = () =>
  loadavg()
    .map((v) => v.toFixed(2))
    .join(' ');

async function main() {
  installSignalHandlers();
  readClockTicks();
  startWatchdog(900);
  const dir = mkdtempSync(join(tmpdir(), 'bench-dashboard-'));
  addCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'app.db');
  const adminPassword = 'BenchAdmin-Passw0rd';
  // The server on one core; this script and the login load (wrk) on the other.
  const layout = cpuLayout();
  if (layout.pinned) pinSelf(layout.load);
  const server = await startAppServer({
    label: 'sqlite',
    databaseUrl: `sqlite:${file}`,
    adminPassword,
    forwardStdout: false,
    env: { SCHEDULER: 'off' },
    cpu: layout.server,
  });
  const { seconds: seedSeconds } = await seedScale({ sqlitePath: file, users: USERS, entries: ENTRIES, runs: RUNS });
  const loadBefore = loadavgText();
  const { cookie: admin } = await call(server.base, '/api/user/login', {
    body: { userAccount: 'admin', userPassword: adminPassword },
  });
  const pid = server.child.pid;

  // Cold: the rollups are (re)built by the request itself, day by day. The first round also prepares statements.
  const cold = [];
  for (let i = 0; i < COLD_ROUNDS; i++) {
    dropRollups(file);
    cold.push(await dashboardOnce(server.base, admin));
  }
  const { data: first } = await call(server.base, '/api/dashboard/summary', { cookie: admin });
  if (!first.coins.balanced) throw new Error('seeded ledger does not balance');

  // Warm, each operation alone: interleaved rounds (the order rotates each round), wall ms and server CPU µs.
  const ops = [
    ['summary', '/api/dashboard/summary'],
    ['series 7', '/api/dashboard/series?days=7'],
    ['series 30', '/api/dashboard/series?days=30'],
    ['series 90', '/api/dashboard/series?days=90'],
  ];
  const REPEAT = 5;
  const results = await interleavedRounds(
    ROUNDS,
    ops.map(([, path]) => async () => {
      const cpu = cpuMeter(pid);
      const times = [];
      for (let i = 0; i < REPEAT; i++) {
        const started = performance.now();
        await call(server.base, path, { cookie: admin });
        times.push(performance.now() - started);
      }
      const seconds = cpu();
      return { ms: median(times), cpuUs: seconds === null ? null : (seconds * 1e6) / REPEAT };
    }),
  );
  const pair = [];
  for (let i = 0; i < ROUNDS; i++) pair.push(await dashboardOnce(server.base, admin));

  // GET /api/user/get/login under load: alone, with the warm dashboard asked continuously, and with the dashboard
  // rebuilding its rollups continuously (the worst case: every request a cold one). Interleaved rounds.
  const during = { warm: [], cold: [] };
  const withDashboard = (kind) => async () => {
    let busy = true;
    const dashboards = (async () => {
      while (busy) {
        if (kind === 'cold') dropRollups(file);
        during[kind].push(await dashboardOnce(server.base, admin));
      }
    })();
    const p99 = await loginP99(server.base, admin, layout);
    busy = false;
    await dashboards;
    return p99;
  };
  const [alone, warmLoaded, coldLoaded] = await interleavedRounds(LOAD_ROUNDS, [
    () => loginP99(server.base, admin, layout),
    withDashboard('warm'),
    withDashboard('cold'),
  ]);

  const m = machine();
  console.log(`\ndashboard at scale (${m.cpus} × ${m.cpuModel}, node ${m.node}; a shared machine: compare ratios)`);
  console.log(`load average before: ${loadBefore}; after: ${loadavgText()}`);
  console.log(
    `seeded ${ENTRIES.toLocaleString()} coin entries, ${RUNS.toLocaleString()} runs, ${USERS} users in ${fmt(seedSeconds, 1)} s`,
  );
  const range = (values, digits = 1) => fmtRange(summary(values), digits);
  console.log(
    table(
      ['measure', 'ms (median, range)', 'server CPU µs/request'],
      [
        [`COLD dashboard (summary + 90-day series, rollups rebuilt), ${COLD_ROUNDS} rounds`, range(cold), ''],
        ...ops.map(([name], k) => [
          `  warm ${name} alone, ${ROUNDS} rounds (median of ${REPEAT} each)`,
          range(results[k].map((r) => r.ms)),
          range(
            results[k].map((r) => r.cpuUs),
            0,
          ),
        ]),
        [`warm dashboard (summary + 90-day series, together), ${ROUNDS} rounds`, range(pair), ''],
        [`warm dashboard while under login load (${during.warm.length} asked)`, range(during.warm), ''],
        [`cold dashboard while under login load (${during.cold.length} asked)`, range(during.cold), ''],
        [`GET /api/user/get/login p99, ${CONNECTIONS} connections, no dashboard`, range(alone), ''],
        [`  same load, warm dashboard asked continuously`, range(warmLoaded), ''],
        [`  same load, cold dashboard (rollups rebuilt) continuously`, range(coldLoaded), ''],
      ],
      [1, 2],
    ),
  );
  console.log(`goal: dashboard < 300 ms at 1M entries (reported, not enforced)`);
  // For the summary of `npm run bench` (all.mjs).
  writeResults({
    dashboard: {
      ...m,
      settings: { entries: ENTRIES, runs: RUNS, users: USERS, rounds: ROUNDS, connections: CONNECTIONS },
      ms: summaryOf(pair),
      coldMs: summaryOf(cold),
      loginP99Ms: { idle: median(alone), dashboard: median(warmLoaded), rebuilding: median(coldLoaded) },
      goalMs: 300,
    },
  });
}

runMain(async () => {
  try {
    await main();
  } finally {
    await cleanup();
  }
});
