// `npm run bench` after the build: every bench script in turn, each in a process of its own, then one table of every
// figure of issue 10's goals (median (range), the goal beside it) read back from dist/bench/results.json, and the
// total time. A script that is not there (yet) is reported and skipped, one that fails does not stop the others; the
// exit code is non-zero when any failed. Arguments name scripts to run instead of the list below
// (`node tests/bench/all.mjs run.mjs`).
//
//   BENCH_QUICK=1        every script with its quick defaults (1 round, short runs, a fifth of the data): minutes
//                        instead of the better part of an hour; checks the benches work, its figures are not the ones
//                        to report
//   BENCH_DATABASE_URL   PostgreSQL for the scripts that measure it; unset, the local test database
//                        (postgres://postgres@127.0.0.1:5432/test, each script in a schema of its own, dropped after) is
//                        used when it answers; BENCH_DATABASE_URL=none measures SQLite only
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { QUICK, RESULTS_FILE, fmt, fmtRange, pgClient, summary, table } from './lib.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const DEFAULT_POSTGRES = 'postgres://postgres@127.0.0.1:5432/test';

/**
 * In the order a reader of the report wants them: read path, ledger (with its raw ceiling), scheduler, event stream,
 * scale, requests while background work runs, a second worker, dashboard, page weight.
 */
const SCRIPTS = [
  'run.mjs',
  'transfers.mjs',
  'scheduler.mjs',
  'events.mjs',
  'payments.mjs',
  'payment-sweep.mjs',
  'scale.mjs',
  'background.mjs',
  'workers.mjs',
  'dashboard.mjs',
  'page-weight.mjs',
];

async function choosePostgres() {
  const set = process.env.BENCH_DATABASE_URL;
  if (set === 'none') {
    delete process.env.BENCH_DATABASE_URL;
    return 'not measured (BENCH_DATABASE_URL=none)';
  }
  if (set) return set;
  try {
    const client = await pgClient(DEFAULT_POSTGRES);
    await client.end();
    process.env.BENCH_DATABASE_URL = DEFAULT_POSTGRES;
    return DEFAULT_POSTGRES;
  } catch (error) {
    return `not measured (${DEFAULT_POSTGRES} did not answer: ${error.message}; set BENCH_DATABASE_URL)`;
  }
}

const duration = (seconds) => `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;

// ---------------------------------------------------------------------------------------------------------------------
// The goal table, from results.json

const asSummary = (m) => (m && m.median !== undefined ? { values: m.values ?? [m.min, m.max], ...m } : summary([]));
const met = (value, ok) => (value === null || value === undefined ? '-' : ok(value) ? 'yes' : 'NO');

function goalRows(r) {
  const rows = [];
  const add = (figure, value, goal, ok) => rows.push([figure, value, goal, ok]);

  // Issue 19: each read ≥ 0.8× the stack's own ceiling (a bare Fastify route doing the same read), both databases.
  for (const s of r.api?.ofStack ?? [])
    add(
      `${s.label}, ${s.database}: app / bare Fastify doing the same read (CPU µs app / ceiling)`,
      `${fmtRange(s.ratio, 2)} (${fmt(s.appCpuMicrosPerRequest)} / ${fmt(s.ceilingCpuMicrosPerRequest)} µs)`,
      `>= ${s.goal}`,
      met(s.ratio.median, (v) => v >= s.goal),
    );
  for (const ratio of r.api?.ofBareNodeHttp ?? [])
    add(
      `${ratio.path}${ratio.baseline ? ' (bare Fastify)' : ''}, ${ratio.database}: ratio to bare node:http (CPU µs/req)`,
      `${fmtRange(ratio.ratio, 2)} (${fmt(ratio.appCpuMicrosPerRequest)} µs)`,
      '(reported)',
      '',
    );
  if (r.api) add('  bare node:http CPU µs/request', fmt(r.api.bareCpuMicrosPerRequest), '', '');

  const transfers = r.transfers?.results ?? [];
  const ceilings = transfers.find((t) => Object.keys(t.ceilings ?? {}).length)?.ceilings ?? {};
  const names = {
    sqlite: 'SQLite',
    postgres: 'PostgreSQL',
  };
  for (const t of transfers) {
    // A target without a goal of its own (postgres) is there for comparison: reported, never met or missed.
    const hasGoal = typeof t.goal === 'number';
    add(
      `POST transferCoin, ${names[t.database] ?? t.database}: ratio (transfers/s, CPU µs, p99 µs)`,
      `${fmtRange(summary(t.roundRatios), 3)} (${t.transfersRange} /s, ${fmt(t.serverCpuMicros)} µs, p99 ${fmt(t.p99Micros)})`,
      hasGoal ? `>= ${t.goal}` : '(reported)',
      hasGoal ? met(t.ratio, (v) => v >= t.goal) : '',
    );
  }
  // Issue 19's user-facing goal: at a steady 200 transfers a second, p99 ≤ 15 ms (open loop, from scheduled sends).
  for (const t of transfers)
    if (t.steady)
      add(
        `POST transferCoin at a steady ${t.steady.rate}/s, ${names[t.database] ?? t.database}: p99 ms (p50; CPU µs)`,
        `${t.steady.p99Range} (p50 ${fmt(t.steady.p50Ms, 1)}; ${fmt(t.steady.serverCpuMicros)} µs)`,
        `<= ${t.steady.goalP99Ms}`,
        met(t.steady.p99Ms, (v) => v <= t.steady.goalP99Ms),
      );
  const byDb = Object.fromEntries(transfers.map((t) => [t.database, t]));
  for (const [db, mode, label] of [['sqlite', 'five', 'raw 5-statement ceiling']]) {
    const c = ceilings[mode];
    if (!c || !byDb[db]) continue;
    add(
      `  app's share of the raw better-sqlite3 ceiling, ${label}`,
      `${fmt(byDb[db].transfersPerSecond / c.transfersPerSecond, 3)} (ceiling ${c.range} /s)`,
      '(reported)',
      '',
    );
  }

  // Issue 23: what a second worker buys on PostgreSQL (reported).
  for (const w of r.workers?.ratios ?? [])
    add(`WORKERS=2 / WORKERS=1 on PostgreSQL, ${w.name}: req/s`, fmtRange(asSummary(w.ratio), 2), '(reported)', '');
  for (const s of r.scale?.results ?? []) {
    const f = s.figures;
    add(
      `${(r.scale.settings.entries / 1e6).toLocaleString('en')}M entries, ${s.db}: statement page 10,000 / page 1, by cursor (CPU)`,
      fmtRange(asSummary(f.deepCursorRatio), 2),
      '<= 1.5',
      met(f.deepCursorRatio?.median, (v) => v <= 1.5),
    );
    add(`  page 10,000 / page 1, numbered (current=)`, fmtRange(asSummary(f.deepCurrentRatio), 2), '(reported)', '');
    add(
      `  user search, CPU ms`,
      fmtRange(asSummary(f.searchMs), 2),
      '<= 20',
      met(f.searchMs?.median, (v) => v <= 20),
    );
    add(
      `  get/login p99 µs while a check/export/deep page runs`,
      `${fmtRange(asSummary(f.slowP99Us))} (idle ${fmtRange(asSummary(f.idleP99Us))})`,
      '<= 50000',
      met(f.slowP99Us?.median, (v) => v <= 50_000),
    );
    add(`  export 50,000 rows, server CPU ms`, fmtRange(asSummary(f.exportMs)), '(reported)', '');
    add(
      `  ledger check CPU ms, a tenth of the data → all of it`,
      `${fmtRange(asSummary(f.checkTenthMs), 1)} → ${fmtRange(asSummary(f.checkMs), 1)}` +
        (f.checkGrowth ? ` (${fmt(f.checkGrowth.ratio, 1)}× for ${f.checkGrowth.data}× data)` : ''),
      '~10×, not more',
      met(f.checkGrowth?.ratio, (v) => v <= 1.5 * (f.checkGrowth?.data ?? 10)),
    );
  }

  for (const b of r.background?.results ?? []) {
    const idle = b.jobs.find((j) => j.job === 'idle');
    for (const j of b.jobs.filter((j) => j.goalMs !== null))
      add(
        `get/login p99 ms at ${r.background.settings.rate}/s (open loop), ${b.database}, while: ${j.job}`,
        `${fmtRange(asSummary(j.p99Ms), 1)} (idle ${idle ? fmtRange(asSummary(idle.p99Ms), 1) : '-'})`,
        `<= ${j.goalMs}`,
        met(j.p99Ms?.median, (v) => v <= j.goalMs),
      );
  }

  // Issue 34: from a payment notification's arrival to the payer's phone hearing of it.
  for (const p of r.payments?.results ?? []) {
    add(
      `payment notify → payer's event stream, ${p.database}: p99 ms (p50)`,
      `${fmt(p.notifyToPhoneP99Ms, 1)} (${fmt(p.notifyToPhoneP50Ms, 1)})`,
      `<= ${r.payments.goalP99Ms}`,
      met(p.notifyToPhoneP99Ms, (v) => v <= r.payments.goalP99Ms),
    );
    add(
      `  ${p.burstOrders} orders notified at once / ${p.copies} copies of one: each credited once`,
      `${fmt(p.burstMs)} ms / ${fmt(p.copiesMs)} ms`,
      'once each',
      p.creditedOnce && p.ledgerMismatches === 0 ? 'yes' : 'NO',
    );
  }
  // Issue 41: a lost notification found by the payment checks; get/login while they wait on a gateway that hangs.
  const sweep = r.paymentSweep;
  for (const s of sweep?.results ?? []) {
    for (const l of s.lost)
      add(
        `lost notification among ${l.orders} unpaid orders, ${s.database}, ${l.scenario}, gateway ${l.latencyMs} ms: ` +
          'credited after s (questions/s)',
        `${l.creditedSeconds === null ? 'not credited' : fmt(l.creditedSeconds, 1)} (${fmt(l.questionsPerSecond)})`,
        `<= ${sweep.goalCreditSeconds}`,
        met(l.creditedSeconds ?? Infinity, (v) => v <= sweep.goalCreditSeconds),
      );
    const idle = s.hanging.find((j) => j.goalMs === null);
    for (const j of s.hanging.filter((j) => j.goalMs !== null))
      add(
        `get/login p99 ms at ${sweep.settings.rate}/s (open loop), ${s.database}, while: ${j.job}`,
        `${fmtRange(asSummary(j.p99Ms), 1)} (idle ${idle ? fmtRange(asSummary(idle.p99Ms), 1) : '-'})`,
        `<= ${j.goalMs}`,
        met(j.p99Ms?.median, (v) => v <= j.goalMs),
      );
  }
  if (r.dashboard) {
    add(
      `admin dashboard (summary + series), ${r.dashboard.settings.entries.toLocaleString('en')} entries, ms`,
      fmtRange(asSummary(r.dashboard.ms), 1),
      `< ${r.dashboard.goalMs}`,
      met(r.dashboard.ms.median, (v) => v < r.dashboard.goalMs),
    );
  }
  if (r.pageWeight) {
    const kb = r.pageWeight.login.body / 1024;
    add(
      '/login, KB as received (brotli)',
      fmt(kb, 1),
      `<= ${fmt(r.pageWeight.loginBudget / 1024)}`,
      met(kb, (v) => v <= r.pageWeight.loginBudget / 1024),
    );
  }
  for (const page of ['home', 'login']) {
    const l = r.lighthouse?.[page];
    if (!l) continue;
    if (l.skipped) add(`Lighthouse mobile, ${page === 'home' ? '/' : '/login'}`, `skipped: ${l.skipped}`, '', '');
    else
      add(
        `Lighthouse mobile, ${page === 'home' ? '/' : '/login'} (median of ${l.runs.filter((run) => !run.skipped).length})`,
        fmtRange(asSummary(l.score)),
        '>= 95',
        met(l.score.median, (v) => v >= 95),
      );
  }
  for (const s of r.scheduler?.results ?? [])
    add(
      `scheduler, ${s.database}: runs/s (lag p99 ms)`,
      `${fmt(s.runsPerSecond)} (${fmt(s.lagP99Ms)})`,
      '(reported)',
      '',
    );
  for (const e of r.events?.results ?? []) {
    add(
      `event stream, ${e.database}: ${e.streams} idle streams, RSS MB before → open (idle CPU %)`,
      `${fmt(e.rssBeforeMb, 1)} → ${fmt(e.rssOpenMb, 1)} (${fmt(e.idleCpuPercent, 2)})`,
      '(reported)',
      '',
    );
    add(
      `  commit → delivery at ${fmt(e.eventsPerSecond)} events/s, p99 ms (p50)`,
      `${fmt(e.delayP99Ms, 1)} (${fmt(e.delayP50Ms, 1)})`,
      '(reported)',
      '',
    );
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------------------------------

const started = Date.now();
const wanted = process.argv.length > 2 ? process.argv.slice(2) : SCRIPTS;
// Figures of an earlier run must not pass for this one's; a run of chosen scripts adds to the last full run's instead.
if (process.argv.length <= 2 && existsSync(RESULTS_FILE))
  renameSync(RESULTS_FILE, RESULTS_FILE.replace(/\.json$/, '.previous.json'));
const postgres = await choosePostgres();
const loadBefore = loadavg();
console.log(
  `bench: ${wanted.join(', ')}${QUICK ? ' — QUICK (BENCH_QUICK=1: short runs, less data; not figures to report)' : ''}`,
);
console.log(`PostgreSQL: ${postgres}`);

const outcomes = [];
for (const script of wanted) {
  const path = join(HERE, script);
  if (!existsSync(path)) {
    console.log(`\n=== ${script}: not present, skipped`);
    outcomes.push([script, 'missing']);
    continue;
  }
  console.log(`\n=== ${script}`);
  const scriptStarted = Date.now();
  // The child inherits the environment (BENCH_* settings) and the terminal; Ctrl-C reaches it directly.
  const { status, signal } = spawnSync(process.execPath, [path], { stdio: 'inherit' });
  const seconds = Math.round((Date.now() - scriptStarted) / 1000);
  outcomes.push([script, status === 0 ? `ok (${seconds} s)` : `FAILED (${signal ?? `exit ${status}`}, ${seconds} s)`]);
  if (signal === 'SIGINT' || signal === 'SIGTERM') break;
}

let results = {};
try {
  results = JSON.parse(readFileSync(RESULTS_FILE, 'utf8'));
} catch {
  // nothing written: every script failed
}
const seconds = (Date.now() - started) / 1000;
console.log(`\n=== bench summary (issue 10's goals; median (range) over the rounds; reported, never enforced)`);
console.log(
  `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}; load average ${loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ` +
    `${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} after${QUICK ? '; QUICK run' : ''}`,
);
console.log(table(['figure', 'median (range)', 'goal', 'met'], goalRows(results), []));
console.log('');
for (const [script, outcome] of outcomes) console.log(`  ${script.padEnd(18)} ${outcome}`);
console.log(`  total              ${duration(seconds)}`);
process.exit(outcomes.some(([, outcome]) => outcome.startsWith('FAILED')) ? 1 : 0);
