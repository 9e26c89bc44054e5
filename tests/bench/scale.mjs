// `npm run bench` (after `npm run build`): the 1M-row scale test. Seeds 100,000 users and 1,000,000 coin entries with
// bulk SQL (not the API; one user holds 100,000 of them, the others 9 each), then measures the slow calls: a
// statement's page 1 and page 10,000 (numbered, and by cursor where the server hands one out), the user search, the
// ledger check and a 50,000-row export. While each slow call runs, a separate load process (pinned to another core
// with taskset where available, the server to the first) keeps GET /api/user/get/login busy and reports its p99:
// what any other user feels while the slow call runs. Rounds are interleaved; medians and the range are printed.
// Goals are reported, never enforced.
//
// Settings (environment, all optional and bounded):
//   BENCH_ROUNDS        rounds of every measurement                     3       (1..9)
//   BENCH_SCALE_USERS   users seeded                                    100000  (1000..1000000)
//   BENCH_SCALE_ENTRIES entries seeded (100,000 of them on one user)    1000000 (200000..5000000)
//   BENCH_LOAD_CONNECTIONS  concurrent get/login requests of the load   4       (1..64)
//   BENCH_DATABASE_URL  postgres://…@127.0.0.1/… to also measure PostgreSQL (a private schema, dropped afterwards)
import { execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  addCleanup,
  checkLoopbackPostgres,
  cleanup,
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
  startWatchdog,
  stopChild,
  table,
  writeResults,
} from './lib.mjs';

const THIS_FILE = fileURLToPath(import.meta.url);
const HEAVY_ENTRIES = 100_000;
const GOALS = { deepPageRatio: 1.5, searchMs: 20, loadP99Ms: 50 };

// ---------------------------------------------------------------------------------------------------------------------
// The load process: GET /api/user/get/login in a closed loop; latencies recorded between 'start' and 'stop'.

async function runLoad(base, cookie, connections) {
  let recording = false;
  let latencies = [];
  let running = true;
  const one = async () => {
    while (running) {
      const t0 = performance.now();
      try {
        const r = await fetch(`${base}/api/user/get/login`, { headers: { cookie } });
        await r.arrayBuffer();
      } catch {
        // counted by its latency all the same
      }
      if (recording) latencies.push(performance.now() - t0);
    }
  };
  const workers = Array.from({ length: connections }, one);
  process.on('message', (m) => {
    if (m === 'start') {
      latencies = [];
      recording = true;
      process.send({ started: true });
    } else if (m === 'stop') {
      recording = false;
      const sorted = latencies.sort((a, b) => a - b);
      const at = (q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : null);
      process.send({ count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? null });
    } else if (m === 'exit') {
      running = false;
      Promise.all(workers).finally(() => process.exit(0));
    }
  });
  process.send({ ready: true });
}

function pin(pid, cpu) {
  if (cpus().length < 2) return false;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function startLoad(base, cookie, connections) {
  const args = ['--load', base, cookie, String(connections)];
  let child;
  try {
    execFileSync('taskset', ['-c', '1', 'true'], { stdio: 'ignore' });
    child = fork(THIS_FILE, args, { execPath: 'taskset', execArgv: ['-c', '1', process.execPath] });
  } catch {
    child = fork(THIS_FILE, args);
  }
  const ask = (message, key) =>
    new Promise((done) => {
      const on = (m) => {
        if (key in m) {
          child.off('message', on);
          done(m);
        }
      };
      child.on('message', on);
      if (message) child.send(message);
    });
  const ready = Promise.race([
    ask(null, 'ready'),
    new Promise((_, fail) => child.once('exit', (code) => fail(new Error(`load process exited (${code})`)))),
  ]);
  return {
    child,
    ready,
    start: () => ask('start', 'started'),
    stop: () => ask('stop', 'count'),
    end: () => {
      child.send('exit');
      return stopChild(child);
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Seeding with bulk SQL: one statement per table, the same shape on both databases.

const NAMES = ['张伟', '王芳', '李娜', '刘洋', '陈静', '杨磊', '赵敏', '黄强', '周杰', '吴霞'];

/** Statements seeding `users` users (ids 2..users+1; the admin is id 1) and their entries; the heavy user is id 2. */
function seedStatements(users, entries, postgres) {
  const series = (n) =>
    postgres
      ? `select g - 1 as n from generate_series(1, ${n}) g`
      : `with recursive s(n) as (select 0 union all select n + 1 from s where n < ${n - 1}) select n from s`;
  const name = NAMES.map((n, i) => `when ${i} then '${n}'`).join(' ');
  const text = postgres ? '::text' : '';
  const light = entries - HEAVY_ENTRIES;
  const perUser = Math.floor(light / users);
  const hash = `(select password_hash from users where id = 1)`;
  return [
    `insert into users (id, user_account, user_name, user_name_key, password_hash, user_role, status, invitation_code,
       created_at, updated_at)
     select n + 2, 'u' || (n + 2)${text}, (case n % 10 ${name} end) || (n + 2)${text},
       (case n % 10 ${name} end) || (n + 2)${text}, ${hash}, 'user', 'active', 'I' || (n + 2)${text}, 0, 0
     from (${series(users)}) s`,
    // Entry n of the light ones belongs to user 2 + n % users, as its (n / users + 1)th entry.
    `insert into coin_entries (user_id, amount, balance_after, kind, reference, description, created_at)
     select 2 + n % ${users}, 1, ${postgres ? `n / ${users} + 1` : `n / ${users} + 1`}, 'admin_add', 'S' || n${text},
       '种子', 1700000000000 + n
     from (${series(perUser * users)}) s`,
    `insert into coin_entries (user_id, amount, balance_after, kind, reference, description, created_at)
     select 2, 1, ${perUser} + n + 1, 'admin_add', 'H' || n${text}, '种子', 1800000000000 + n
     from (${series(HEAVY_ENTRIES)}) s`,
    `update users set coin = case when id = 2 then ${perUser + HEAVY_ENTRIES} else ${perUser} end where id >= 2`,
  ];
}

async function seedSqlite(path, users, entries) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  // A bench database: a crash while seeding just means seeding again.
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  db.transaction(() => {
    for (const statement of seedStatements(users, entries, false)) db.exec(statement);
  })();
  db.exec('analyze');
  db.close();
}

async function seedPostgres(url, schema, users, entries) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    await client.query('begin');
    for (const statement of seedStatements(users, entries, true)) await client.query(statement);
    await client.query(`select setval(pg_get_serial_sequence('users', 'id'), (select max(id) from users))`);
    await client.query('commit');
    // What autovacuum would do soon after: statistics, and the visibility map index-only scans rely on.
    await client.query('vacuum analyze users');
    await client.query('vacuum analyze coin_entries');
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Measurements

async function call(base, cookie, path) {
  const t0 = performance.now();
  const r = await fetch(`${base}${path}`, { headers: { cookie, 'x-requested-with': 'XMLHttpRequest' } });
  const body = await r.text();
  const ms = performance.now() - t0;
  if (r.status !== 200) throw new Error(`${path} answered ${r.status}: ${body.slice(0, 200)}`);
  return { ms, body };
}

/**
 * One slow call with the load running: a call shorter than a second is repeated for about a second (its median
 * kept), so the load's p99 has enough samples inside the window.
 */
async function measureUnderLoad(load, base, cookie, path) {
  await load.start();
  const times = [];
  const t0 = performance.now();
  do times.push((await call(base, cookie, path)).ms);
  while (performance.now() - t0 < 1000);
  const loadStats = await load.stop();
  return { ms: median(times), calls: times.length, load: loadStats };
}

/**
 * The server's CPU per call with nothing else running (the stable figure on a shared machine: wall time there
 * depends on the neighbours): the call repeated for about a second, at least twice.
 */
async function cpuPerCall(pid, base, cookie, path) {
  const cpu0 = processCpuSeconds(pid);
  const t0 = performance.now();
  let calls = 0;
  do {
    await call(base, cookie, path);
    calls++;
  } while (calls < 2 || performance.now() - t0 < 1000);
  const cpu1 = processCpuSeconds(pid);
  return cpu0 === null || cpu1 === null ? null : ((cpu1 - cpu0) * 1000) / calls;
}

async function login(base, password) {
  const r = await fetch(`${base}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest' },
    body: JSON.stringify({ userAccount: 'admin', userPassword: password }),
  });
  if (r.status !== 200) throw new Error(`login answered ${r.status}`);
  return r.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

async function benchDatabase(db, settings, postgresUrl) {
  const password = randomBytes(12).toString('base64url');
  let databaseUrl;
  let schema;
  if (db === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-scale-'));
    addCleanup(() => rmSync(dir, { recursive: true, force: true }));
    databaseUrl = `sqlite:${join(dir, 'app.db')}`;
  } else {
    schema = await createPostgresSchema(postgresUrl, 'scale');
    databaseUrl = postgresUrl;
  }
  // Started once to create the schema (migrations), stopped while the bulk SQL runs, started again on the data.
  const options = { label: db, databaseUrl, schema, adminPassword: password, forwardStdout: false };
  await stopChild((await startAppServer(options)).child);
  const seedStart = performance.now();
  if (db === 'sqlite') await seedSqlite(databaseUrl.slice('sqlite:'.length), settings.users, settings.entries);
  else await seedPostgres(postgresUrl, schema, settings.users, settings.entries);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  console.log(`[${db}] seeded ${settings.users} users, ${settings.entries} entries in ${seedSeconds.toFixed(1)} s`);
  const server = await startAppServer(options);
  const pinnedServer = pin(server.child.pid, 0);

  console.log(`[${db}] server started again on the seeded data`);
  const cookie = await login(server.base, password);
  const load = startLoad(server.base, cookie, settings.loadConnections);
  await load.ready;
  try {
    // The cursor to page 10,000, as a client would hold it after page 9,999 (absent on a server without cursors).
    const before = JSON.parse(
      (await call(server.base, cookie, '/api/coin/entries?userId=2&current=9999&pageSize=10')).body,
    );
    const cursor = before.data.nextCursor;
    const targets = [
      ['statement page 1', '/api/coin/entries?userId=2&current=1&pageSize=10'],
      ['statement page 10,000 (current)', '/api/coin/entries?userId=2&current=10000&pageSize=10'],
      ...(cursor
        ? [
            [
              'statement page 10,000 (cursor)',
              `/api/coin/entries?userId=2&pageSize=10&cursor=${encodeURIComponent(cursor)}`,
            ],
          ]
        : []),
      ['user search, 5 characters', `/api/user/list/page?searchText=${encodeURIComponent('伟5432')}`],
      ['user search, account', '/api/user/list/page?searchText=u77777'],
      ['user search, 2 characters', `/api/user/list/page?searchText=${encodeURIComponent('王芳')}`],
      ['ledger check', '/api/coin/check'],
      ['export 50,000 rows', '/api/coin/entries/export?userId=2'],
      ['idle (no slow call)', null],
    ];
    const rounds = [];
    for (let round = 0; round < settings.rounds; round++) {
      // Interleaved: every target once per round, the order rotating so none always runs first.
      const order = targets.map((_, i) => targets[(i + round) % targets.length]);
      const results = {};
      for (const [label, path] of order) {
        console.log(`[${db}] round ${round + 1}: ${label}`);
        if (path === null) {
          await load.start();
          await new Promise((r) => setTimeout(r, 1000));
          results[label] = { ms: null, cpuMs: null, calls: 0, load: await load.stop() };
        } else {
          const cpuMs = await cpuPerCall(server.child.pid, server.base, cookie, path);
          results[label] = { ...(await measureUnderLoad(load, server.base, cookie, path)), cpuMs };
        }
        const m = results[label];
        // Each figure as it is measured, so a run cut short still tells what it saw.
        console.log(
          `[${db}]   cpu ${fmt(m.cpuMs, 2)} ms/call, wall ${fmt(m.ms, 1)} ms, get/login p99 ${fmt(m.load.p99, 1)} ms (${m.load.count} requests)`,
        );
      }
      rounds.push(results);
    }
    return { db, seedSeconds, pinned: pinnedServer, targets: targets.map(([l]) => l), rounds };
  } finally {
    await load.end();
    await stopChild(server.child);
  }
}

const range = (values) => {
  const v = values.filter((x) => x !== null && x !== undefined);
  return v.length ? `${fmt(Math.min(...v), 1)}–${fmt(Math.max(...v), 1)}` : '-';
};

function summarise(result) {
  return result.targets.map((label) => {
    const ms = result.rounds.map((r) => r[label].ms);
    const p99 = result.rounds.map((r) => r[label].load.p99);
    const cpu = result.rounds.map((r) => r[label].cpuMs);
    return {
      label,
      cpuMs: cpu[0] === null ? null : median(cpu),
      cpuRange: range(cpu),
      ms: ms[0] === null ? null : median(ms),
      msRange: range(ms),
      loadP99: median(p99.filter((x) => x !== null)),
      loadP99Range: range(p99),
      loadRequests: median(result.rounds.map((r) => r[label].load.count)),
    };
  });
}

function printReport(settings, results) {
  console.log('');
  console.log(
    `Scale: ${settings.users} users, ${settings.entries} entries (${HEAVY_ENTRIES} on one user), ${settings.rounds} round(s), ` +
      `load ${settings.loadConnections} connections of GET /api/user/get/login; node ${process.version}, ${cpus().length} CPU(s)`,
  );
  for (const result of results) {
    const rows = summarise(result);
    console.log('');
    console.log(
      `${result.db}: seeded in ${result.seedSeconds.toFixed(1)} s; server pinned: ${result.pinned ? 'cpu 0' : 'no'}`,
    );
    console.log(
      table(
        [
          'slow call',
          'server CPU ms/call',
          'CPU range',
          'wall ms under load',
          'wall range',
          'get/login p99 ms',
          'p99 range',
          'get/login requests',
        ],
        rows.map((r) => [
          r.label,
          fmt(r.cpuMs, 2),
          r.cpuRange,
          fmt(r.ms, 1),
          r.msRange,
          fmt(r.loadP99, 1),
          r.loadP99Range,
          fmt(r.loadRequests),
        ]),
        [1, 2, 3, 4, 5, 6, 7],
      ),
    );
    const by = Object.fromEntries(rows.map((r) => [r.label, r]));
    // Ratios and the search figure from server CPU per call: wall times on a shared machine measure the neighbours.
    const page1 = by['statement page 1'].cpuMs;
    const deepCursor = by['statement page 10,000 (cursor)']?.cpuMs;
    const deepOffset = by['statement page 10,000 (current)'].cpuMs;
    const searchMs = Math.max(by['user search, 5 characters'].cpuMs, by['user search, account'].cpuMs);
    const slowP99 = Math.max(
      ...['ledger check', 'export 50,000 rows', 'statement page 10,000 (current)'].map((l) => by[l].loadP99),
    );
    console.log('');
    console.log(
      table(
        ['goal', 'figure', 'target', 'met'],
        [
          [
            'page 10,000 / page 1 (cursor), CPU',
            deepCursor ? (deepCursor / page1).toFixed(2) : '-',
            `<= ${GOALS.deepPageRatio}`,
            deepCursor ? (deepCursor / page1 <= GOALS.deepPageRatio ? 'yes' : 'NO') : '-',
          ],
          ['page 10,000 / page 1 (current), CPU', (deepOffset / page1).toFixed(2), '(numbered pages: linear)', '-'],
          [
            'user search (3+ characters), CPU ms',
            fmt(searchMs, 1),
            `<= ${GOALS.searchMs}`,
            searchMs <= GOALS.searchMs ? 'yes' : 'NO',
          ],
          [
            'get/login p99 during check/export/deep page ms',
            fmt(slowP99, 1),
            `<= ${GOALS.loadP99Ms}`,
            slowP99 <= GOALS.loadP99Ms ? 'yes' : 'NO',
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
    rounds: setting('BENCH_ROUNDS', 3, 1, 9, integer),
    users: setting('BENCH_SCALE_USERS', 100_000, 1000, 1_000_000, integer),
    entries: setting('BENCH_SCALE_ENTRIES', 1_000_000, 200_000, 5_000_000, integer),
    loadConnections: setting('BENCH_LOAD_CONNECTIONS', 4, 1, 64, integer),
  };
  const postgresUrl = process.env.BENCH_DATABASE_URL ? checkLoopbackPostgres(process.env.BENCH_DATABASE_URL) : null;
  const databases = ['sqlite', ...(postgresUrl ? ['postgres'] : [])];
  startWatchdog(databases.length * (600 + settings.rounds * 300));
  const results = [];
  for (const db of databases) results.push(await benchDatabase(db, settings, postgresUrl));
  printReport(settings, results);
  writeResults({
    scale: { ...machine(), settings, results: results.map((r) => ({ db: r.db, summary: summarise(r) })) },
  });
  await cleanup();
}

if (process.argv[2] === '--load') runLoad(process.argv[3], process.argv[4], Number(process.argv[5]));
else runMain(main);
