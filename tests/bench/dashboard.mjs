// `npm run build` first, then `node tests/bench/dashboard.mjs`: the admin dashboard's answer time at scale.
//
// The production bundle runs on a fresh SQLite file; this script then seeds it with bulk SQL straight into the file
// (seed-scale.mjs, shared with scale.mjs): BENCH_USERS users with a service each, BENCH_ENTRIES coin entries and
// BENCH_RUNS runs spread over the last 120 days, and paid orders. It times, over HTTP, the two
// operations the dashboard screen asks for together (summary + 90-day series): the median of BENCH_ROUNDS rounds.
// Then, while the dashboard is asked again and again, a concurrent load of GET /api/user/get/login (a signed-in
// user's cheapest read) measures its p99, next to the same load's p99 without the dashboard: how long the dashboard's
// statements hold the event loop, as other requests feel it. Figures are reported, never enforced (goal: < 300 ms).
//
// Settings (environment, optional): BENCH_ENTRIES 1000000 · BENCH_RUNS 100000 · BENCH_USERS 2000 · BENCH_ROUNDS 5 ·
// BENCH_CONNECTIONS 8 (concurrent login reads) · BENCH_LOAD_SECONDS 6
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  addCleanup,
  cleanup,
  fmt,
  installSignalHandlers,
  machine,
  median,
  runMain,
  summary as summaryOf,
  writeResults,
  setting,
  startAppServer,
  startWatchdog,
  table,
} from './lib.mjs';
import { seedScale } from './seed-scale.mjs';

const ENTRIES = setting('BENCH_ENTRIES', 1_000_000, 1000, 20_000_000, { integer: true, quick: 200_000 });
const RUNS = setting('BENCH_RUNS', 100_000, 100, 5_000_000, { integer: true, quick: 20_000 });
const USERS = setting('BENCH_USERS', 2000, 10, 100_000, { integer: true });
const ROUNDS = setting('BENCH_ROUNDS', 5, 3, 50, { integer: true });
const CONNECTIONS = setting('BENCH_CONNECTIONS', 8, 1, 64, { integer: true });
const LOAD_SECONDS = setting('BENCH_LOAD_SECONDS', 6, 1, 60, { integer: true, quick: 2 });

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

/** CONNECTIONS loops of GET /api/user/get/login for `seconds`; answers their latencies (ms). */
async function loginLoad(base, cookie, seconds) {
  const until = performance.now() + seconds * 1000;
  const latencies = [];
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        const started = performance.now();
        await call(base, '/api/user/get/login', { cookie });
        latencies.push(performance.now() - started);
      }
    }),
  );
  return latencies;
}

const p99 = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))];
};

async function main() {
  installSignalHandlers();
  startWatchdog(900);
  const dir = mkdtempSync(join(tmpdir(), 'bench-dashboard-'));
  addCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'app.db');
  const adminPassword = 'BenchAdmin-Passw0rd';
  const server = await startAppServer({
    label: 'sqlite',
    databaseUrl: `sqlite:${file}`,
    adminPassword,
    forwardStdout: false,
    env: { SCHEDULER: 'off' },
  });
  const { seconds: seedSeconds } = await seedScale({ sqlitePath: file, users: USERS, entries: ENTRIES, runs: RUNS });
  const { cookie: admin } = await call(server.base, '/api/user/login', {
    body: { userAccount: 'admin', userPassword: adminPassword },
  });
  const { data: summary } = await call(server.base, '/api/dashboard/summary', { cookie: admin });
  if (!summary.coins.balanced) throw new Error('seeded ledger does not balance');

  await dashboardOnce(server.base, admin); // warm-up: statements prepared, pages cached
  const alone = [];
  for (let i = 0; i < ROUNDS; i++) alone.push(await dashboardOnce(server.base, admin));
  const parts = {};
  for (const [name, path] of [
    ['summary', '/api/dashboard/summary'],
    ['series 7', '/api/dashboard/series?days=7'],
    ['series 90', '/api/dashboard/series?days=90'],
  ]) {
    const times = [];
    for (let i = 0; i < ROUNDS; i++) {
      const started = performance.now();
      await call(server.base, path, { cookie: admin });
      times.push(performance.now() - started);
    }
    parts[name] = median(times);
  }

  const baseline = await loginLoad(server.base, admin, LOAD_SECONDS);
  let busy = true;
  const during = [];
  const dashboards = (async () => {
    while (busy) during.push(await dashboardOnce(server.base, admin));
  })();
  const loaded = await loginLoad(server.base, admin, LOAD_SECONDS);
  busy = false;
  await dashboards;

  const m = machine();
  console.log(`\ndashboard at scale (${m.cpus} × ${m.cpuModel}, node ${m.node}; a shared machine: compare ratios)`);
  console.log(
    `seeded ${ENTRIES.toLocaleString()} coin entries, ${RUNS.toLocaleString()} runs, ${USERS} users in ${fmt(seedSeconds, 1)} s`,
  );
  console.log(
    table(
      ['measure', 'ms'],
      [
        [`dashboard (summary + 90-day series, together), median of ${ROUNDS}`, fmt(median(alone), 1)],
        ...Object.entries(parts).map(([name, ms]) => [`  ${name} alone, median`, fmt(ms, 1)]),
        [`dashboard while under login load, median of ${during.length}`, fmt(median(during), 1)],
        [`GET /api/user/get/login p99, ${CONNECTIONS} connections, no dashboard`, fmt(p99(baseline), 1)],
        [`GET /api/user/get/login p99, same load, dashboard asked continuously`, fmt(p99(loaded), 1)],
      ],
      [1],
    ),
  );
  console.log(`goal: dashboard < 300 ms at 1M entries (reported, not enforced)`);
  // For the summary of `npm run bench` (all.mjs).
  writeResults({
    dashboard: {
      ...m,
      settings: { entries: ENTRIES, runs: RUNS, users: USERS, rounds: ROUNDS, connections: CONNECTIONS },
      ms: summaryOf(alone),
      loginP99Ms: { idle: p99(baseline), dashboard: p99(loaded) },
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
