// `npm run bench` (after `npm run build`): the 1M-row scale test, on SQLite and (BENCH_DATABASE_URL) PostgreSQL.
// Seeds 100,000 users and 1,000,000 coin entries with bulk SQL (seed-scale.mjs; 100,000 of them on one user), then
// measures the slow calls: a statement's page 1 and page 10,000 (numbered, and by cursor where the server hands one
// out), the user search, the ledger check and a 50,000-row export. For each: the server's CPU ms per call with nothing
// else running (the stable figure on a shared machine), and its wall time; then, while the call is repeated, wrk (a
// separate process on the load core, lib.mjs runLoad) keeps GET /api/user/get/login busy and reports its p99 in µs:
// what any other user feels while the slow call runs. The server is pinned to its own core. Rounds are interleaved;
// medians and ranges are printed. It also seeds a tenth of the data in a second database and times the ledger check
// there, so "10× the data, 10× the time" can be read off. Goals are reported, never enforced.
//
// Settings (environment, all optional and bounded; BENCH_QUICK=1 shrinks the defaults):
//   BENCH_ROUNDS            rounds of every measurement                       3 (quick 1)        (1..9)
//   BENCH_SCALE_USERS       users seeded                                      100000 (quick 10000)
//   BENCH_SCALE_ENTRIES     entries seeded (100,000 of them on one user)      1000000 (quick 200000)
//   BENCH_LOAD_CONNECTIONS  concurrent get/login connections of the load      4       (1..64)
//   BENCH_SCALE_WINDOW      least seconds of load around each slow call       3 (quick 2) (1..30)
//   BENCH_SCALE_TENTH       1: also the ledger check at a tenth of the data   1       (0..1)
//   BENCH_DATABASE_URL      postgres://…@127.0.0.1/… to also measure PostgreSQL (a private schema, dropped afterwards)
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BenchError,
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
  pinSelf,
  processCpuSeconds,
  readClockTicks,
  runLoad,
  runMain,
  setting,
  startAppServer,
  startWatchdog,
  stopChild,
  summary,
  table,
  writeResults,
} from './lib.mjs';
import { seedScale } from './seed-scale.mjs';

const HEAVY_ENTRIES = 100_000;
const PAGE_SIZE = 10;
const DEEP_PAGE = HEAVY_ENTRIES / PAGE_SIZE;
const GOALS = { deepPageRatio: 1.5, searchMs: 20, loadP99Us: 50_000 };
/** The calls whose concurrent get/login p99 the goal is about. */
const SLOW = ['ledger check', 'export 50,000 rows', `statement page ${DEEP_PAGE.toLocaleString('en')} (current)`];
const CALL_TIMEOUT_MS = 120_000;

// ---------------------------------------------------------------------------------------------------------------------
// Calls

async function call(base, cookie, path) {
  const t0 = performance.now();
  const r = await fetch(`${base}${path}`, {
    headers: { cookie, 'x-requested-with': 'XMLHttpRequest' },
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  const body = await r.text();
  const ms = performance.now() - t0;
  if (r.status !== 200) throw new BenchError(`${path} answered ${r.status}: ${body.slice(0, 200)}`);
  return { ms, body };
}

/** A call that fails (a statement timeout, say) is a result, not the end of the run: its error is reported. */
async function tryCall(base, cookie, path) {
  try {
    return await call(base, cookie, path);
  } catch (error) {
    return { ms: null, error: error.message.split('\n')[0].slice(0, 160) };
  }
}

/** Server CPU ms and wall ms per call with nothing else running: the call repeated for about a second, at least twice. */
async function alone(server, cookie, path) {
  const cpu0 = processCpuSeconds(server.child.pid);
  const walls = [];
  const t0 = performance.now();
  do {
    const r = await tryCall(server.base, cookie, path);
    if (r.error) return { cpuMs: null, wallMs: null, error: r.error };
    walls.push(r.ms);
  } while (walls.length < 2 || performance.now() - t0 < 1000);
  const cpu1 = processCpuSeconds(server.child.pid);
  return {
    cpuMs: cpu0 === null || cpu1 === null ? null : ((cpu1 - cpu0) * 1000) / walls.length,
    wallMs: summary(walls).median,
  };
}

/**
 * wrk's get/login load for a window covering several of the slow calls (at least `window` s, at least twice the
 * call's wall time, at most 60 s), the slow call repeated inside it. wrk's timeout is longer than the window, so a
 * get/login that waited out the whole call still counts in the p99.
 */
async function underLoad(server, cookie, path, wallMs, settings, layout) {
  const duration = Math.min(60, Math.max(settings.window, Math.ceil(((wallMs ?? 0) * 2) / 1000) + 1));
  const loadRun = runLoad({
    url: `${server.base}/api/user/get/login`,
    connections: settings.loadConnections,
    duration,
    headers: { cookie },
    cpu: layout.load,
    timeout: 90,
  });
  let calls = 0;
  let error = null;
  if (path) {
    let done = false;
    loadRun.finally(() => (done = true)).catch(() => {});
    await new Promise((r) => setTimeout(r, 100)); // wrk connected
    while (!done) {
      const r = await tryCall(server.base, cookie, path);
      if (r.error) error = r.error;
      calls++;
    }
  }
  const load = await loadRun;
  return { calls, error, load };
}

function checkAlive(server, what) {
  const { child } = server;
  if (child.exitCode === null && child.signalCode === null) return;
  throw new BenchError(
    `${server.name} server exited (${child.signalCode ?? `code ${child.exitCode}`}) during ${what}; its last lines:\n` +
      server.output.tail.slice(-10).join('\n'),
  );
}

async function login(base, password) {
  const r = await fetch(`${base}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest' },
    body: JSON.stringify({ userAccount: 'admin', userPassword: password }),
    signal: AbortSignal.timeout(30_000),
  });
  if (r.status !== 200) throw new BenchError(`login answered ${r.status}`);
  return r.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

// ---------------------------------------------------------------------------------------------------------------------
// One database

/** A migrated, seeded database with the server started on it (pinned); answers {server, cookie, seed}. */
async function seededServer(db, size, postgresUrl, layout, label) {
  const password = randomBytes(12).toString('base64url');
  let databaseUrl;
  let schema;
  let sqlitePath;
  if (db === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-scale-'));
    addCleanup(() => rmSync(dir, { recursive: true, force: true }));
    sqlitePath = join(dir, 'app.db');
    databaseUrl = `sqlite:${sqlitePath}`;
  } else {
    schema = await createPostgresSchema(postgresUrl, 'scale');
    databaseUrl = postgresUrl;
  }
  // Started once to create the schema (migrations) and the admin, stopped while the bulk SQL runs.
  const options = { label, databaseUrl, schema, adminPassword: password, forwardStdout: false, cpu: layout.server };
  await stopChild((await startAppServer(options)).child);
  const seed = await seedScale({
    sqlitePath,
    postgresUrl,
    schema,
    users: size.users,
    entries: size.entries,
    heavyEntries: size.heavy,
  });
  console.log(
    `[${label}] seeded ${size.users} users, ${size.entries} entries (${size.heavy} on user ${seed.heavyUserId}) in ${seed.seconds.toFixed(1)} s`,
  );
  const server = await startAppServer(options);
  const cookie = await login(server.base, password);
  return { server, cookie, seed };
}

/** The ledger check on a tenth of the data: server CPU ms per check, once per round. */
async function tenthCheck(db, settings, postgresUrl, layout) {
  const size = {
    users: Math.max(100, Math.round(settings.users / 10)),
    entries: Math.round(settings.entries / 10),
    heavy: HEAVY_ENTRIES / 10,
  };
  const { server, cookie } = await seededServer(db, size, postgresUrl, layout, `${db}-tenth`);
  try {
    const runs = [];
    for (let round = 0; round < settings.rounds; round++) runs.push(await alone(server, cookie, '/api/coin/check'));
    checkAlive(server, 'the ledger check at a tenth of the data');
    const error = runs.find((r) => r.error)?.error ?? null;
    return { entries: size.entries, cpuMs: summary(runs.map((r) => r.cpuMs)), error };
  } finally {
    await stopChild(server.child);
  }
}

async function benchDatabase(db, settings, postgresUrl, layout) {
  const tenth = settings.tenth ? await tenthCheck(db, settings, postgresUrl, layout) : null;
  const size = { users: settings.users, entries: settings.entries, heavy: HEAVY_ENTRIES };
  const { server, cookie, seed } = await seededServer(db, size, postgresUrl, layout, db);
  try {
    const heavy = seed.heavyUserId;
    const statement = `/api/coin/entries?userId=${heavy}&pageSize=${PAGE_SIZE}`;
    // The cursor to the deep page, as a client would hold it after the page before (absent without cursors).
    const before = await tryCall(server.base, cookie, `${statement}&current=${DEEP_PAGE - 1}`);
    const cursor = before.body ? JSON.parse(before.body).data?.nextCursor : null;
    const deep = DEEP_PAGE.toLocaleString('en');
    const someone = Math.max(1, Math.floor(settings.users * 0.5432 - ((settings.users * 0.5432) % 10)));
    const targets = [
      ['statement page 1', `${statement}&current=1`],
      [`statement page ${deep} (current)`, `${statement}&current=${DEEP_PAGE}`],
      ...(cursor ? [[`statement page ${deep} (cursor)`, `${statement}&cursor=${encodeURIComponent(cursor)}`]] : []),
      ['user search, 5 characters', `/api/user/list/page?searchText=${encodeURIComponent(`伟${someone}`)}`],
      ['user search, account', `/api/user/list/page?searchText=u${Math.floor(settings.users * 0.7777)}`],
      ['user search, 2 characters', `/api/user/list/page?searchText=${encodeURIComponent('王芳')}`],
      ['ledger check', '/api/coin/check'],
      ['export 50,000 rows', `/api/coin/entries/export?userId=${heavy}`],
      ['idle (no slow call)', null],
    ];
    const results = await interleavedRounds(
      settings.rounds,
      targets.map(([label, path]) => async () => {
        const quiet = path ? await alone(server, cookie, path) : { cpuMs: null, wallMs: null };
        const loaded = await underLoad(server, cookie, path, quiet.wallMs, settings, layout);
        checkAlive(server, label);
        const r = { ...quiet, ...loaded, error: quiet.error ?? loaded.error };
        // Each figure as it is measured, so a run cut short still tells what it saw.
        console.log(
          `[${db}]   ${label}: cpu ${fmt(r.cpuMs, 2)} ms/call, wall ${fmt(r.wallMs, 1)} ms; get/login p99 ` +
            `${fmt(r.load.latencyUs.p99)} µs over ${r.load.requests} requests (${r.calls} calls in ${fmt(r.load.seconds, 1)} s)` +
            (r.load.timeouts + r.load.errors ? `, ${r.load.timeouts} timeouts ${r.load.errors} errors` : '') +
            (r.error ? `; ERROR ${r.error}` : ''),
        );
        return r;
      }),
      (round, index) => console.log(`[${db}] round ${round + 1}: ${targets[index][0]}`),
    );
    const rows = targets.map(([label], i) => {
      const runs = results[i];
      return {
        label,
        cpuMs: summary(runs.map((r) => r.cpuMs)),
        wallMs: summary(runs.map((r) => r.wallMs)),
        p99Us: summary(runs.map((r) => r.load.latencyUs.p99)),
        maxUs: summary(runs.map((r) => r.load.latencyUs.max)),
        requests: summary(runs.map((r) => r.load.requests)),
        loadFailures: runs.reduce((n, r) => n + r.load.timeouts + r.load.errors + r.load.non2xx, 0),
        errors: runs.map((r) => r.error).filter(Boolean),
      };
    });
    return { db, seedSeconds: seed.seconds, rows, figures: figures(rows, tenth, settings), tenth };
  } finally {
    await stopChild(server.child);
  }
}

/** The goal figures, from server CPU per call (wall times on a shared machine measure the neighbours too). */
function figures(rows, tenth, settings) {
  const by = Object.fromEntries(rows.map((r) => [r.label, r]));
  const deep = DEEP_PAGE.toLocaleString('en');
  const page1 = by['statement page 1'].cpuMs;
  const ratio = (row) =>
    row && row.cpuMs.median !== null && page1.median !== null
      ? summary(row.cpuMs.values.map((v, i) => (v === null || !page1.values[i] ? null : v / page1.values[i])))
      : summary([]);
  const searches = ['user search, 5 characters', 'user search, account'].map((l) => by[l].cpuMs);
  const searchMs = summary(searches[0].values.map((v, i) => Math.max(v ?? NaN, searches[1].values[i] ?? NaN)));
  const slowP99 = summary(
    by[SLOW[0]].p99Us.values.map((_, i) => Math.max(...SLOW.map((l) => by[l].p99Us.values[i] ?? NaN))),
  );
  const check = by['ledger check'].cpuMs;
  return {
    deepCursorRatio: ratio(by[`statement page ${deep} (cursor)`]),
    deepCurrentRatio: ratio(by[`statement page ${deep} (current)`]),
    searchMs,
    slowP99Us: slowP99,
    exportMs: by['export 50,000 rows'].cpuMs,
    checkMs: check,
    checkTenthMs: tenth?.cpuMs ?? summary([]),
    checkGrowth:
      tenth && tenth.cpuMs.median && check.median
        ? { ratio: check.median / tenth.cpuMs.median, data: settings.entries / tenth.entries }
        : null,
    idleP99Us: by['idle (no slow call)'].p99Us,
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Report

function printReport(settings, layout, results) {
  console.log('');
  console.log(
    `Scale: ${settings.users} users, ${settings.entries} entries (${HEAVY_ENTRIES} on one user), ${settings.rounds} round(s), ` +
      `wrk load of ${settings.loadConnections} connections on GET /api/user/get/login; ` +
      (layout.pinned ? `server on cpu ${layout.server}, wrk on cpu ${layout.load}` : `not pinned (${layout.why})`) +
      `; load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
  );
  for (const result of results) {
    console.log('');
    console.log(`${result.db}: seeded in ${result.seedSeconds.toFixed(1)} s`);
    console.log(
      table(
        [
          'slow call',
          'server CPU ms/call',
          'wall ms alone',
          'get/login p99 µs meanwhile',
          'max µs',
          'requests',
          'notes',
        ],
        result.rows.map((r) => [
          r.label,
          fmtRange(r.cpuMs, 2),
          fmtRange(r.wallMs, 1),
          fmtRange(r.p99Us),
          fmtRange(r.maxUs),
          fmt(r.requests.median),
          [r.loadFailures ? `${r.loadFailures} get/login failed` : '', r.errors[0] ? `ERROR ${r.errors[0]}` : '']
            .filter(Boolean)
            .join('; '),
        ]),
        [1, 2, 3, 4, 5],
      ),
    );
    const f = result.figures;
    const met = (s, ok) => (s.median === null ? '-' : ok(s.median) ? 'yes' : 'NO');
    console.log('');
    console.log(
      table(
        ['goal', 'median (range)', 'target', 'met'],
        [
          [
            `page ${DEEP_PAGE} / page 1 (cursor), CPU`,
            fmtRange(f.deepCursorRatio, 2),
            `<= ${GOALS.deepPageRatio}`,
            met(f.deepCursorRatio, (v) => v <= GOALS.deepPageRatio),
          ],
          [`page ${DEEP_PAGE} / page 1 (current), CPU`, fmtRange(f.deepCurrentRatio, 2), '(reported)', '-'],
          [
            'user search (3+ characters), CPU ms',
            fmtRange(f.searchMs, 2),
            `<= ${GOALS.searchMs}`,
            met(f.searchMs, (v) => v <= GOALS.searchMs),
          ],
          [
            'get/login p99 during check/export/deep page, µs',
            fmtRange(f.slowP99Us),
            `<= ${GOALS.loadP99Us}`,
            met(f.slowP99Us, (v) => v <= GOALS.loadP99Us),
          ],
          [
            `ledger check CPU ms, ${result.tenth?.entries ?? '-'} → ${settings.entries} entries`,
            `${fmtRange(f.checkTenthMs, 1)} → ${fmtRange(f.checkMs, 1)}` +
              (f.checkGrowth ? ` (${f.checkGrowth.ratio.toFixed(1)}× for ${f.checkGrowth.data}× data)` : ''),
            'about linear',
            '-',
          ],
        ],
        [1],
      ),
    );
  }
  console.log('');
}

async function main() {
  installSignalHandlers();
  readClockTicks();
  const integer = { integer: true };
  const settings = {
    rounds: setting('BENCH_ROUNDS', 3, 1, 9, { ...integer, quick: 1 }),
    users: setting('BENCH_SCALE_USERS', 100_000, 1000, 1_000_000, { ...integer, quick: 10_000 }),
    entries: setting('BENCH_SCALE_ENTRIES', 1_000_000, 200_000, 5_000_000, { ...integer, quick: 200_000 }),
    loadConnections: setting('BENCH_LOAD_CONNECTIONS', 4, 1, 64, integer),
    window: setting('BENCH_SCALE_WINDOW', 3, 1, 30, { ...integer, quick: 2 }),
    tenth: setting('BENCH_SCALE_TENTH', 1, 0, 1, integer) === 1,
  };
  const postgresUrl = process.env.BENCH_DATABASE_URL ? checkLoopbackPostgres(process.env.BENCH_DATABASE_URL) : null;
  const databases = ['sqlite', ...(postgresUrl ? ['postgres'] : [])];
  const layout = cpuLayout();
  if (layout.pinned) pinSelf(layout.load);
  // Seeding a million rows takes a minute or two; every measurement about window + 2 s, the export up to a minute.
  const watchdog = startWatchdog(databases.length * (900 + settings.rounds * 9 * (settings.window + 30)));
  const results = [];
  for (const db of databases) results.push(await benchDatabase(db, settings, postgresUrl, layout));
  printReport(settings, layout, results);
  writeResults({
    scale: {
      ...machine(),
      settings,
      pinning: layout,
      loadAverage: loadavg(),
      goals: GOALS,
      results,
    },
  });
  clearTimeout(watchdog);
  await cleanup();
  process.exit(0);
}

runMain(main);
