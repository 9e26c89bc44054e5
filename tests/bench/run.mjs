// `npm run bench` (after `npm run build`): read-path throughput of the production bundle against the stack's own
// ceiling, bare Fastify routes doing the same database work (bare-fastify.mjs), measured in the same run: issue 19's
// goal is app / ceiling ≥ 0.8 for both reads on both databases. A bare node:http hello world is measured too and the
// ratios to it are printed for reference, not as goals.
//
// How it stays honest on a small, shared machine:
// - the servers (bare and app) are pinned to one core, the load generator (wrk, a separate process) and this process
//   to the other(s) (`taskset`; without it nothing is pinned and the report says so);
// - every target runs once per round and the order rotates each round (interleaved), BENCH_ROUNDS rounds;
// - the ratio app/bare is taken per round (bare from the same round), then the median and the range are printed;
// - the server's CPU µs per request (from /proc/<pid>/stat) is printed too: it barely moves when other work shares the
//   machine, so "bare µs / app µs" is the figure to trust when the req/s ranges are wide.
// Goals are reported, never enforced: the exit code is non-zero only when a server fails to start or answers errors.
//
// Settings (environment, all optional and bounded; BENCH_QUICK=1: 1 round, 1 s warm-up, 2 s runs):
//   BENCH_CONNECTIONS   concurrent connections                           10   (1..256)
//   BENCH_WARMUP        warm-up seconds per target, before round one     2    (0..30)
//   BENCH_DURATION      measured seconds per run                         5    (1..60)
//   BENCH_ROUNDS        interleaved rounds                               3    (1..9)
//   BENCH_DATABASE_URL  postgres://…@127.0.0.1/… to also measure PostgreSQL (a private schema, dropped afterwards)
//   BENCH_CPU_PROF      1: run the app and the bare Fastify ceiling with --cpu-prof, profiles in dist/bench/profiles
//   BENCH_COMPARE       a directory holding another build (its dist/server/main.js, e.g. main's, built in a copy of the
//                       repository): measured in the same rounds, labelled "(compare)", for before/after on a busy
//                       machine where figures from different runs do not compare
//   BENCH_LOADGEN       wrk (default when installed) or autocannon (in-process fallback, cannot be pinned apart)
//   BENCH_SERVER_CPU / BENCH_LOAD_CPU   taskset CPU lists overriding the automatic layout
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BenchError,
  RESULTS_FILE,
  ROOT,
  addCleanup,
  checkLoopbackPostgres,
  cleanup,
  cpuLayout,
  cpuProfDirSetting,
  createPostgresSchema,
  fmt,
  fmtRange,
  installSignalHandlers,
  interleavedRounds,
  loadGenerator,
  machine,
  pinSelf,
  readClockTicks,
  runLoad,
  runMain,
  setting,
  startAppServer,
  startBareServer,
  startWatchdog,
  summary,
  table,
  writeResults,
} from './lib.mjs';
import { startBareFastify } from './bare-fastify.mjs';

/** Issue 10's table: app/bare ratio per endpoint and database (the bare Fastify baseline has none: it is the ceiling). */
/**
 * Issue 19: each read at least 0.8× the stack's own ceiling, a bare Fastify route doing the same database work
 * (bare-fastify.mjs), on both databases. The ratios to bare node:http are printed for reference, never as goals.
 */
const STACK_GOAL = 0.8;

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
// Requests outside the load: login and a probe of every target before and after its runs.

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

/** wrk counts statuses, not bodies: each target's answer is checked to be the success envelope outside the load. */
async function probe(url, headers) {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  if (response.status !== 200 || !text.startsWith('{"code":0')) {
    throw new BenchError(`${url} answered HTTP ${response.status}: ${text.slice(0, 300)}`);
  }
  return Buffer.byteLength(text);
}

function checkAlive(server, what) {
  const { child } = server;
  if (child.exitCode === null && child.signalCode === null) return;
  throw new BenchError(
    `${server.name} server exited (${child.signalCode ?? `code ${child.exitCode}`}) while ${what} was measured` +
      (server.output.tail.length ? `; its last lines:\n${server.output.tail.slice(-10).join('\n')}` : ''),
  );
}

// ---------------------------------------------------------------------------------------------------------------------
// Report

function problemsOf(target, runs) {
  const problems = [];
  const sum = (key) => runs.reduce((n, r) => n + r[key], 0);
  if (sum('non2xx')) problems.push(`${sum('non2xx')} answers with status >= 400`);
  if (sum('errors')) problems.push(`${sum('errors')} socket errors`);
  if (sum('timeouts')) problems.push(`${sum('timeouts')} timeouts`);
  if (runs.some((r) => r.requests === 0)) problems.push('a run with no answers');
  return problems.map((p) => `${target.label}${target.db ? ` (${target.db})` : ''}: ${p}`);
}

function printReport(settings, layout, generator, targets, bareRuns, ratios, ofStack) {
  console.log('');
  console.log(
    `Read path: ${settings.connections} connections, ${settings.warmup} s warm-up per target, ${settings.duration} s per run, ` +
      `${settings.rounds} interleaved round(s); load by ${generator.name}; node ${process.version}, ${cpus().length} CPU(s); ` +
      (layout.pinned
        ? `servers pinned to CPU ${layout.server}, load generator and orchestrator to CPU ${layout.load}`
        : `NOT pinned (${layout.why})`),
  );
  console.log(
    `Load average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')} (1/5/15 min; above ${cpus().length} other work shared these cores, trust CPU µs over req/s).`,
  );
  console.log('Each cell: median (min–max) over the rounds; latencies are medians of each run’s percentile.');
  console.log('');
  const rows = targets.map(({ target, runs }) => [
    target.label,
    target.db ?? '-',
    fmtRange(summary(runs.map((r) => r.requestsPerSecond))),
    fmtRange(summary(runs.map((r) => r.latencyUs.p50))),
    fmtRange(summary(runs.map((r) => r.latencyUs.p99))),
    fmtRange(summary(runs.map((r) => r.serverCpuMicrosPerRequest)), 1),
    fmtRange(summary(runs.map((r) => (r.serverCpuShare === null ? null : r.serverCpuShare * 100)))),
  ]);
  console.log(
    table(['target', 'db', 'req/s', 'p50 µs', 'p99 µs', 'srv CPU µs/req', 'srv CPU %'], rows, [2, 3, 4, 5, 6]),
  );
  console.log('');
  console.log(
    table(
      ['app / bare Fastify doing the same read', 'db', 'ratio req/s (per round)', 'ratio CPU µs', 'goal', 'met'],
      ofStack.map((r) => [
        r.label,
        r.database,
        fmtRange(r.ratio, 3),
        fmt(r.cpuRatio, 3),
        `>= ${r.goal.toFixed(2)}`,
        r.met ? 'yes' : 'NO',
      ]),
      [2, 3],
    ),
  );
  console.log('');
  const bareCpu = summary(bareRuns.map((r) => r.serverCpuMicrosPerRequest)).median;
  console.log(
    table(
      ['of bare node:http (reported, not a goal)', 'db', 'ratio req/s (per round)', 'ratio CPU µs (bare/app)'],
      ratios.map((r) => [
        r.path + (r.baseline ? ' (bare Fastify)' : ''),
        r.database,
        fmtRange(r.ratio, 3),
        fmt(r.cpuRatio, 3),
      ]),
      [2, 3],
    ),
  );
  console.log(
    `(bare node:http: ${fmt(bareCpu, 1)} µs CPU per request; "ratio CPU µs" is the ratio the req/s would show if the ` +
      'server core were the only limit, the figure to trust when the machine is shared)',
  );
  console.log('');
}

// ---------------------------------------------------------------------------------------------------------------------

async function main() {
  installSignalHandlers();
  readClockTicks();
  const settings = {
    connections: setting('BENCH_CONNECTIONS', 10, 1, 256, { integer: true }),
    warmup: setting('BENCH_WARMUP', 2, 0, 30, { integer: true, quick: 1 }),
    duration: setting('BENCH_DURATION', 5, 1, 60, { integer: true, quick: 2 }),
    rounds: setting('BENCH_ROUNDS', 3, 1, 9, { integer: true, quick: 1 }),
  };
  const postgresUrl = process.env.BENCH_DATABASE_URL ? checkLoopbackPostgres(process.env.BENCH_DATABASE_URL) : null;
  const cpuProfDir = cpuProfDirSetting();
  const databases = ['sqlite', ...(postgresUrl ? ['postgres'] : [])];
  const compareMainJs = process.env.BENCH_COMPARE ? join(process.env.BENCH_COMPARE, 'dist/server/main.js') : null;
  if (compareMainJs && !existsSync(compareMainJs)) throw new BenchError(`BENCH_COMPARE: ${compareMainJs} is missing`);
  const builds = [
    { suffix: '', mainJs: undefined },
    ...(compareMainJs ? [{ suffix: ' (compare)', mainJs: compareMainJs }] : []),
  ];
  const layout = cpuLayout();
  const generator = loadGenerator();
  if (layout.pinned) pinSelf(layout.load);

  const targetCount = 1 + builds.length * databases.length * ENDPOINTS.length + databases.length;
  const plannedSeconds = targetCount * (settings.warmup + settings.rounds * settings.duration);
  // Bounded, generously: on a busy machine a run overshoots its seconds and each app may take up to 120 s to start.
  const watchdog = startWatchdog(plannedSeconds * 2 + 120 * (1 + builds.length * databases.length));

  const mainJs = join(ROOT, 'dist/server/main.js');
  if (!existsSync(mainJs)) throw new BenchError('dist/server/main.js is missing; run `npm run build` first');
  const tmp = mkdtempSync(join(tmpdir(), 'points-mall-bench-'));
  addCleanup(() => rmSync(tmp, { recursive: true, force: true }));
  if (cpuProfDir) mkdirSync(cpuProfDir, { recursive: true });
  const adminPassword = `Bench-${randomBytes(9).toString('base64url')}`;

  console.log(
    `bench: ${databases.join(' + ')}; about ${plannedSeconds} s of load` +
      (postgresUrl ? '' : ' (set BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test to add PostgreSQL)'),
  );
  const bare = await startBareServer({ cpu: layout.server });
  const targets = [{ label: 'bare node:http hello', db: null, server: bare, path: '/', headers: {} }];
  for (const build of builds) {
    for (const db of databases) {
      const databaseUrl = db === 'sqlite' ? `sqlite:${join(tmp, `bench${targets.length}.db`)}` : postgresUrl;
      const schema = db === 'postgres' ? await createPostgresSchema(postgresUrl) : undefined;
      const label = `${db}${build.suffix}`;
      console.log(`starting app on ${label} …`);
      const app = await startAppServer({
        label: label.replace(/\W+/g, '-'),
        databaseUrl,
        schema,
        adminPassword,
        cpuProfDir,
        cpu: layout.server,
        mainJs: build.mainJs,
      });
      const cookie = await login(app.base, adminPassword);
      for (const endpoint of ENDPOINTS) {
        targets.push({
          label: `${endpoint.label}${build.suffix}`,
          endpoint,
          db,
          server: app,
          path: endpoint.path,
          headers: endpoint.withCookie ? { cookie } : {},
        });
      }
      if (build.suffix === '') {
        // The stack's ceiling for each read on the same database and session: bare Fastify routes, one prepared read.
        const baseline = await startBareFastify({
          databaseUrl,
          schema,
          sessionSecret: app.sessionSecret,
          cpu: layout.server,
          cpuProfDir,
        });
        for (const endpoint of ENDPOINTS)
          targets.push({
            label: `${endpoint.label} — bare Fastify, prepared read`,
            endpoint,
            baseline: true,
            db,
            server: baseline,
            path: endpoint.path,
            headers: endpoint.withCookie ? { cookie } : {},
          });
      }
    }
  }

  const load = (target, duration) =>
    runLoad({
      url: `${target.server.base}${target.path}`,
      connections: settings.connections,
      duration,
      headers: target.headers,
      cpu: layout.load,
      serverPid: target.server.child.pid,
    });
  for (const target of targets) {
    target.bytes = await probe(`${target.server.base}${target.path}`, target.headers);
    if (settings.warmup > 0) {
      console.log(`  warming up ${target.db ?? ''} ${target.label} …`);
      await load(target, settings.warmup);
      checkAlive(target.server, target.label);
    }
  }
  const results = await interleavedRounds(
    settings.rounds,
    targets.map((target) => async () => {
      const result = await load(target, settings.duration);
      checkAlive(target.server, target.label);
      return result;
    }),
    (round, index) => console.log(`  round ${round + 1}: ${targets[index].db ?? ''} ${targets[index].label} …`),
  );
  for (const target of targets) await probe(`${target.server.base}${target.path}`, target.headers);

  const bareRuns = results[0];
  const bareCpu = summary(bareRuns.map((r) => r.serverCpuMicrosPerRequest)).median;
  const ratios = targets.slice(1).map((target, i) => {
    const runs = results[i + 1];
    const appCpu = summary(runs.map((r) => r.serverCpuMicrosPerRequest)).median;
    return {
      endpoint: target.endpoint.key,
      path: target.path + (target.label.endsWith(' (compare)') ? ' (compare)' : ''),
      database: target.db,
      ratio: summary(runs.map((r, round) => r.requestsPerSecond / bareRuns[round].requestsPerSecond)),
      cpuRatio: bareCpu === null || appCpu === null ? null : bareCpu / appCpu,
      appCpuMicrosPerRequest: appCpu,
      baseline: !!target.baseline,
    };
  });
  // Each app read (and the compared build's) against the bare Fastify route doing the same read: the goal.
  const cpuOf = (runs) => summary(runs.map((r) => r.serverCpuMicrosPerRequest)).median;
  const ofStack = targets.flatMap((target, i) => {
    if (target.baseline || !target.endpoint) return [];
    const ceiling = targets.findIndex((t) => t.baseline && t.db === target.db && t.endpoint === target.endpoint);
    const [app, bareFastify] = [results[i], results[ceiling]];
    const ratio = summary(app.map((r, round) => r.requestsPerSecond / bareFastify[round].requestsPerSecond));
    const [appCpu, ceilingCpu] = [cpuOf(app), cpuOf(bareFastify)];
    return [
      {
        label: target.label,
        database: target.db,
        ratio,
        cpuRatio: appCpu === null || ceilingCpu === null ? null : ceilingCpu / appCpu,
        appCpuMicrosPerRequest: appCpu,
        ceilingCpuMicrosPerRequest: ceilingCpu,
        goal: STACK_GOAL,
        met: ratio.median >= STACK_GOAL,
      },
    ];
  });
  const perTarget = targets.map((target, i) => ({ target, runs: results[i] }));
  printReport(settings, layout, generator, perTarget, bareRuns, ratios, ofStack);

  const problems = perTarget.flatMap(({ target, runs }) => problemsOf(target, runs));
  writeResults({
    api: {
      ...machine(),
      settings,
      pinning: layout,
      loadAverage: loadavg(),
      loadGenerator: generator.name,
      stackGoal: STACK_GOAL,
      bareCpuMicrosPerRequest: bareCpu,
      ofBareNodeHttp: ratios,
      ofStack,
      targets: perTarget.map(({ target, runs }) => ({
        label: target.label,
        database: target.db,
        path: target.path,
        responseBytes: target.bytes,
        runs,
      })),
      problems,
    },
  });
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
