// `npm run bench` (after `npm run build`): payment notifications (issue 34) in the production bundle, both databases.
// Three figures:
// - from a notification's arrival to the payer's phone hearing of it: a 易支付 notification POSTed for one unpaid
//   order at a time while the buyer's event stream (GET /api/events) is open; measured from the moment the POST is
//   sent to the arrival of the order's `confirmed` event (an upper bound of notify → phone: it includes the request's
//   own handling). Goal: p99 ≤ 1 s.
// - BENCH_PAY_ORDERS concurrent notifications for as many different orders: each credited once (the buyers' balances
//   and the ledger check afterwards), and the time the burst took;
// - BENCH_PAY_COPIES concurrent copies of one notification: one credit, the ledger check holds.
// The scheduler is off, so nothing else moves (no query job, no expiry).
//
// Settings (environment, all optional and bounded):
//   BENCH_PAY_SAMPLES   notifications timed one at a time      200 (20..5000)
//   BENCH_PAY_ORDERS    orders notified at once                100 (20..1000, a multiple of 20)
//   BENCH_PAY_COPIES    copies of one notification at once     50  (2..1000)
//   BENCH_DATABASE_URL  postgres://…@127.0.0.1/… to also measure PostgreSQL (a private schema, dropped after)
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BenchError,
  RESULTS_FILE,
  addCleanup,
  api,
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
  openStream,
} from './lib.mjs';

const PID = '30001';
const KEY = `bench-${randomBytes(12).toString('hex')}`;
/** The product's limit of unpaid orders per user: the orders are spread over buyers of this many each. */
const PER_BUYER = 20;

/** The 易支付 signature (as modules/payments/epay-sign.ts): sorted non-empty parameters, the key appended, MD5. */
function signed(params) {
  const text = Object.keys(params)
    .filter((k) => params[k] !== '')
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');
  return {
    ...params,
    sign: createHash('md5')
      .update(text + KEY)
      .digest('hex'),
    sign_type: 'MD5',
  };
}

const notification = (order, tradeNo = `B${order.orderNo}`) =>
  signed({
    pid: PID,
    trade_no: tradeNo,
    out_trade_no: order.orderNo,
    type: 'alipay',
    name: 'bench',
    money: (order.amount / 100).toFixed(2),
    trade_status: 'TRADE_SUCCESS',
  });

async function notify(base, params) {
  const response = await fetch(`${base}/api/pay/notify`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
    signal: AbortSignal.timeout(30_000),
  });
  return response.text();
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function measure(target, settings) {
  const adminPassword = `Bench-${randomBytes(9).toString('base64url')}`;
  const app = await startAppServer({
    label: target.kind,
    databaseUrl: target.databaseUrl,
    schema: target.schema,
    adminPassword,
    forwardStdout: false,
    env: { SCHEDULER: 'off' },
  });
  const streams = [];
  try {
    const { sid: admin } = await api(app.base, '/api/user/login', {
      body: { userAccount: 'admin', userPassword: adminPassword },
    });
    const { data: channelId } = await api(app.base, '/api/pay/channel/add', {
      cookie: admin,
      body: { name: '基准易支付', gateway: 'http://127.0.0.1:9/', pid: PID, key: KEY, methods: ['alipay'], enabled: 1 },
    });
    const password = `Bench-${randomBytes(6).toString('base64url')}`;
    const buyers = [];
    const newBuyer = async () => {
      const userAccount = `pay_${buyers.length}_${randomBytes(3).toString('hex')}`.slice(0, 16);
      await api(app.base, '/api/user/add', { cookie: admin, body: { userAccount, userPassword: password } });
      const { sid } = await api(app.base, '/api/user/login', { body: { userAccount, userPassword: password } });
      const buyer = { userAccount, sid, expected: 0 };
      buyers.push(buyer);
      return buyer;
    };
    let packages = 0;
    /** `count` unpaid online orders of one buyer, each of its own package (1 coin each). */
    const ordersOf = async (buyer, count) => {
      const orders = [];
      for (let i = 0; i < count; i++) {
        const { data: packageId } = await api(app.base, '/api/mall/add', {
          cookie: admin,
          body: { coinName: `基准${packages++}`, amount: 100 + (packages % 900), addCoin: 1, status: 1, sort: 0 },
        });
        const { data: order } = await api(app.base, '/api/order/submit', {
          cookie: buyer.sid,
          key: randomUUID(),
          body: { packageId, channelId, method: 'alipay' },
        });
        orders.push(order);
      }
      return orders;
    };

    // 1. Notify → phone, one at a time.
    const timed = await newBuyer();
    const heard = new Map();
    streams.push(
      await openStream(app.base, timed.sid, (event, at) => {
        if (event.kind === 'order' && event.action === 'confirmed') heard.set(event.orderId, at);
      }),
    );
    const delays = [];
    for (let done = 0; done < settings.samples;) {
      const batch = await ordersOf(timed, Math.min(PER_BUYER, settings.samples - done));
      for (const order of batch) {
        const sent = performance.now();
        if ((await notify(app.base, notification(order))) !== 'success') throw new BenchError('notify refused');
        const deadline = Date.now() + 10_000;
        while (!heard.has(order.id) && Date.now() < deadline) await sleep(1);
        if (!heard.has(order.id)) throw new BenchError(`order ${order.orderNo}: no event within 10 s`);
        delays.push(heard.get(order.id) - sent);
        timed.expected += 1;
        done++;
      }
    }
    delays.sort((a, b) => a - b);

    // 2. Many orders notified at once.
    const burst = [];
    for (let i = 0; i < settings.orders / PER_BUYER; i++) {
      const buyer = await newBuyer();
      for (const order of await ordersOf(buyer, PER_BUYER)) burst.push({ order, buyer });
    }
    const burstStarted = performance.now();
    const burstAnswers = await Promise.all(burst.map(({ order }) => notify(app.base, notification(order))));
    const burstMs = performance.now() - burstStarted;
    if (burstAnswers.some((a) => a !== 'success')) throw new BenchError('a notify of the burst was refused');
    for (const { buyer } of burst) buyer.expected += 1;

    // 3. Copies of one notification at once.
    const copied = await newBuyer();
    const [one] = await ordersOf(copied, 1);
    const copy = notification(one);
    const copiesStarted = performance.now();
    const copyAnswers = await Promise.all(Array.from({ length: settings.copies }, () => notify(app.base, copy)));
    const copiesMs = performance.now() - copiesStarted;
    if (copyAnswers.some((a) => a !== 'success')) throw new BenchError('a copy was refused');
    copied.expected += 1;

    // Each credited once: every buyer's balance is its number of orders, and the ledger check holds.
    const { data: users } = await api(app.base, '/api/user/list/page?current=1&pageSize=100&searchText=pay_', {
      cookie: admin,
      method: 'GET',
    });
    const wrong = buyers.filter((b) => users.records.find((u) => u.userAccount === b.userAccount)?.coin !== b.expected);
    if (wrong.length > 0) throw new BenchError(`${wrong.length} buyers' balances are not their orders' coins`);
    const { data: check } = await api(app.base, '/api/coin/check', { cookie: admin, method: 'GET' });
    if (check.mismatches.length > 0) throw new BenchError('the ledger check found mismatches');

    return {
      database: target.kind,
      samples: delays.length,
      notifyToPhoneP50Ms: percentile(delays, 50),
      notifyToPhoneP99Ms: percentile(delays, 99),
      notifyToPhoneMaxMs: delays.at(-1),
      burstOrders: burst.length,
      burstMs,
      copies: settings.copies,
      copiesMs,
      creditedOnce: true,
      ledgerMismatches: check.mismatches.length,
    };
  } finally {
    for (const stream of streams) stream.destroy();
    await stopChild(app.child);
  }
}

runMain(async () => {
  installSignalHandlers();
  startWatchdog(1200);
  const settings = {
    samples: setting('BENCH_PAY_SAMPLES', 200, 20, 5000, { integer: true, quick: 40 }),
    orders:
      Math.round(setting('BENCH_PAY_ORDERS', 100, 20, 1000, { integer: true, quick: 40 }) / PER_BUYER) * PER_BUYER,
    copies: setting('BENCH_PAY_COPIES', 50, 2, 1000, { integer: true }),
  };
  const targets = [];
  const dir = mkdtempSync(join(tmpdir(), 'bench-payments-'));
  addCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'bench.db');
  targets.push({ kind: 'sqlite', databaseUrl: `sqlite:${path}` });
  if (process.env.BENCH_DATABASE_URL) {
    const url = checkLoopbackPostgres(process.env.BENCH_DATABASE_URL);
    targets.push({ kind: 'postgres', databaseUrl: url, schema: await createPostgresSchema(url, 'bench_pay') });
  }
  const results = [];
  for (const target of targets) results.push(await measure(target, settings));
  console.log(
    `\nPayment notifications: ${settings.samples} timed one at a time (POST sent → the payer's stream hears the order ` +
      `confirmed), ${settings.orders} orders notified at once, ${settings.copies} copies of one notification at once`,
  );
  console.log(
    table(
      ['database', 'p50 ms', 'p99 ms (goal ≤ 1000)', 'max ms', 'burst ms', 'copies ms', 'each credited once'],
      results.map((r) => [
        r.database,
        fmt(r.notifyToPhoneP50Ms, 1),
        fmt(r.notifyToPhoneP99Ms, 1),
        fmt(r.notifyToPhoneMaxMs, 1),
        `${fmt(r.burstMs)} (${r.burstOrders})`,
        `${fmt(r.copiesMs)} (${r.copies})`,
        r.creditedOnce && r.ledgerMismatches === 0 ? 'yes' : 'NO',
      ]),
      [1, 2, 3, 4, 5],
    ),
  );
  writeResults({ payments: { machine: machine(), settings, goalP99Ms: 1000, results } });
  console.log(`\nwritten to ${RESULTS_FILE}`);
  await cleanup();
});
