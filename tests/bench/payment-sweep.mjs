// `npm run bench` (after `npm run build`): the payment checks (payments/sweeper.ts PaymentChecks), which ask gateways
// about unpaid online orders whose notification may be lost, in the production bundle with the scheduler on (default
// settings), on SQLite and (BENCH_DATABASE_URL) PostgreSQL. The 易支付 gateway is this script's own (node:http on
// 127.0.0.1): api.php?act=order answered from a map of paid orders, after 0 ms and after BENCH_SWEEP_LATENCY_MS.
// 1. A lost notification among BENCH_SWEEP_ORDERS unpaid orders of one channel (bulk SQL, one attempt each); goal
//    (issue 41): credited ≤ 2 min after the payment. Credit is read from the database (orderCheck would ask itself).
//      spread   ages uniform over the past 15 minutes, each next check where the product's rule left it (created +
//               60 s when younger, else within the next clamp(age/2, 1 min, 1 h)); then one order placed through the
//               API, paid at the gateway, no notification: from placing it to its credit;
//      all due  every seeded order due at once, the paid one last in line: from that moment to its credit;
//    with the questions the gateway got a second meanwhile.
// 2. GET /api/user/get/login at BENCH_RATE/s (open loop, paced.mjs), BENCH_SWEEP_WINDOW s idle, and while the checks
//    of BENCH_SWEEP_HANGING due orders meet a second channel whose gateway accepts connections and never answers (from
//    the moment they are due until every one is checked, at least the window); goal p99 ≤ 50 ms. Server pinned to one
//    core, this script to the other; rounds interleaved, median (min–max).
// Figures are reported, never enforced. A spread scenario lasts over a minute (a new order is first asked about 60 s
// after it was sent), once per latency and database, so even BENCH_QUICK=1 takes a few minutes.
//
// Settings (environment, optional and bounded; BENCH_QUICK=1 shrinks the defaults):
//   BENCH_SWEEP_ORDERS      unpaid orders on the answering channel     10000 (quick 2000)
//   BENCH_SWEEP_HANGING     orders due on the hanging channel          2000  (quick 500)
//   BENCH_SWEEP_LATENCY_MS  the gateway's latency, beside 0 ms         50    (0: only 0 ms)
//   BENCH_RATE              get/login requests a second                200
//   BENCH_SWEEP_WINDOW      seconds of load per measurement, at least  10    (quick 3)
//   BENCH_ROUNDS            rounds of measurement 2                    3     (quick 1)
//   BENCH_DATABASE_URL      postgres://…@127.0.0.1/… to also measure PostgreSQL (a private schema, dropped after)
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BenchError,
  LOOPBACK,
  RESULTS_FILE,
  ROOT,
  addCleanup,
  api,
  checkLoopbackPostgres,
  cleanup,
  cpuLayout,
  createPostgresSchema,
  fmt,
  fmtRange,
  freePort,
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
} from './lib.mjs';
import { paced, pacedClient } from './paced.mjs';

const GOAL_CREDIT_S = 120;
const GOAL_P99_MS = 50;
const MINUTE = 60_000;
/** The product's timing: orders/service.ts FIRST_CHECK_AFTER_MS, sweeper.ts nextCheckDelay and LEASE_MS. */
const FIRST_CHECK_MS = MINUTE;
const nextCheckDelay = (ageMs) => Math.min(60 * MINUTE, Math.max(MINUTE, ageMs / 2));
const LEASE_MS = 2 * MINUTE;
/** How long a paid order may wait for its credit before it is reported as not credited. */
const CREDIT_CAP_MS = 10 * MINUTE;
const PID = '30002';
const KEY = `bench-${randomBytes(12).toString('hex')}`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------------------------------
// The gateways

/**
 * A 易支付 gateway: act=order answered from `paid` (else unpaid) after `latencyMs`; with `hang`, never (the connection
 * stays open until the asker gives up). Counts the questions, and when the last one came.
 */
async function startGateway({ hang = false } = {}) {
  const gw = { paid: new Map(), latencyMs: 0, questions: 0, lastAt: 0, open: new Set() };
  const server = createServer((req, res) => {
    gw.questions++;
    gw.lastAt = Date.now();
    if (hang) {
      gw.open.add(res);
      res.on('close', () => gw.open.delete(res));
      return;
    }
    const query = new URL(req.url, 'http://gateway').searchParams;
    const orderNo = query.get('out_trade_no');
    const paid = gw.paid.get(orderNo);
    const answer =
      query.get('act') !== 'order' || query.get('pid') !== PID || query.get('key') !== KEY
        ? { code: -1, msg: 'KEY校验失败' }
        : { code: 1, status: paid ? 1 : 0, out_trade_no: orderNo, trade_no: paid?.tradeNo, money: paid?.money };
    const send = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    if (gw.latencyMs > 0) setTimeout(send, gw.latencyMs);
    else send();
  });
  const port = await freePort();
  await new Promise((done) => server.listen(port, LOOPBACK, done));
  addCleanup(() => {
    for (const res of gw.open) res.destroy();
    server.closeAllConnections();
    return new Promise((done) => server.close(() => done()));
  });
  return Object.assign(gw, { url: `http://${LOOPBACK}:${port}/` });
}

/** Until the gateway has had no question for a second and holds none (a pass under way has finished). */
async function quiet(gw) {
  const deadline = Date.now() + MINUTE;
  while ((Date.now() - gw.lastAt < 1000 || gw.open.size > 0) && Date.now() < deadline) await sleep(100);
}

// ---------------------------------------------------------------------------------------------------------------------
// The database, straight: the bulk seed, and what the server did

/** This script's own connection to the app's database; `query` takes `?` placeholders on both. */
async function openDb(target) {
  if (target.sqlitePath) {
    const db = new (createRequire(join(ROOT, 'package.json'))('better-sqlite3'))(target.sqlitePath);
    db.pragma('busy_timeout = 5000');
    const query = async (text, params = []) => {
      const statement = db.prepare(text);
      return statement.reader ? statement.all(params) : (statement.run(params), []);
    };
    return { kind: 'sqlite', query, close: async () => db.close() };
  }
  const client = await pgClient(target.databaseUrl, target.schema);
  const query = async (text, params = []) => {
    let n = 0;
    const numbered = text.replace(/\?/g, () => `$${++n}`);
    return (await client.query(numbered, params)).rows;
  };
  return { kind: 'postgres', query, close: () => client.end().catch(() => {}) };
}

/** A scenario's orders share a tag (a capital letter), so one range of order numbers finds them all. */
const orderNo = (tag, i) => `000101${tag}${String(i).padStart(7, '0')}`;
const tagged = (tag) => ['order_no between ? and ?', [orderNo(tag, 0), orderNo(tag, 9_999_999)]];
const COLUMNS =
  'order_no, created_at, next_check_at, user_id, package_id, coin_name, coin_name_key, amount, add_coin, status, ' +
  'channel_id, method, expires_at';

/**
 * Unpaid online orders of one channel, a [createdAt, nextCheckAt] each, and their payment_attempts rows, in one
 * transaction (so they fall due at once); `also` runs inside it. None expires while the bench runs.
 */
async function seedOrders(env, { tag, channelId, times, also }) {
  const { db, ownerId, packageId, coinName, amount } = env;
  const [where, range] = tagged(tag);
  // coin_name_key, the search column, is the folded name: these letters fold to themselves.
  const same = [ownerId, packageId, coinName, coinName, amount, 1, 'pending', channelId, 'alipay'];
  same.push(Date.now() + 30 * 24 * 60 * MINUTE);
  await db.query(db.kind === 'sqlite' ? 'begin immediate' : 'begin');
  try {
    for (let i = 0; i < times.length; i += 500) {
      const rows = times.slice(i, i + 500).map((at, j) => [orderNo(tag, i + j), ...at, ...same]);
      const values = rows.map((row) => `(${row.map(() => '?').join(', ')})`).join(', ');
      await db.query(`insert into orders (${COLUMNS}) values ${values}`, rows.flat());
    }
    await db.query(
      `insert into payment_attempts (order_id, channel_id, method, first_sent_at, last_sent_at)
       select id, channel_id, method, created_at, created_at from orders where ${where}`,
      range,
    );
    await also?.();
    await db.query('commit');
  } catch (error) {
    await db.query('rollback').catch(() => {});
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// 1. A lost notification

/** One order placed through the API on the answering channel, which its gateway reports paid (no notification). */
async function placePaidOrder(env, gw) {
  const body = { packageId: env.packageId, channelId: env.answeringId, method: 'alipay' };
  const { data: order } = await api(env.app.base, '/api/order/submit', { cookie: env.buyer, key: randomUUID(), body });
  gw.paid.set(order.orderNo, { tradeNo: `T${order.orderNo}`, money: (order.amount / 100).toFixed(2) });
  return order;
}

/** Ages uniform over the past 15 minutes, each next check where the product's rule would have left it. */
const spreadTimes = (count, now) =>
  Array.from({ length: count }, () => {
    const age = Math.random() * 15 * MINUTE;
    const next = age < FIRST_CHECK_MS ? now - age + FIRST_CHECK_MS : now + Math.random() * nextCheckDelay(age);
    return [Math.round(now - age), Math.round(next)];
  });

/** Seconds from `since` until the order is paid in the database (polled: admin orderGet would do the same read). */
async function creditedAfter(env, id, since) {
  while (performance.now() - since < CREDIT_CAP_MS) {
    const [row] = await env.db.query('select status from orders where id = ?', [id]);
    if (row.status === 'paid') return (performance.now() - since) / 1000;
    await sleep(100);
  }
  return null;
}

async function lostNotification(env, gw, count, scenario) {
  const tag = String.fromCharCode(65 + env.scenarios++);
  let started, asked, order;
  if (scenario === 'spread') {
    await seedOrders(env, { tag, channelId: env.answeringId, times: spreadTimes(count, Date.now()) });
    [started, asked] = [performance.now(), gw.questions];
    order = await placePaidOrder(env, gw);
  } else {
    // Placed first (its first check a minute away), then last in line as every seeded order falls due before it.
    order = await placePaidOrder(env, gw);
    const now = Date.now();
    const times = Array.from({ length: count }, (_, i) => [now - 5 * MINUTE, now - count + i]);
    const last = () => env.db.query('update orders set next_check_at = ? where id = ?', [now, order.id]);
    await seedOrders(env, { tag, channelId: env.answeringId, times, also: last });
    [started, asked] = [performance.now(), gw.questions];
  }
  const seconds = await creditedAfter(env, order.id, started);
  const questions = gw.questions - asked;
  // Out of the sweep's way for the next scenario: closed long ago, never asked about again.
  const [where, range] = tagged(tag);
  const retire = `update orders set status = 'cancelled', cancelled_at = 0, next_check_at = null where ${where}`;
  await env.db.query(retire, range);
  await quiet(gw);
  const result = { scenario, latencyMs: gw.latencyMs, orders: count, creditedSeconds: seconds, questions };
  result.questionsPerSecond = seconds ? questions / seconds : null;
  console.log(
    `[${env.label}]   ${scenario}, gateway ${gw.latencyMs} ms: credited after ${fmt(seconds, 1)} s, ` +
      `${questions} questions (${fmt(result.questionsPerSecond)}/s)`,
  );
  return result;
}

// ---------------------------------------------------------------------------------------------------------------------
// 2. get/login while the checks meet a gateway that hangs

/** get/login at the steady rate until `until` settles (two minutes at most). */
async function steadyLoad(env, settings, until) {
  const client = pacedClient(env.app.base);
  const request = async () => {
    const sent = { path: '/api/user/get/login', headers: { cookie: env.admin }, timeoutMs: MINUTE };
    const { status, text } = await client.send(sent);
    return status === 200 && JSON.parse(text).code === 0;
  };
  try {
    return await paced({ rate: settings.rate, seconds: 120, until, request });
  } finally {
    await client.close();
  }
}

/**
 * Seconds from `start` until the sweep has checked every hanging-channel order: each has a next check of its own,
 * neither due nor a claim's lease (a check sets created + a minute). Null after a minute.
 */
async function allChecked(env, start) {
  const [where, range] = tagged('H');
  const unchecked = `select count(*) as n from orders where ${where}
    and (next_check_at is null or next_check_at <= ? or next_check_at >= ?)`;
  while (Date.now() - start < MINUTE) {
    const [{ n }] = await env.db.query(unchecked, [...range, start, start + LEASE_MS]);
    if (Number(n) === 0) return (Date.now() - start) / 1000;
    await sleep(250);
  }
  return null;
}

async function whileHanging(env, hang, settings) {
  const [where, range] = tagged('H');
  const [asked, start] = [hang.questions, Date.now()];
  await env.db.query(`update orders set created_at = ?, next_check_at = ? where ${where}`, [start, start, ...range]);
  const checked = allChecked(env, start);
  const load = await steadyLoad(env, settings, Promise.all([sleep(settings.window * 1000), checked]));
  // Parked until the next round, so that the idle measurement is idle.
  await env.db.query(`update orders set next_check_at = null where ${where}`, range);
  await quiet(hang);
  return { load, checkedSeconds: await checked, questions: hang.questions - asked };
}

async function hangingRounds(env, hang, settings) {
  const times = Array.from({ length: settings.hanging }, () => [Date.now(), null]);
  await seedOrders(env, { tag: 'H', channelId: env.hangingId, times });
  const names = ['idle', 'checks on a hanging gateway'];
  const jobs = [
    async () => ({ load: await steadyLoad(env, settings, sleep(settings.window * 1000)) }),
    () => whileHanging(env, hang, settings),
  ];
  const runs = await interleavedRounds(
    settings.rounds,
    jobs.map((job, i) => async () => {
      const r = await job();
      if (env.app.child.exitCode !== null || env.app.child.signalCode !== null)
        throw new BenchError(`the ${env.label} server exited:\n${env.app.output.tail.slice(-10).join('\n')}`);
      const l = r.load.latencyMs;
      console.log(
        `[${env.label}]   ${names[i]}: p50 ${fmt(l.p50, 1)} ms, p99 ${fmt(l.p99, 1)} ms, max ${fmt(l.max, 1)} ms` +
          (i === 0 ? '' : `; all checked after ${fmt(r.checkedSeconds, 1)} s, ${r.questions} hanging questions`),
      );
      return r;
    }),
    (round, i) => console.log(`[${env.label}] round ${round + 1}: ${names[i]}`),
  );
  return names.map((job, i) => {
    const of = (pick) => summary(runs[i].map(pick));
    const [p50Ms, p99Ms, maxMs] = ['p50', 'p99', 'max'].map((p) => of((r) => r.load.latencyMs[p]));
    const goalMs = i === 0 ? null : GOAL_P99_MS;
    return {
      ...{ job, p50Ms, p99Ms, maxMs, goalMs, checkedSeconds: i === 0 ? null : of((r) => r.checkedSeconds) },
      requests: runs[i].reduce((n, r) => n + r.load.sent, 0),
      failures: runs[i].reduce((n, r) => n + r.load.failed + r.load.unanswered, 0),
      met: goalMs === null || p99Ms.median === null ? null : p99Ms.median <= goalMs,
    };
  });
}

// ---------------------------------------------------------------------------------------------------------------------
// One database

/** The admin, the two channels, a package, the buyer who places the paid orders and the owner of the seeded ones. */
async function setUp(app, label, target, password, gateways) {
  const login = (userAccount) => api(app.base, '/api/user/login', { body: { userAccount, userPassword: password } });
  const { sid: admin } = await login('admin');
  const call = async (path, body) => (await api(app.base, path, { cookie: admin, body })).data;
  const channel = (name, gw) =>
    call('/api/pay/channel/add', { name, gateway: gw.url, pid: PID, key: KEY, methods: ['alipay'], enabled: 1 });
  const account = async (prefix) => {
    const userAccount = `${prefix}_${randomBytes(4).toString('hex')}`;
    await call('/api/user/add', { userAccount, userPassword: password });
    return userAccount;
  };
  const env = { app, label, admin, coinName: '补单基准', amount: 990, scenarios: 0 };
  const { coinName, amount } = env;
  env.packageId = await call('/api/mall/add', { coinName, amount, addCoin: 1, status: 1, sort: 0 });
  env.answeringId = await channel('基准易支付', gateways.answering);
  env.hangingId = await channel('基准易支付（不应答）', gateways.hanging);
  const owner = await account('swp_own');
  env.buyer = (await login(await account('swp_buy'))).sid;
  env.db = await openDb(target);
  [{ id: env.ownerId }] = await env.db.query('select id from users where user_account = ?', [owner]);
  return env;
}

async function benchDatabase(label, settings, postgresUrl, layout, gateways) {
  const target = {};
  if (label === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-sweep-'));
    addCleanup(() => rmSync(dir, { recursive: true, force: true }));
    target.sqlitePath = join(dir, 'app.db');
    target.databaseUrl = `sqlite:${target.sqlitePath}`;
  } else {
    target.databaseUrl = postgresUrl;
    target.schema = await createPostgresSchema(postgresUrl, 'bench_sweep');
  }
  const password = `Bench-${randomBytes(9).toString('base64url')}`;
  // No SCHEDULER settings: the defaults, so the payment checks look for due orders every 5 s.
  const options = { ...target, label, adminPassword: password, forwardStdout: false, cpu: layout.server };
  const app = await startAppServer(options);
  let env;
  try {
    env = await setUp(app, label, target, password, gateways);
    const lost = [];
    for (const latencyMs of settings.latencies) {
      gateways.answering.latencyMs = latencyMs;
      for (const scenario of ['spread', 'all due'])
        lost.push(await lostNotification(env, gateways.answering, settings.orders, scenario));
    }
    return { database: label, lost, hanging: await hangingRounds(env, gateways.hanging, settings) };
  } finally {
    await env?.db.close();
    await stopChild(app.child);
  }
}

// ---------------------------------------------------------------------------------------------------------------------

const met = (ok) => (ok === null ? '-' : ok ? 'yes' : 'NO');
const lostRow = (db, l) => {
  const credited = l.creditedSeconds === null ? `> ${CREDIT_CAP_MS / 1000}` : fmt(l.creditedSeconds, 1);
  const ok = l.creditedSeconds !== null && l.creditedSeconds <= GOAL_CREDIT_S;
  return [db, l.latencyMs, l.scenario, credited, l.questions, fmt(l.questionsPerSecond), met(ok)];
};
const loadRow = (db, j) => [
  ...[j.job, db, fmtRange(j.p50Ms, 1), fmtRange(j.p99Ms, 1), fmtRange(j.maxMs, 1), j.requests, j.failures],
  ...[j.checkedSeconds ? fmtRange(j.checkedSeconds, 1) : '-', j.goalMs ? `p99 <= ${j.goalMs}` : '-', met(j.met)],
];

function printReport(settings, layout, results) {
  console.log(
    `\nA lost notification among ${settings.orders} unpaid orders of one channel: from the payment to the order paid ` +
      'in the database, and the questions the gateway got meanwhile',
  );
  const lostHeader = ['db', 'gateway ms', 'scenario', `credited after s (goal <= ${GOAL_CREDIT_S})`, 'questions', '/s'];
  const lost = results.flatMap((r) => r.lost.map((l) => lostRow(r.database, l)));
  console.log(table([...lostHeader, 'met'], lost, [1, 3, 4, 5]));
  console.log(
    `\nGET /api/user/get/login at ${settings.rate}/s (open loop), idle and while ${settings.hanging} due orders are ` +
      `checked against a gateway that never answers; ${settings.rounds} round(s); ` +
      (layout.pinned ? `server on cpu ${layout.server}, load on cpu ${layout.load}` : `not pinned (${layout.why})`),
  );
  const loadHeader = ['while', 'db', 'p50 ms', 'p99 ms', 'max ms', 'requests', 'failed', 'checked s', 'goal', 'met'];
  const load = results.flatMap((r) => r.hanging.map((j) => loadRow(r.database, j)));
  console.log(table(loadHeader, load, [2, 3, 4, 5, 6, 7]));
}

runMain(async () => {
  installSignalHandlers();
  const integer = { integer: true };
  const latency = setting('BENCH_SWEEP_LATENCY_MS', 50, 0, 4000, integer);
  const settings = {
    orders: setting('BENCH_SWEEP_ORDERS', 10_000, 100, 1_000_000, { ...integer, quick: 2000 }),
    hanging: setting('BENCH_SWEEP_HANGING', 2000, 10, 100_000, { ...integer, quick: 500 }),
    latencies: [...new Set([0, latency])],
    rate: setting('BENCH_RATE', 200, 1, 5000, integer),
    window: setting('BENCH_SWEEP_WINDOW', 10, 1, 50, { ...integer, quick: 3 }),
    rounds: setting('BENCH_ROUNDS', 3, 1, 9, { ...integer, quick: 1 }),
  };
  if (!existsSync(join(ROOT, 'dist/server/main.js')))
    throw new BenchError('dist/server/main.js is missing; run `npm run build` first');
  const postgresUrl = process.env.BENCH_DATABASE_URL ? checkLoopbackPostgres(process.env.BENCH_DATABASE_URL) : null;
  const databases = ['sqlite', ...(postgresUrl ? ['postgres'] : [])];
  const layout = cpuLayout();
  if (layout.pinned) pinSelf(layout.load);
  const perDatabase = 300 + settings.latencies.length * 2 * (CREDIT_CAP_MS / 1000 + 60) + settings.rounds * 2 * 200;
  const watchdog = startWatchdog(databases.length * perDatabase);
  const gateways = { answering: await startGateway(), hanging: await startGateway({ hang: true }) };
  console.log(`bench payment-sweep: ${databases.join(' + ')}`);
  const results = [];
  for (const label of databases) results.push(await benchDatabase(label, settings, postgresUrl, layout, gateways));
  printReport(settings, layout, results);
  const goals = { goalCreditSeconds: GOAL_CREDIT_S, goalP99Ms: GOAL_P99_MS };
  const report = { ...machine(), settings, pinning: layout, loadAverage: loadavg(), ...goals, results };
  writeResults({ paymentSweep: report });
  console.log(`\nwritten to ${RESULTS_FILE}`);
  clearTimeout(watchdog);
  await cleanup();
  process.exit(0);
});
