import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dbKind, type TestDatabase } from '../helpers/database.js';
import { startFakeEpay, type FakeEpay } from '../helpers/fake-epay.js';
import { entriesOf, expectLedgerConsistent, newKey } from '../helpers/ledger.js';
import { children, ensureServerBuilt, HttpClient, inspect, kill, startServer } from '../helpers/server-process.js';
import { PASSWORD, uniqueAccount, type TestApp } from '../helpers/test-app.js';

// Payment notifications arriving over real sockets at the production server: on PostgreSQL at two processes on one
// database, as a gateway behind a load balancer sends them. Copies of one notification credit once, a forged one
// nowhere, and the merchant key appears in no process's log.

describe(`payment notifications in server processes (${dbKind()})`, () => {
  let db: TestDatabase | undefined;
  let inspector: TestApp | undefined;
  let gateway: FakeEpay | undefined;

  afterAll(async () => {
    await Promise.all([...children].map((child) => kill(child, 'SIGKILL')));
    await inspector?.built.fastify.close();
    await gateway?.close();
    await db?.drop();
  });

  // PostgreSQL: two processes behind one address, as a load balancer spreads a gateway's retries. SQLite runs one
  // process (its deployments do): the same burst over real sockets, its single writer taking each copy in turn.
  it(`${dbKind() === 'postgres' ? 'two processes take' : 'one process takes'} 40 copies of one notify and the notifies of 19 more orders: each order credited once`, async () => {
    await ensureServerBuilt();
    db = await createTestDatabase();
    gateway = await startFakeEpay('20001', `k-${randomBytes(12).toString('hex')}`);
    const secret = randomBytes(32).toString('base64url');
    const count = dbKind() === 'postgres' ? 2 : 1;
    const servers = await Promise.all(
      Array.from({ length: count }, () => startServer(db!, secret, { LOG_LEVEL: 'info' })),
    );
    const admin = new HttpClient(() => servers[0]!);
    await admin.ok('userLogin', { userAccount: 'admin', userPassword: 'AdminPassw0rd!' });
    const channelId: number = await admin.ok('payChannelAdd', {
      name: '多进程易支付',
      gateway: gateway.gateway,
      pid: gateway.pid,
      key: gateway.key,
      methods: ['alipay'],
      enabled: 1,
    });
    const userAccount = uniqueAccount('p');
    const userId: number = await admin.ok('userAdd', { userAccount, userPassword: PASSWORD });
    const buyer = new HttpClient(() => servers[servers.length - 1]!);
    await buyer.ok('userLogin', { userAccount, userPassword: PASSWORD });
    const orders: { orderNo: string; amount: number }[] = [];
    for (let i = 0; i < 20; i++) {
      const packageId: number = await admin.ok('mallAdd', {
        coinName: `多进程${i}`,
        amount: 100 + i,
        addCoin: 10,
        status: 1,
        sort: 0,
      });
      orders.push(await buyer.ok('orderSubmit', { packageId, channelId, method: 'alipay' }, newKey()));
    }

    const post = (n: number, params: Record<string, string>) =>
      fetch(`${servers[n % servers.length]!.base}/api/pay/notify`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(params),
      }).then((r) => r.text());
    const yuan = (fen: number) => (fen / 100).toFixed(2);
    const [first, ...rest] = orders as [(typeof orders)[0], ...typeof orders];
    const copy = gateway.notification(first.orderNo, yuan(first.amount));
    const forged = { ...gateway.notification(rest[0]!.orderNo, '0.01'), sign: copy.sign! };
    const answers = await Promise.all([
      ...Array.from({ length: 40 }, (_, i) => post(i, copy)),
      ...rest.map((o, i) => post(i, gateway!.notification(o.orderNo, yuan(o.amount)))),
      post(0, forged),
      post(1, forged),
    ]);
    expect(answers.slice(0, 59).every((a) => a === 'success')).toBe(true);
    expect(answers.slice(59)).toEqual(['fail', 'fail']);

    inspector = await inspect(db);
    const credits = (await entriesOf(inspector, userId)).filter((e) => e.kind === 'order_credit');
    expect(credits.map((e) => e.reference).sort()).toEqual(orders.map((o) => o.orderNo).sort());
    expect(credits.every((e) => e.amount === 10)).toBe(true);
    await expectLedgerConsistent(inspector);
    // The processes logged the refusal, never the key.
    const logs = servers.map((s) => s.output());
    expect(logs.join('\n')).toContain('payment notification refused');
    for (const log of logs) expect(log).not.toContain(gateway.key);
    await Promise.all(servers.map((server) => kill(server.child, 'SIGTERM')));
  });

  // The payment checks (asking gateways about orders whose notification may be lost) run in every process: each
  // order due is claimed by one of them, so a gateway is asked about it once, and a paid one is credited once.
  it(`${dbKind() === 'postgres' ? 'two processes share' : 'one process makes'} the checks of 60 due orders: each asked once, the paid one credited once`, async () => {
    await ensureServerBuilt();
    const database = await createTestDatabase();
    const slow = await startFakeEpay('20002', `k-${randomBytes(12).toString('hex')}`);
    slow.latency.ms = 150;
    const secret = randomBytes(32).toString('base64url');
    const count = dbKind() === 'postgres' ? 2 : 1;
    const servers = await Promise.all(Array.from({ length: count }, () => startServer(database, secret)));
    try {
      const admin = new HttpClient(() => servers[0]!);
      await admin.ok('userLogin', { userAccount: 'admin', userPassword: 'AdminPassw0rd!' });
      const channelId: number = await admin.ok('payChannelAdd', {
        name: '查单易支付',
        gateway: slow.gateway,
        pid: slow.pid,
        key: slow.key,
        methods: ['alipay'],
        enabled: 1,
      });
      const orderNos: string[] = [];
      for (let u = 0; u < 3; u++) {
        const userAccount = uniqueAccount('q');
        await admin.ok('userAdd', { userAccount, userPassword: PASSWORD });
        const buyer = new HttpClient(() => servers[u % servers.length]!);
        await buyer.ok('userLogin', { userAccount, userPassword: PASSWORD });
        for (let i = 0; i < 20; i++) {
          const packageId: number = await admin.ok('mallAdd', {
            coinName: `查单${u}-${i}`,
            amount: 100,
            addCoin: 5,
            status: 1,
            sort: 0,
          });
          orderNos.push((await buyer.ok('orderSubmit', { packageId, channelId, method: 'alipay' }, newKey())).orderNo);
        }
      }
      const paid = orderNos[37]!;
      slow.answers.set(paid, { paid: true, tradeNo: 'MP-1', money: '1.00' });
      // Due now (their first check would come two minutes after they were placed).
      const view = await inspect(database);
      await view.built.context.db
        .updateTable('orders')
        .set({ nextCheckAt: 0 })
        .where('orderNo', 'in', orderNos)
        .execute();
      const askedFor = (no: string) =>
        slow.queries.filter((q) => q.get('act') === 'order' && q.get('out_trade_no') === no).length;
      await expect.poll(() => orderNos.every((no) => askedFor(no) >= 1), { timeout: 30_000, interval: 200 }).toBe(true);
      // Two more check intervals: nothing is asked twice (each order's next check is a minute away at least).
      await new Promise((r) => setTimeout(r, 11_000));
      expect(orderNos.filter((no) => askedFor(no) !== 1)).toEqual([]);
      const credits = (await entriesOf(view)).filter((e) => e.reference === paid && e.kind === 'order_credit');
      expect(credits).toHaveLength(1);
      await expectLedgerConsistent(view);
      await view.built.fastify.close();
    } finally {
      await Promise.all(servers.map((server) => kill(server.child, 'SIGKILL')));
      await slow.close();
      await database.drop();
    }
  }, 90_000);
});
