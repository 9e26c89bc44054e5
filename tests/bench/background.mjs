// `npm run build` first, then `node tests/bench/background.mjs`: what a signed-in user feels while background work
// runs. The production bundle (scheduler on) on a database seeded with bulk SQL (seed-scale.mjs: BENCH_BG_USERS
// users, BENCH_BG_ENTRIES coin entries), on SQLite and (BENCH_DATABASE_URL) PostgreSQL. GET /api/user/get/login is
// sent at a steady BENCH_RATE requests a second by an open-loop generator (paced.mjs: latency counted from each
// request's scheduled send, so a stall is charged in full), measured
//   idle                     nothing else running;
//   statements export task   the whole ledger as one CSV (taskStatements), from its start to its end;
//   quota batch              a BENCH_BG_LINES-line quota CSV (taskQuotaGrant), from its start to its end;
//   ledger check             GET /api/coin/check, again and again for the window;
//   dashboard rollups        the day rollups deleted, then the dashboard (summary + 90-day series) rebuilding them,
//                            again and again for the window.
// The batches are worked by the server's own scheduler; the load starts once the task shows it is running and stops
// when it has ended. The goal (issue 20): p99 <= 50 ms while any job runs. Figures are reported, never enforced.
// The server is pinned to its own core, this script (the generator) to the other. Rounds are interleaved.
//
// Settings (environment, optional and bounded; BENCH_QUICK=1 shrinks the defaults):
//   BENCH_BG_ENTRIES   coin entries seeded                      200000 (quick 20000)
//   BENCH_BG_USERS     users seeded (>= lines + 1000)           10000  (quick 3000)
//   BENCH_BG_LINES     lines of the quota CSV                   5000   (quick 1000)
//   BENCH_RATE         get/login requests a second              200
//   BENCH_BG_WINDOW    seconds of load for idle, check, rollups 5      (quick 2)
//   BENCH_ROUNDS       rounds of every measurement              3      (quick 1)
//   BENCH_DATABASE_URL postgres://…@127.0.0.1/… to also measure PostgreSQL (a private schema, dropped afterwards)
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BenchError,
  ROOT,
  addCleanup,
  checkLoopbackPostgres,
  cleanup,
  cpuLayout,
  createPostgresSchema,
  fmt,
  fmtRange,
  installSignalHandlers,
  interleavedRounds,
  machine,
  pgClient,
  pinSelf,
  runMain,
  setting,
  startAppServer,
  startWatchdog,
  stopChild,
  summary,
  table,
  writeResults,
  api,
} from './lib.mjs';
import { paced, pacedClient } from './paced.mjs';
import { seedScale } from './seed-scale.mjs';

const GOAL_P99_MS = 50;
const JOBS = ['idle', 'statements export task', 'quota batch', 'ledger check', 'dashboard rollups'];
/** The first seeded account a quota line names: shorter account names (u1 … u999) are below the contract's length. */
const FIRST_ACCOUNT = 1000;
const TASK_TIMEOUT_MS = 600_000;

// ---------------------------------------------------------------------------------------------------------------------
// Calls

async function call(base, cookie, path, body) {
  const headers = { 'x-requested-with': 'XMLHttpRequest', cookie };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(TASK_TIMEOUT_MS),
  });
  const json = await response.json();
  if (json.code !== 0) throw new BenchError(`${path}: ${response.status} ${json.code} ${json.message}`);
  return json.data;
}

/** The admin's session cookie (lib.mjs `api`, the benches' one setup call). */
const login = async (base, password) =>
  (await api(base, '/api/user/login', { body: { userAccount: 'admin', userPassword: password } })).sid;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls a task (a few times a second: light next to the load) until `done(task)`; answers the task. */
async function waitForTask(base, cookie, id, done) {
  const deadline = Date.now() + TASK_TIMEOUT_MS;
  for (;;) {
    const task = await call(base, cookie, `/api/task/get?id=${id}`);
    if (done(task)) return task;
    if (Date.now() > deadline) throw new BenchError(`task ${id} still ${task.state} after ${TASK_TIMEOUT_MS} ms`);
    await sleep(50);
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Measurements

/** get/login at the steady rate while `job` runs; `job(stop)` answers when the job has ended. */
async function underLoad(server, cookie, settings, job) {
  const client = pacedClient(server.base);
  const request = async () => {
    const { status, text } = await client.send({ path: '/api/user/get/login', headers: { cookie }, timeoutMs: 60_000 });
    return status === 200 && JSON.parse(text).code === 0;
  };
  try {
    const started = performance.now();
    const ended = job();
    const load = await paced({ rate: settings.rate, seconds: TASK_TIMEOUT_MS / 1000, until: ended, request });
    const outcome = await ended;
    return { load, jobSeconds: (performance.now() - started) / 1000, ...outcome };
  } finally {
    await client.close();
  }
}

/** A batch task from its start to its end: the load begins once the scheduler has taken it up. */
function batchJob(server, cookie, start) {
  return async (measure) => {
    const task = await start();
    await waitForTask(server.base, cookie, task.id, (t) => t.state !== 'queued');
    return measure(async () => {
      const end = await waitForTask(server.base, cookie, task.id, (t) => t.state !== 'queued' && t.state !== 'running');
      if (end.state !== 'done') throw new BenchError(`task ${task.id} (${task.title}) ended ${end.state}`);
      return { items: end.done, failed: end.failed };
    });
  };
}

/** A call repeated until the window has passed (at least once); answers how many times it ran. */
function repeatedJob(settings, once) {
  return (measure) =>
    measure(async () => {
      const until = performance.now() + settings.window * 1000;
      let calls = 0;
      do {
        await once();
        calls++;
      } while (performance.now() < until);
      return { calls };
    });
}

async function dropRollups(target) {
  if (target.sqlitePath) {
    const Database = createRequire(join(ROOT, 'package.json'))('better-sqlite3');
    const db = new Database(target.sqlitePath);
    try {
      db.pragma('busy_timeout = 5000');
      db.prepare('DELETE FROM dashboard_day_rollups').run();
    } finally {
      db.close();
    }
    return;
  }
  const client = await pgClient(target.postgresUrl, target.schema);
  try {
    await client.query('delete from dashboard_day_rollups');
  } finally {
    await client.end().catch(() => {});
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// One database

async function seededServer(db, settings, postgresUrl, layout) {
  const password = randomBytes(12).toString('base64url');
  const target = {};
  if (db === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-background-'));
    addCleanup(() => rmSync(dir, { recursive: true, force: true }));
    target.sqlitePath = join(dir, 'app.db');
    target.databaseUrl = `sqlite:${target.sqlitePath}`;
  } else {
    target.schema = await createPostgresSchema(postgresUrl, 'bg');
    target.postgresUrl = postgresUrl;
    target.databaseUrl = postgresUrl;
  }
  const options = {
    label: db,
    databaseUrl: target.databaseUrl,
    schema: target.schema,
    adminPassword: password,
    forwardStdout: false,
    cpu: layout.server,
    // The scheduler works the batches; it looks for work often, so a task starts soon after it is asked for.
    env: { SCHEDULER: 'on', SCHEDULER_POLL_MS: '100' },
  };
  // Started once to migrate and seed the admin, stopped while the bulk SQL runs.
  await stopChild((await startAppServer(options)).child);
  const seed = await seedScale({ ...target, users: settings.users, entries: settings.entries });
  console.log(`[${db}] seeded ${settings.users} users and ${settings.entries} entries in ${seed.seconds.toFixed(1)} s`);
  const server = await startAppServer(options);
  return { server, cookie: await login(server.base, password), target };
}

async function benchDatabase(db, settings, postgresUrl, layout) {
  const { server, cookie, target } = await seededServer(db, settings, postgresUrl, layout);
  try {
    const csv = ['userAccount,amount', ...Array.from({ length: settings.lines }, (_, i) => `u${FIRST_ACCOUNT + i},1`)]
      .join('\n')
      .concat('\n');
    const jobs = {
      idle: (measure) => measure(() => sleep(settings.window * 1000).then(() => ({}))),
      'statements export task': batchJob(server, cookie, () => call(server.base, cookie, '/api/task/statements', {})),
      'quota batch': batchJob(server, cookie, () =>
        call(server.base, cookie, '/api/task/quota', { csv, unit: 'runs', reason: '压测：后台任务让路' }),
      ),
      'ledger check': repeatedJob(settings, () => call(server.base, cookie, '/api/coin/check')),
      'dashboard rollups': repeatedJob(settings, async () => {
        await dropRollups(target);
        await Promise.all([
          call(server.base, cookie, '/api/dashboard/summary'),
          call(server.base, cookie, '/api/dashboard/series?days=90'),
        ]);
      }),
    };
    const results = await interleavedRounds(
      settings.rounds,
      JOBS.map((name) => async () => {
        const r = await jobs[name]((job) => underLoad(server, cookie, settings, job));
        if (server.child.exitCode !== null || server.child.signalCode !== null)
          throw new BenchError(`the ${db} server exited during ${name}:\n${server.output.tail.slice(-10).join('\n')}`);
        const l = r.load;
        console.log(
          `[${db}]   ${name}: p50 ${fmt(l.latencyMs.p50, 1)} ms, p99 ${fmt(l.latencyMs.p99, 1)} ms, max ` +
            `${fmt(l.latencyMs.max, 1)} ms over ${l.sent} requests in ${fmt(l.seconds, 1)} s` +
            (l.failed + l.unanswered ? `, ${l.failed} failed, ${l.unanswered} unanswered` : '') +
            (r.items !== undefined ? `; ${r.items} items` : '') +
            (r.calls !== undefined ? `; ${r.calls} calls` : ''),
        );
        return r;
      }),
      (round, index) => console.log(`[${db}] round ${round + 1}: ${JOBS[index]}`),
    );
    return {
      database: db,
      jobs: JOBS.map((name, i) => {
        const runs = results[i];
        const p99 = summary(runs.map((r) => r.load.latencyMs.p99));
        return {
          job: name,
          p50Ms: summary(runs.map((r) => r.load.latencyMs.p50)),
          p99Ms: p99,
          maxMs: summary(runs.map((r) => r.load.latencyMs.max)),
          requests: runs.reduce((n, r) => n + r.load.sent, 0),
          failures: runs.reduce((n, r) => n + r.load.failed + r.load.unanswered, 0),
          sendLagMaxMs: Math.max(...runs.map((r) => r.load.sendLagMaxMs)),
          jobSeconds: summary(runs.map((r) => r.jobSeconds)),
          goalMs: name === 'idle' ? null : GOAL_P99_MS,
          met: name === 'idle' || p99.median === null ? null : p99.median <= GOAL_P99_MS,
        };
      }),
    };
  } finally {
    await stopChild(server.child);
  }
}

// ---------------------------------------------------------------------------------------------------------------------

function printReport(settings, layout, results) {
  console.log('');
  console.log(
    `Background work: GET /api/user/get/login at ${settings.rate}/s (open loop, latency from the scheduled send); ` +
      `${settings.entries} entries, ${settings.users} users, a ${settings.lines}-line quota batch, ${settings.rounds} round(s); ` +
      (layout.pinned ? `server on cpu ${layout.server}, load on cpu ${layout.load}` : `not pinned (${layout.why})`) +
      `; load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
  );
  console.log('');
  console.log(
    table(
      ['while', 'db', 'p50 ms', 'p99 ms (range)', 'max ms', 'requests', 'failed', 'job s', 'goal', 'met'],
      results.flatMap((r) =>
        r.jobs.map((j) => [
          j.job,
          r.database,
          fmtRange(j.p50Ms, 1),
          fmtRange(j.p99Ms, 1),
          fmtRange(j.maxMs, 1),
          j.requests,
          j.failures,
          fmtRange(j.jobSeconds, 1),
          j.goalMs === null ? '-' : `p99 <= ${j.goalMs}`,
          j.met === null ? '-' : j.met ? 'yes' : 'NO',
        ]),
      ),
      [2, 3, 4, 5, 6, 7],
    ),
  );
  const lag = Math.max(...results.flatMap((r) => r.jobs.map((j) => j.sendLagMaxMs)));
  if (lag > 10) console.log(`note: the generator itself sent up to ${fmt(lag, 1)} ms late (counted in the latencies)`);
  console.log('');
}

async function main() {
  installSignalHandlers();
  const integer = { integer: true };
  const settings = {
    entries: setting('BENCH_BG_ENTRIES', 200_000, 1000, 5_000_000, { ...integer, quick: 20_000 }),
    users: setting('BENCH_BG_USERS', 10_000, 1100, 1_000_000, { ...integer, quick: 3000 }),
    lines: setting('BENCH_BG_LINES', 5000, 1, 20_000, { ...integer, quick: 1000 }),
    rate: setting('BENCH_RATE', 200, 1, 5000, integer),
    window: setting('BENCH_BG_WINDOW', 5, 1, 60, { ...integer, quick: 2 }),
    rounds: setting('BENCH_ROUNDS', 3, 1, 9, { ...integer, quick: 1 }),
  };
  if (settings.users < settings.lines + FIRST_ACCOUNT)
    throw new BenchError(
      `BENCH_BG_USERS must be at least BENCH_BG_LINES + ${FIRST_ACCOUNT} (the quota CSV's accounts)`,
    );
  if (!existsSync(join(ROOT, 'dist/server/main.js')))
    throw new BenchError('dist/server/main.js is missing; run `npm run build` first');
  const postgresUrl = process.env.BENCH_DATABASE_URL ? checkLoopbackPostgres(process.env.BENCH_DATABASE_URL) : null;
  const databases = ['sqlite', ...(postgresUrl ? ['postgres'] : [])];
  const layout = cpuLayout();
  if (layout.pinned) pinSelf(layout.load);
  const watchdog = startWatchdog(databases.length * (600 + settings.rounds * JOBS.length * (settings.window + 120)));
  console.log(`bench background: ${databases.join(' + ')}`);
  const results = [];
  for (const db of databases) results.push(await benchDatabase(db, settings, postgresUrl, layout));
  printReport(settings, layout, results);
  writeResults({
    background: { ...machine(), settings, pinning: layout, loadAverage: loadavg(), goalP99Ms: GOAL_P99_MS, results },
  });
  clearTimeout(watchdog);
  await cleanup();
  process.exit(0);
}

runMain(main);
