// `npm run bench` (after `npm run build`): the scheduler of platform services in the production bundle, with a
// zero-latency sandbox that never fails. BENCH_RUNS runs fall due at the same moment (rows written straight into the
// queue, spread over BENCH_SERVICES services of as many users, each run charged 1 coin per_run); the server's own
// scheduler claims, charges, executes and records them. Reported: runs per second (first start to last finish), and
// the lag from each run's scheduled time to its start (p50, p99, max). Afterwards every run must have succeeded with
// one charge each, and the ledger check must report no mismatch. Figures are reported, never enforced.
//
// Settings (environment, all optional and bounded):
//   BENCH_RUNS                 runs falling due at once                          10000 (100..100000)
//   BENCH_SERVICES             services (one user each) the runs are spread over 20    (1..200)
//   BENCH_SCHEDULER_POLL_MS    the server's SCHEDULER_POLL_MS                    200   (10..5000)
//   BENCH_SCHEDULER_CONCURRENCY the server's SCHEDULER_CONCURRENCY               8     (1..256)
//   BENCH_DATABASE_URL         postgres://…@127.0.0.1/… to also measure PostgreSQL (a private schema, dropped afterwards)
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BenchError,
  RESULTS_FILE,
  addCleanup,
  checkLoopbackPostgres,
  cleanup,
  createPostgresSchema,
  fmt,
  installSignalHandlers,
  machine,
  runMain,
  setting,
  startAppServer,
  startWatchdog,
  stopChild,
  table,
  writeResults,
  api,
} from './lib.mjs';

const FINAL = `('succeeded', 'failed', 'refunded', 'skipped')`;

/** The queue's database, opened beside the server: SQLite's file (WAL) or the PostgreSQL schema. */
async function openQueue(target) {
  if (target.kind === 'sqlite') {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(target.path);
    db.pragma('busy_timeout = 10000');
    return {
      insert: async (rows) => {
        const statement = db.prepare(INSERT_ONE);
        db.transaction(() => {
          for (const r of rows) statement.run(...r, r[3]);
        })();
      },
      all: async (sql) => db.prepare(sql).all(),
      close: async () => db.close(),
    };
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: target.url, options: `-c search_path=${target.schema}` });
  await client.connect();
  return {
    async insert(rows) {
      for (let i = 0; i < rows.length; i += 1000) {
        const chunk = rows.slice(i, i + 1000);
        const values = chunk.map((_, j) => {
          const n = j * 6;
          return `($${n + 1}::int, $${n + 2}::int, $${n + 3}::int, $${n + 4}::bigint, $${n + 5}, $${n + 6}::bigint, 'manual', 'due', 0, '', 0, $${n + 4}::bigint)`;
        });
        await client.query(
          `insert into runs (service_id, user_id, platform_id, scheduled_at, day, next_attempt_at, "trigger", state, attempts, result, charged, created_at) values ${values.join(', ')}`,
          chunk.flat(),
        );
      }
    },
    all: async (sql) => (await client.query(sql)).rows,
    close: () => client.end(),
  };
}

const INSERT_ONE = `insert into runs (service_id, user_id, platform_id, scheduled_at, day, next_attempt_at, "trigger", state, attempts, result, charged, created_at)
  values (?, ?, ?, ?, ?, ?, 'manual', 'due', 0, '', 0, ?)`;

const siteDay = (ms) =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone: 'Asia/Shanghai',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(ms);
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function measure(target, settings) {
  const adminPassword = `Bench-${randomBytes(9).toString('base64url')}`;
  const app = await startAppServer({
    label: target.kind,
    databaseUrl: target.databaseUrl,
    schema: target.schema,
    adminPassword,
    forwardStdout: false,
    env: {
      SCHEDULER: 'on',
      SCHEDULER_POLL_MS: String(settings.pollMs),
      SCHEDULER_CONCURRENCY: String(settings.concurrency),
      SANDBOX_LATENCY_MS: '0',
      SANDBOX_FAILURE_PERCENT: '0',
    },
  });
  const { sid: admin } = await api(app.base, '/api/user/login', {
    body: { userAccount: 'admin', userPassword: adminPassword },
  });
  const { data: platformId } = await api(app.base, '/api/platform/add', {
    cookie: admin,
    body: { kind: 'gxy', name: '基准测试', price: 1, billingUnit: 'per_run', retryLimit: 0, status: 1 },
  });
  const perService = Math.ceil(settings.runs / settings.services);
  const services = [];
  const password = `Bench-${randomBytes(6).toString('base64url')}`;
  for (let i = 0; i < settings.services; i++) {
    const userAccount = `sch_${i}_${randomBytes(3).toString('hex')}`.slice(0, 16);
    await api(app.base, '/api/user/add', { cookie: admin, body: { userAccount, userPassword: password } });
    await api(app.base, '/api/user/addCoin', {
      cookie: admin,
      key: `fund-${randomBytes(8).toString('hex')}`,
      body: { userAccount, coin: perService, description: 'bench' },
    });
    const { sid } = await api(app.base, '/api/user/login', { body: { userAccount, userPassword: password } });
    const { data: service } = await api(app.base, '/api/service/save', {
      cookie: sid,
      body: { platformId, settings: { days: [1], checkInTime: '03:00', notify: 'inbox' } },
    });
    services.push(service);
  }

  const queue = await openQueue(target);
  try {
    // Due together a few seconds from now, once every row is written; a run's key is its time, so each service's runs
    // are a millisecond apart. A millisecond of lead per run, at least 4 s: on a busy 2-core machine writing 10,000
    // rows took 2.9 s, past a fixed 4 s lead once the rows were built.
    const dueAt = Date.now() + Math.max(4000, settings.runs);
    const rows = [];
    for (let i = 0; i < settings.runs; i++) {
      const s = services[i % services.length];
      const at = dueAt - Math.floor(i / services.length);
      rows.push([s.id, s.userId, s.platformId, at, siteDay(at), at]);
    }
    const inserted = Date.now();
    await queue.insert(rows);
    if (Date.now() > dueAt)
      throw new BenchError(
        `writing ${settings.runs} runs took ${Date.now() - inserted} ms, past their time; lower BENCH_RUNS`,
      );
    const deadline = Date.now() + 600_000;
    for (;;) {
      const [{ n }] = await queue.all(
        `select count(*) as n from runs where "trigger" = 'manual' and state in ${FINAL}`,
      );
      if (Number(n) >= settings.runs) break;
      if (Date.now() > deadline) throw new BenchError(`only ${n} of ${settings.runs} runs finished in 10 minutes`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const done = await queue.all(
      `select state, scheduled_at, started_at, finished_at, charged from runs where "trigger" = 'manual'`,
    );
    const failed = done.filter((r) => r.state !== 'succeeded' || Number(r.charged) !== 1);
    if (failed.length > 0)
      throw new BenchError(`${failed.length} runs did not succeed with one charge (e.g. ${JSON.stringify(failed[0])})`);
    const [{ n: charges }] = await queue.all(`select count(*) as n from coin_entries where kind = 'service_charge'`);
    if (Number(charges) !== settings.runs) throw new BenchError(`${charges} charges for ${settings.runs} runs`);
    const { data: check } = await api(app.base, '/api/coin/check', { cookie: admin, method: 'GET' });
    if (check.mismatches.length > 0) throw new BenchError(`ledger check: ${check.mismatches.length} mismatches`);
    const lags = done.map((r) => Number(r.started_at) - Number(r.scheduled_at)).sort((a, b) => a - b);
    const first = Math.min(...done.map((r) => Number(r.started_at)));
    const last = Math.max(...done.map((r) => Number(r.finished_at)));
    return {
      database: target.kind,
      runs: settings.runs,
      runsPerSecond: settings.runs / ((last - first) / 1000),
      lagP50Ms: percentile(lags, 50),
      lagP99Ms: percentile(lags, 99),
      lagMaxMs: lags.at(-1),
    };
  } finally {
    await queue.close();
    await stopChild(app.child);
  }
}

runMain(async () => {
  installSignalHandlers();
  startWatchdog(1800);
  const settings = {
    runs: setting('BENCH_RUNS', 10_000, 100, 100_000, { integer: true, quick: 2000 }),
    services: setting('BENCH_SERVICES', 20, 1, 200, { integer: true }),
    pollMs: setting('BENCH_SCHEDULER_POLL_MS', 200, 10, 5000, { integer: true }),
    concurrency: setting('BENCH_SCHEDULER_CONCURRENCY', 8, 1, 256, { integer: true }),
  };
  const targets = [];
  const dir = mkdtempSync(join(tmpdir(), 'bench-scheduler-'));
  addCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'bench.db');
  targets.push({ kind: 'sqlite', path, databaseUrl: `sqlite:${path}` });
  if (process.env.BENCH_DATABASE_URL) {
    const url = checkLoopbackPostgres(process.env.BENCH_DATABASE_URL);
    targets.push({ kind: 'postgres', url, databaseUrl: url, schema: await createPostgresSchema(url, 'bench_sched') });
  }
  const results = [];
  for (const target of targets) results.push(await measure(target, settings));
  console.log(
    `\nScheduler: ${settings.runs} runs due at once, zero-latency sandbox, concurrency ${settings.concurrency}, poll ${settings.pollMs} ms`,
  );
  console.log(
    table(
      ['database', 'runs/s', 'lag p50 ms', 'lag p99 ms', 'lag max ms'],
      results.map((r) => [r.database, fmt(r.runsPerSecond), fmt(r.lagP50Ms), fmt(r.lagP99Ms), fmt(r.lagMaxMs)]),
      [1, 2, 3, 4],
    ),
  );
  writeResults({ scheduler: { machine: machine(), settings, results } });
  console.log(`\nwritten to ${RESULTS_FILE}`);
  await cleanup();
});
