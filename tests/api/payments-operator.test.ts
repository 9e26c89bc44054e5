import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sweepPayments } from '../../src/server/modules/payments/sweeper.js';
import type { ApiClient } from '../helpers/client.js';
import { auditTrail } from '../helpers/audit.js';
import { startFakeEpay, type FakeEpay } from '../helpers/fake-epay.js';
import { balanceOf, entriesOf, expectLedgerConsistent, grant, idem } from '../helpers/ledger.js';
import { useTestApp } from '../helpers/test-app.js';

// What the operator sees and does (issue 41), on SQLite and PostgreSQL: 回调记录 with every notification and its
// verdict (never a key or a signature), each order's payment timeline, 补单, 渠道自检, second payments (需退款) and
// refunds, with the ledger check, the agent's rebate and the dashboard's revenue consistent after each.

const app = useTestApp();
let gw: FakeEpay;
let channel: number;

beforeAll(async () => {
  gw = await startFakeEpay('40001', 'operator-gateway-key-0123456789');
  channel = await (
    await app().admin()
  ).ok('payChannelAdd', {
    body: { name: '运营易支付', gateway: gw.gateway, pid: gw.pid, key: gw.key, methods: ['alipay'], enabled: 1 },
  });
});
afterAll(async () => {
  await gw.close();
});
afterEach(async () => {
  gw.answers.clear();
  gw.refundAnswer.answer = 'ok';
  await expectLedgerConsistent(app());
});

const db = () => app().built.context.db;
let names = 0;
const addPackage = async (amount: number, addCoin: number): Promise<number> =>
  (await app().admin()).ok('mallAdd', { body: { coinName: `运营${names++}`, amount, addCoin, status: 1, sort: 0 } });
const buy = (client: ApiClient, packageId: number, channelId = channel) =>
  client.ok('orderSubmit', { body: { packageId, channelId, method: 'alipay' }, headers: idem() });
const notify = async (params: Record<string, string>, ip = '203.0.113.9') =>
  (await app().client().call('payNotifyForm', { body: params, withoutCsrf: true, ip })).data as string;
const sandboxChannel = () =>
  db().selectFrom('paymentChannels').select('id').where('kind', '=', 'sandbox').executeTakeFirstOrThrow();
const refund = (admin: ApiClient, paymentId: number, mode: 'gateway' | 'offline', key?: string) =>
  admin.call('orderRefund', { body: { paymentId, mode }, headers: idem(key) });
const paymentsOf = async (admin: ApiClient, orderId: number) =>
  (await admin.ok('orderPaymentPage', { body: { orderId } })).records;

describe('回调记录', () => {
  it('keeps every notification with its sender and verdict in words, never the key or the signature', async () => {
    const buyer = await app().newUser();
    const placed = await buy(buyer.client, await addPackage(990, 99));
    const good = gw.notification(placed.orderNo, '9.90');
    expect(await notify({ ...good, sign: '0'.repeat(32) })).toBe('fail');
    expect(await notify(gw.notification(placed.orderNo, '9.99'))).toBe('fail');
    expect(await notify(gw.notification(placed.orderNo, '9.90', { pid: '1' }))).toBe('fail');
    expect(await notify(gw.notification('261129ZZZZZZZZ', '9.90'))).toBe('fail');
    expect(await notify(good)).toBe('success');
    expect(await notify(good)).toBe('success');
    expect(await notify(gw.notification(placed.orderNo, '9.90', { trade_no: 'SECOND-1' }))).toBe('success');

    const admin = await app().admin();
    const log = await admin.ok('payNotifyLogPage', {
      body: { searchText: placed.orderNo.toLowerCase(), pageSize: 20 },
    });
    expect(log.records.map((r: { verdict: string }) => r.verdict)).toEqual([
      'second_payment',
      'duplicate',
      'credited',
      'wrong_merchant',
      'wrong_amount',
      'bad_signature',
    ]);
    expect(log.records.find((r: { verdict: string }) => r.verdict === 'wrong_amount')).toMatchObject({
      orderId: placed.id,
      channelName: '运营易支付',
      money: '9.99',
      expectedAmount: 990,
      method: 'alipay',
      sender: '203.0.113.9',
      tradeNo: `T${placed.orderNo}`,
    });
    // The unknown order is kept too, under the number the gateway sent.
    const unknown = await admin.ok('payNotifyLogPage', { body: { searchText: '261129ZZZZZZZZ' } });
    expect(unknown.records).toMatchObject([{ verdict: 'unknown_order', orderId: null, orderNo: '261129ZZZZZZZZ' }]);
    const refused = await admin.ok('payNotifyLogPage', {
      body: { accepted: false, channelId: channel, pageSize: 100 },
    });
    expect(refused.records.every((r: { verdict: string }) => !['credited', 'duplicate'].includes(r.verdict))).toBe(
      true,
    );
    const stored = await db().selectFrom('paymentEvents').selectAll().execute();
    expect(JSON.stringify([log, stored])).not.toContain(gw.key);
    expect(JSON.stringify([log, stored])).not.toContain(good.sign);
  });
});

describe('an order’s payment timeline and 补单', () => {
  it('tells created, sent where, each notification and query with its verdict, credited, in order', async () => {
    const admin = await app().admin();
    const buyer = await app().newUser();
    const sandbox = await sandboxChannel();
    const placed = await buy(buyer.client, await addPackage(330, 33), sandbox.id);
    await buyer.client.ok('orderPay', { body: { id: placed.id, channelId: channel, method: 'alipay' } });
    gw.answers.set(placed.orderNo, { paid: false });
    const asked = await admin.ok('orderReconcile', { body: { id: placed.id } });
    expect(asked.answers.map((a: { channelId: number; verdict: string }) => [a.channelId, a.verdict])).toEqual([
      [sandbox.id, 'not_paid'],
      [channel, 'not_paid'],
    ]);
    expect(await notify(gw.notification(placed.orderNo, '3.30'))).toBe('success');
    const timeline = (await admin.ok('orderEventPage', { body: { orderId: placed.id, pageSize: 50 } })).records;
    expect(timeline.map((r: { kind: string; verdict: string | null }) => [r.kind, r.verdict])).toEqual([
      ['created', null],
      ['sent', null],
      ['sent', null],
      ['query', 'not_paid'],
      ['query', 'not_paid'],
      // The cause, then the effect: the notification, then the credit it made.
      ['notify', 'credited'],
      ['credited', null],
    ]);
    expect(timeline[1]).toMatchObject({ channelId: sandbox.id, method: 'alipay' });
    expect(timeline[3]).toMatchObject({ source: 'admin', actorAccount: 'admin' });
    expect(await admin.ok('orderGet', { query: { id: placed.id } })).toMatchObject({
      status: 'paid',
      needsRefund: false,
    });
  });

  it('补单 credits a paid order once with its audit, and records a second payment as 需退款', async () => {
    const admin = await app().admin();
    const buyer = await app().newUser();
    const placed = await buy(buyer.client, await addPackage(450, 45));
    gw.answers.set(placed.orderNo, { paid: true, tradeNo: 'RECON-1', money: '4.50' });
    const [first, second] = await Promise.all([
      admin.ok('orderReconcile', { body: { id: placed.id } }),
      admin.ok('orderReconcile', { body: { id: placed.id } }),
    ]);
    expect([first.answers[0].verdict, second.answers[0].verdict].sort()).toEqual(['credited', 'duplicate']);
    expect(await balanceOf(app(), buyer.id)).toBe(45);
    const trail = await auditTrail(app(), 'order', placed.id);
    expect(trail.filter((a) => a.action === 'order.reconcile')).toHaveLength(1);
    expect(trail.filter((a) => a.action === 'order.ask')).toHaveLength(2);

    // The payer paid again at the gateway (another trade number): recorded, flagged, no coins.
    gw.answers.set(placed.orderNo, { paid: true, tradeNo: 'RECON-2', money: '4.50' });
    const again = await admin.ok('orderReconcile', { body: { id: placed.id } });
    expect(again.answers[0].verdict).toBe('second_payment');
    expect(again.order).toMatchObject({ needsRefund: true, status: 'paid' });
    expect(await balanceOf(app(), buyer.id)).toBe(45);
    const flagged = await admin.ok('orderListPage', { body: { needsRefund: true, pageSize: 100 } });
    expect(flagged.records.map((o: { id: number }) => o.id)).toContain(placed.id);
    const offline = await buyer.client.ok('orderSubmit', {
      body: { packageId: await addPackage(100, 1) },
      headers: idem(),
    });
    const refused = await admin.call('orderReconcile', { body: { id: offline.id } });
    expect([refused.status, refused.code]).toEqual([409, 40900]);
    expect(refused.message).toContain('确认收款');
  });
});

describe('渠道自检', () => {
  it('says whether the address, merchant id and key are right, and shows the last notification', async () => {
    const admin = await app().admin();
    const buyer = await app().newUser();
    const placed = await buy(buyer.client, await addPackage(560, 56));
    expect(await notify(gw.notification(placed.orderNo, '5.61'))).toBe('fail');
    const ok = await admin.ok('payChannelCheck', { body: { id: channel } });
    expect(ok.items).toEqual([
      { item: 'key', state: 'ok', reason: 'readable', detail: null },
      { item: 'gateway', state: 'ok', reason: 'answered', detail: null },
      { item: 'merchant', state: 'ok', reason: 'accepted', detail: null },
      { item: 'publicOrigin', state: 'warn', reason: 'localhost', detail: 'http://localhost:8080' },
      // Nothing listens at the test's PUBLIC_ORIGIN: the gateway could not reach the notify route either.
      expect.objectContaining({ item: 'notifyPath', state: 'fail', reason: 'unreachable' }),
    ]);
    expect(ok.lastNotify).toMatchObject({ verdict: 'wrong_amount', orderNo: placed.orderNo, expectedAmount: 560 });
    expect(JSON.stringify(ok)).not.toContain(gw.key);
    await expect.poll(() => gw.queries.some((q) => q.get('act') === 'query' && q.get('pid') === gw.pid)).toBe(true);

    // The wrong key: the gateway answers, refusing the merchant in its own words.
    const wrongKey = await admin.ok('payChannelAdd', {
      body: {
        name: '错误密钥',
        gateway: gw.gateway,
        pid: gw.pid,
        key: 'not-the-right-key',
        methods: ['alipay'],
        enabled: 0,
      },
    });
    const refused = await admin.ok('payChannelCheck', { body: { id: wrongKey } });
    expect(refused.items[2]).toEqual({ item: 'merchant', state: 'fail', reason: 'refused', detail: 'KEY校验失败' });
    expect(refused.lastNotify).toBeNull();
    // A wrong address: nothing answers there as a 易支付 gateway.
    const wrongAddress = await admin.ok('payChannelAdd', {
      body: {
        name: '错误地址',
        gateway: `${gw.gateway}nowhere/`,
        pid: gw.pid,
        key: gw.key,
        methods: ['alipay'],
        enabled: 0,
      },
    });
    const lost = await admin.ok('payChannelCheck', { body: { id: wrongAddress } });
    expect(lost.items[1]).toEqual({ item: 'gateway', state: 'fail', reason: 'http_status', detail: 'HTTP 404' });
    expect(lost.items[2]).toMatchObject({ item: 'merchant', state: 'skipped' });
  });

  it('finds the notify route through PUBLIC_ORIGIN when the site answers there', async () => {
    const admin = await app().admin();
    const listening = await app().built.fastify.listen({ port: 0, host: '127.0.0.1' });
    const context = app().built.context;
    const saved = context.config.publicOrigin;
    // The check asks the public address as a gateway would; here the test's own server at that address.
    Object.assign(context.config, {
      publicOrigin: { origin: listening.replace('127.0.0.1', 'localhost'), rpId: 'localhost' },
    });
    try {
      const check = await admin.ok('payChannelCheck', { body: { id: channel } });
      expect(check.items[4]).toEqual({ item: 'notifyPath', state: 'ok', reason: 'ours', detail: null });
      // The probe is not a notification: 回调记录 does not keep it.
      const log = await admin.ok('payNotifyLogPage', { body: { pageSize: 1 } });
      expect(log.records[0]?.detail ?? '').not.toContain('pm_selfcheck');
    } finally {
      Object.assign(context.config, { publicOrigin: saved });
    }
  });
});

describe('退款', () => {
  it('through the gateway takes back the buyer’s coins and the agent’s rebate; the dashboard’s revenue follows', async () => {
    const admin = await app().admin();
    await admin.ok('basicInformationUpdate', { body: { id: 1, rebatePercent: 10 } });
    const agent = await app().newUser({ role: 'agent' });
    const { invitationCode } = await agent.client.ok('userGetLogin');
    const buyer = await app().newUser({ invitationCode });
    try {
      const revenueBefore: number = (await admin.ok('dashboardSummary')).orders.revenueToday;
      const placed = await buy(buyer.client, await addPackage(1200, 120));
      expect(await notify(gw.notification(placed.orderNo, '12.00'))).toBe('success');
      expect((await admin.ok('dashboardSummary')).orders.revenueToday).toBe(revenueBefore + 1200);
      const [payment] = await paymentsOf(admin, placed.id);
      expect(payment).toMatchObject({
        credited: true,
        amount: 1200,
        tradeNo: `T${placed.orderNo}`,
        refundState: null,
        takeBack: [
          { account: buyer.userAccount, kind: 'buyer', coins: 120, balance: 120 },
          { account: agent.userAccount, kind: 'agent', coins: 12, balance: 12 },
        ],
      });
      const key = crypto.randomUUID();
      const done = await refund(admin, payment.id, 'gateway', key);
      expect(done.data).toMatchObject({ refundState: 'refunded', refundMode: 'gateway', refundedBy: 'admin' });
      expect(gw.queries.at(-1)).toEqual(expect.any(URLSearchParams));
      expect(Object.fromEntries(gw.queries.at(-1)!)).toMatchObject({
        act: 'refund',
        trade_no: `T${placed.orderNo}`,
        money: '12.00',
      });
      expect([await balanceOf(app(), buyer.id), await balanceOf(app(), agent.id)]).toEqual([0, 0]);
      const kinds = (await entriesOf(app()))
        .filter((x) => x.reference === placed.orderNo)
        .map((x) => [x.kind, x.amount]);
      expect(kinds).toEqual(
        expect.arrayContaining([
          ['order_credit', 120],
          ['agent_rebate', 12],
          ['order_refund', -120],
          ['rebate_refund', -12],
        ]),
      );
      expect(await admin.ok('orderGet', { query: { id: placed.id } })).toMatchObject({
        status: 'paid',
        refundedAt: expect.any(Number),
      });
      expect((await admin.ok('dashboardSummary')).orders.revenueToday).toBe(revenueBefore);
      // The same key again moves nothing; another try answers that it is refunded already.
      const replay = await refund(admin, payment.id, 'gateway', key);
      expect(replay.data).toMatchObject({ refundState: 'refunded' });
      const twice = await refund(admin, payment.id, 'offline');
      expect([twice.status, twice.code]).toEqual([409, 40900]);
      expect(await balanceOf(app(), buyer.id)).toBe(0);
      const trail = await auditTrail(app(), 'order', placed.id);
      expect(trail.filter((a) => a.action === 'order.refund')).toHaveLength(1);
    } finally {
      await admin.ok('basicInformationUpdate', { body: { id: 1, rebatePercent: 0 } });
    }
  });

  it('is refused, naming the shortfall, when the buyer spent the coins', async () => {
    const admin = await app().admin();
    const buyer = await app().newUser();
    const payee = await app().newUser();
    const placed = await buy(buyer.client, await addPackage(500, 50));
    expect(await notify(gw.notification(placed.orderNo, '5.00'))).toBe('success');
    await buyer.client.ok('userTransferCoin', { body: { userAccount: payee.userAccount, coin: 30 }, headers: idem() });
    const [payment] = await paymentsOf(admin, placed.id);
    expect(payment.takeBack[0]).toMatchObject({ coins: 50, balance: 20 });
    const asked = gw.queries.length;
    const r = await refund(admin, payment.id, 'gateway');
    expect([r.status, r.code]).toEqual([400, 40000]);
    expect(r.message).toContain('差 30 积分');
    expect(gw.queries.length).toBe(asked);
    expect((await paymentsOf(admin, placed.id))[0].refundState).toBeNull();
    await grant(app(), buyer.userAccount, 30);
    expect((await refund(admin, payment.id, 'offline')).data).toMatchObject({
      refundState: 'refunded',
      refundMode: 'offline',
    });
    expect(await balanceOf(app(), buyer.id)).toBe(0);
  });

  it('a second payment is refunded without touching coins, and the order stops saying 需退款', async () => {
    const admin = await app().admin();
    const buyer = await app().newUser();
    const placed = await buy(buyer.client, await addPackage(300, 30));
    expect(await notify(gw.notification(placed.orderNo, '3.00'))).toBe('success');
    expect(await notify(gw.notification(placed.orderNo, '3.00', { trade_no: 'TWICE-2' }))).toBe('success');
    const payments = await paymentsOf(admin, placed.id);
    expect(payments.map((p: { credited: boolean; takeBack: unknown[] }) => [p.credited, p.takeBack.length])).toEqual([
      [true, 1],
      [false, 0],
    ]);
    expect((await admin.ok('orderGet', { query: { id: placed.id } })).needsRefund).toBe(true);
    const owed = (await admin.ok('paySettingsGet')).ordersNeedingRefund;
    expect(owed).toBeGreaterThanOrEqual(1);
    await refund(admin, payments[1].id, 'gateway');
    expect((await admin.ok('paySettingsGet')).ordersNeedingRefund).toBe(owed - 1);
    expect(await balanceOf(app(), buyer.id)).toBe(30);
    expect(await admin.ok('orderGet', { query: { id: placed.id } })).toMatchObject({
      needsRefund: false,
      refundedAt: null,
    });
  });

  it('a gateway that refuses gives the coins back; one that does not answer leaves 退款中 to check and record', async () => {
    const admin = await app().admin();
    const buyer = await app().newUser();
    const placed = await buy(buyer.client, await addPackage(800, 80));
    expect(await notify(gw.notification(placed.orderNo, '8.00'))).toBe('success');
    const [payment] = await paymentsOf(admin, placed.id);

    gw.refundAnswer.answer = { refused: '该商户未开通退款功能' };
    const refused = await refund(admin, payment.id, 'gateway');
    expect([refused.status, refused.code]).toEqual([409, 40900]);
    expect(refused.message).toContain('该商户未开通退款功能');
    expect(await balanceOf(app(), buyer.id)).toBe(80);
    expect((await paymentsOf(admin, placed.id))[0].refundState).toBeNull();

    gw.refundAnswer.answer = 'hang';
    const silent = await refund(admin, payment.id, 'gateway');
    expect([silent.status, silent.code]).toEqual([409, 40900]);
    expect(silent.message).toContain('退款中');
    expect(await balanceOf(app(), buyer.id)).toBe(0);
    expect((await paymentsOf(admin, placed.id))[0].refundState).toBe('refunding');
    // Checked at the gateway's backend: it did refund. Recorded, and no coins move again.
    app().clock.advance(20_000);
    expect((await refund(admin, payment.id, 'offline')).data).toMatchObject({
      refundState: 'refunded',
      refundMode: 'offline',
    });
    expect(await balanceOf(app(), buyer.id)).toBe(0);
    const timeline = (await admin.ok('orderEventPage', { body: { orderId: placed.id, pageSize: 50 } })).records;
    expect(timeline.map((r: { kind: string }) => r.kind).slice(-3)).toEqual([
      'refund_failed',
      'refund_failed',
      'refunded',
    ]);
  }, 20_000);

  it('the sandbox refunds through its own gateway', async () => {
    const admin = await app().admin();
    const buyer = await app().newUser();
    const sandbox = await sandboxChannel();
    const placed = await buy(buyer.client, await addPackage(260, 26), sandbox.id);
    const visitor = app().client();
    const trade = await visitor.ok('sandboxPaySubmit', {
      body: Object.fromEntries(new URL(placed.payUrl).searchParams),
    });
    await visitor.ok('sandboxPayAct', { body: { tradeNo: trade.tradeNo, outcome: 'pay' } });
    await expect.poll(async () => (await admin.ok('orderGet', { query: { id: placed.id } })).status).toBe('paid');
    const [payment] = await paymentsOf(admin, placed.id);
    expect((await refund(admin, payment.id, 'gateway')).data).toMatchObject({ refundState: 'refunded' });
    const row = await db()
      .selectFrom('sandboxPayTrades')
      .select('status')
      .where('tradeNo', '=', trade.tradeNo)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('refunded');
    expect(await balanceOf(app(), buyer.id)).toBe(0);
  });
});

describe('回调记录 retention', () => {
  it('is kept for the days the admin sets; the order keeps its own steps', async () => {
    const admin = await app().admin();
    const buyer = await app().newUser();
    const placed = await buy(buyer.client, await addPackage(120, 12));
    expect(await notify(gw.notification(placed.orderNo, '1.20'))).toBe('success');
    for (const bad of [6, 3651]) {
      const r = await admin.call('paySettingsUpdate', { body: { orderTimeoutMinutes: 15, notifyRetentionDays: bad } });
      expect([r.status, r.code]).toEqual([400, 40000]);
    }
    await admin.ok('paySettingsUpdate', { body: { orderTimeoutMinutes: 15, notifyRetentionDays: 7 } });
    // Recorded eight days ago, as far as the purge can tell (moving the clock would end every session of the file).
    await db()
      .updateTable('paymentEvents')
      .set((eb) => ({ at: eb('at', '-', 8 * 86_400_000) }))
      .where('orderId', '=', placed.id)
      .execute();
    const { purged } = await sweepPayments(app().built.context);
    expect(purged).toBeGreaterThan(0);
    const log = await admin.ok('payNotifyLogPage', { body: { searchText: placed.orderNo } });
    expect(log.total).toBe(0);
    const timeline = await admin.ok('orderEventPage', { body: { orderId: placed.id } });
    expect(timeline.records.map((r: { kind: string }) => r.kind)).toEqual(['created', 'sent', 'credited']);
    await admin.ok('paySettingsUpdate', { body: { orderTimeoutMinutes: 15, notifyRetentionDays: 90 } });
  });
});
