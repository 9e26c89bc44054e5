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
  });
});
