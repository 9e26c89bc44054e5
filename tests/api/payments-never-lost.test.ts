import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PaymentChecks, sweepPayments } from '../../src/server/modules/payments/sweeper.js';
import type { ApiClient } from '../helpers/client.js';
import { startFakeEpay, type FakeEpay } from '../helpers/fake-epay.js';
import { balanceOf, entriesOf, expectLedgerConsistent, idem } from '../helpers/ledger.js';
import { useTestApp } from '../helpers/test-app.js';

// No payment is ever lost (issue 41), on SQLite and PostgreSQL: an order stays payable on every channel it was sent
// to, closed orders are still asked about for a day, every pending order is asked within a bounded time whatever else
// is pending (a hanging gateway holds up nothing else), and a gateway's "paid" counts only for the order asked about.
// Two 易支付 gateways in the test (helpers/fake-epay.ts), each its own channel, E and F.

const app = useTestApp();
let e: FakeEpay;
let f: FakeEpay;
let channelE: number;
let channelF: number;

async function addChannel(gateway: FakeEpay, name: string): Promise<number> {
  return (await app().admin()).ok('payChannelAdd', {
    body: {
      name,
      gateway: gateway.gateway,
      pid: gateway.pid,
      key: gateway.key,
      methods: ['alipay', 'wxpay'],
      enabled: 1,
    },
  });
}

beforeAll(async () => {
  e = await startFakeEpay('20001', 'gateway-e-merchant-key-0123456789');
  f = await startFakeEpay('30001', 'gateway-f-merchant-key-9876543210');
  channelE = await addChannel(e, '渠道E');
  channelF = await addChannel(f, '渠道F');
});
afterAll(async () => {
  await e.close();
  await f.close();
});
afterEach(async () => {
  e.answers.clear();
  f.answers.clear();
  e.fallback.answer = 'unknown';
  f.fallback.answer = 'unknown';
  await expectLedgerConsistent(app());
});

const db = () => app().built.context.db;
let names = 0;
const addPackage = async (amount = 1000, addCoin = 100): Promise<number> =>
  (await app().admin()).ok('mallAdd', { body: { coinName: `不丢单${names++}`, amount, addCoin, status: 1, sort: 0 } });

const buy = (client: ApiClient, packageId: number, channelId: number, method = 'alipay') =>
  client.ok('orderSubmit', { body: { packageId, channelId, method }, headers: idem() });

async function notify(params: Record<string, string>): Promise<string> {
  return (await app().client().call('payNotifyForm', { body: params, withoutCsrf: true, ip: '203.0.113.7' }))
    .data as string;
}

const orderOf = (id: number) => db().selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const askDue = () => new PaymentChecks(app().built.context).start();
const credits = async (userId: number, orderNo: string) =>
  (await entriesOf(app(), userId)).filter((x) => x.reference === orderNo && x.kind === 'order_credit');

describe('every channel an order was sent to stays valid for it', () => {
  it('credits a payment made on the first cashier after the payer chose another channel (去支付)', async () => {
    const buyer = await app().newUser();
    const placed = await buy(buyer.client, await addPackage(990, 99), channelE);
    // Back from E's cashier, the payer picks F for the same order, then pays on E's page still open.
    await buyer.client.ok('orderPay', { body: { id: placed.id, channelId: channelF, method: 'wxpay' } });
    expect(await notify(e.notification(placed.orderNo, '9.90'))).toBe('success');
    expect(await orderOf(placed.id)).toMatchObject({ status: 'paid', tradeNo: `T${placed.orderNo}` });
    expect(await credits(buyer.id, placed.orderNo)).toHaveLength(1);
    // A notification signed with E's key but naming F's merchant id is still refused.
    const other = await buy(buyer.client, await addPackage(500, 50), channelE);
    await buyer.client.ok('orderPay', { body: { id: other.id, channelId: channelF, method: 'alipay' } });
    const forged = e.notification(other.orderNo, '5.00', { pid: f.pid });
    expect(await notify(forged)).toBe('fail');
    expect((await orderOf(other.id)).status).toBe('pending');
  });

  it('credits a payment on the first cashier when the same package is bought again on another channel', async () => {
    const buyer = await app().newUser();
    const pkg = await addPackage(700, 70);
    const first = await buy(buyer.client, pkg, channelE);
    const again = await buy(buyer.client, pkg, channelF);
    expect([again.id, again.reused]).toEqual([first.id, true]);
    expect(await notify(e.notification(first.orderNo, '7.00'))).toBe('success');
    expect(await balanceOf(app(), buyer.id)).toBe(70);
  });

  it('重新查询 asks every channel the order was sent to', async () => {
    const buyer = await app().newUser();
    const placed = await buy(buyer.client, await addPackage(300, 30), channelE);
    await buyer.client.ok('orderPay', { body: { id: placed.id, channelId: channelF, method: 'alipay' } });
    // Paid on E, its notification lost; F knows nothing of it.
    e.answers.set(placed.orderNo, { paid: true, tradeNo: 'E-300', money: '3.00' });
    const checked = await buyer.client.ok('orderCheck', { body: { orderNo: placed.orderNo } });
    expect(checked).toMatchObject({ status: 'paid', tradeNo: 'E-300', channelId: channelF });
    expect(e.queries.some((q) => q.get('out_trade_no') === placed.orderNo)).toBe(true);
    expect(f.queries.some((q) => q.get('out_trade_no') === placed.orderNo)).toBe(true);
  });
});

describe('closed orders are still asked about for a day', () => {
  it('重新查询 on an order closed at its deadline finds the payment and credits it, flagged 已关单后付款', async () => {
    const buyer = await app().newUser();
    const placed = await buy(buyer.client, await addPackage(400, 40), channelE);
    app().clock.advance(16 * 60_000);
    await sweepPayments(app().built.context);
    expect((await orderOf(placed.id)).status).toBe('cancelled');
    e.answers.set(placed.orderNo, { paid: true, tradeNo: 'E-LATE', money: '4.00' });
    const checked = await buyer.client.ok('orderCheck', { body: { orderNo: placed.orderNo } });
    expect(checked).toMatchObject({ status: 'paid', paidLate: true, tradeNo: 'E-LATE' });
    expect(await balanceOf(app(), buyer.id)).toBe(40);
  });

  it('the sweep finds an order the buyer cancelled and paid anyway; after a day it stops asking, 补单 still can', async () => {
    const buyer = await app().newUser();
    const cancelled = await buy(buyer.client, await addPackage(600, 60), channelE);
    await buyer.client.ok('orderCancel', { body: { id: cancelled.id } });
    const forgotten = await buy(buyer.client, await addPackage(800, 80), channelE);
    await buyer.client.ok('orderCancel', { body: { id: forgotten.id } });
    e.answers.set(cancelled.orderNo, { paid: true, tradeNo: 'E-CANCELLED', money: '6.00' });
    app().clock.advance(3 * 60_000);
    await askDue();
    expect(await orderOf(cancelled.id)).toMatchObject({ status: 'paid', paidLate: 1 });

    // A day and more later: neither the sweep nor 重新查询 asks any more; 补单 does, whatever the age.
    app().clock.advance(25 * 3600_000);
    e.answers.set(forgotten.orderNo, { paid: true, tradeNo: 'E-FORGOTTEN', money: '8.00' });
    const asked = e.queries.length;
    await askDue();
    expect((await buyer.client.ok('orderCheck', { body: { orderNo: forgotten.orderNo } })).status).toBe('cancelled');
    expect(e.queries.length).toBe(asked);
    const admin = await app().admin();
    const done = await admin.ok('orderReconcile', { body: { id: forgotten.id } });
    expect(done.order).toMatchObject({ status: 'paid', paidLate: true });
    expect(done.answers).toEqual([
      {
        channelId: channelE,
        channelName: '渠道E',
        verdict: 'credited_late',
        tradeNo: 'E-FORGOTTEN',
        money: '8.00',
        detail: null,
      },
    ]);
    expect(await balanceOf(app(), buyer.id)).toBe(60 + 80);
  });
});

describe('the sweep asks every eligible order within a bounded time', () => {
  it('a hundred abandoned orders do not hide a newer paid one', async () => {
    const abandoned = [];
    for (let u = 0; u < 6; u++) {
      const user = await app().newUser();
      for (let i = 0; i < 20; i++) abandoned.push(await buy(user.client, await addPackage(100 + i, 1), channelE));
    }
    app().clock.advance(10 * 60_000);
    const buyer = await app().newUser();
    const paid = await buy(buyer.client, await addPackage(900, 90), channelE);
    e.answers.set(paid.orderNo, { paid: true, tradeNo: 'E-NEWER', money: '9.00' });
    app().clock.advance(3 * 60_000);
    // One pass asks every order due, the 120 older ones and the newer one alike.
    expect(await askDue()).toBeGreaterThanOrEqual(121);
    expect((await orderOf(paid.id)).status).toBe('paid');
    // Each abandoned order now waits its own time (half its age, a minute at least) before it is asked again.
    const asked = e.queries.length;
    expect(await askDue()).toBe(0);
    expect(e.queries.length).toBe(asked);
    await closeAll(abandoned.map((o) => o.id));
  }, 60_000);

  it('a gateway that hangs holds up neither the other channel, nor closing expired orders, nor the pass for long', async () => {
    const buyer = await app().newUser();
    const onE = [];
    for (let i = 0; i < 10; i++) onE.push(await buy(buyer.client, await addPackage(200 + i, 2), channelE));
    const onF = await buy(buyer.client, await addPackage(950, 95), channelF);
    e.fallback.answer = 'hang';
    f.answers.set(onF.orderNo, { paid: true, tradeNo: 'F-OK', money: '9.50' });
    app().clock.advance(3 * 60_000);
    const started = Date.now();
    const pass = askDue();
    // While E hangs, F's order is credited and the minute's sweep (closing expired orders) runs to its end.
    await expect.poll(async () => (await orderOf(onF.id)).status, { timeout: 4_000 }).toBe('paid');
    const sweep = await sweepPayments(app().built.context);
    expect(sweep).toMatchObject({ closed: expect.any(Number) });
    expect(Date.now() - started).toBeLessThan(4_500);
    await pass;
    // E is left after a few silent questions: the pass ends within a few gateway timeouts, not one per order.
    expect(Date.now() - started).toBeLessThan(3 * 5_000 + 4_000);
    const verdicts = await db()
      .selectFrom('paymentEvents')
      .select('verdict')
      .where('kind', '=', 'query')
      .where(
        'orderId',
        'in',
        onE.map((o) => o.id),
      )
      .execute();
    expect(verdicts.length).toBeLessThan(onE.length);
    expect(new Set(verdicts.map((v) => v.verdict))).toEqual(new Set(['gateway_error']));
    // The orders E did not answer for are due again later, not dropped.
    for (const o of onE) expect((await orderOf(o.id)).nextCheckAt).not.toBeNull();
    e.fallback.answer = 'unknown';
    await closeAll(onE.map((o) => o.id));
  }, 30_000);
});

describe("a gateway's paid answer counts only for the order asked about and the right money", () => {
  it('an answer naming another order, another amount, or megabytes credits nothing', async () => {
    const buyer = await app().newUser();
    const a = await buy(buyer.client, await addPackage(110, 11), channelE);
    const b = await buy(buyer.client, await addPackage(120, 12), channelE);
    const c = await buy(buyer.client, await addPackage(130, 13), channelE);
    e.answers.set(a.orderNo, { paid: true, tradeNo: 'E-A', money: '1.10', outTradeNo: b.orderNo });
    e.answers.set(b.orderNo, { paid: true, tradeNo: 'E-B', money: '1.19' });
    e.answers.set(c.orderNo, 'huge');
    const admin = await app().admin();
    const verdicts = [];
    for (const o of [a, b, c])
      verdicts.push((await admin.ok('orderReconcile', { body: { id: o.id } })).answers[0].verdict);
    expect(verdicts).toEqual(['wrong_order', 'wrong_amount', 'gateway_error']);
    for (const o of [a, b, c]) expect((await orderOf(o.id)).status).toBe('pending');
    expect(await balanceOf(app(), buyer.id)).toBe(0);
    const timeline = await admin.ok('orderEventPage', { body: { orderId: b.id } });
    expect(timeline.records.at(-1)).toMatchObject({
      kind: 'query',
      verdict: 'wrong_amount',
      money: '1.19',
      expectedAmount: 120,
      source: 'admin',
    });
  });
});

describe('smaller holes', () => {
  it('a notification with a JSON body is a fail, kept in 回调记录 as 格式不对', async () => {
    const buyer = await app().newUser();
    const placed = await buy(buyer.client, await addPackage(210, 21), channelE);
    const answer = await app()
      .client()
      .call('payNotifyForm', {
        rawBody: JSON.stringify(e.notification(placed.orderNo, '2.10')),
        headers: { 'content-type': 'application/json' },
        withoutCsrf: true,
      });
    expect(answer.data).toBe('fail');
    expect((await orderOf(placed.id)).status).toBe('pending');
    const log = await (await app().admin()).ok('payNotifyLogPage', { body: { pageSize: 1 } });
    expect(log.records[0]).toMatchObject({ kind: 'notify', verdict: 'malformed', orderId: null });
  });

  it('重新查询 asks the gateways at most once per order every few seconds', async () => {
    const buyer = await app().newUser();
    const placed = await buy(buyer.client, await addPackage(220, 22), channelE);
    const askedFor = () => e.queries.filter((q) => q.get('out_trade_no') === placed.orderNo).length;
    await Promise.all(
      Array.from({ length: 5 }, () => buyer.client.ok('orderCheck', { body: { orderNo: placed.orderNo } })),
    );
    expect(askedFor()).toBe(1);
    app().clock.advance(5_000);
    await buyer.client.ok('orderCheck', { body: { orderNo: placed.orderNo } });
    expect(askedFor()).toBe(2);
  });

  it('refuses a plain-http gateway that is not this machine, and never sends a key to one saved before', async () => {
    const admin = await app().admin();
    const body = {
      name: '明文网关',
      gateway: 'http://pay.example.com/',
      pid: '1',
      key: 'plain-key-123',
      methods: ['alipay'],
      enabled: 1,
    };
    const refused = await admin.call('payChannelAdd', { body });
    expect([refused.status, refused.code]).toEqual([400, 40000]);
    expect(refused.message).toContain('https://');
    const update = await admin.call('payChannelUpdate', {
      body: {
        id: channelE,
        name: '渠道E',
        gateway: 'http://pay.example.com/',
        pid: e.pid,
        methods: ['alipay'],
        enabled: 1,
      },
    });
    expect([update.status, update.code]).toEqual([400, 40000]);
    // A channel saved with such an address before this rule: its questions are not sent.
    const id = await admin.ok('payChannelAdd', { body: { ...body, gateway: 'https://pay.example.com/' } });
    await db()
      .updateTable('paymentChannels')
      .set({ gateway: 'http://pay.example.com/' })
      .where('id', '=', id)
      .execute();
    const buyer = await app().newUser();
    const placed = await buy(buyer.client, await addPackage(230, 23), id);
    const done = await admin.ok('orderReconcile', { body: { id: placed.id } });
    expect(done.answers[0]).toMatchObject({ verdict: 'insecure' });
    await admin.ok('payChannelUpdate', {
      body: { id, name: '明文网关', gateway: 'https://pay.example.com/', pid: '1', methods: ['alipay'], enabled: 0 },
    });
  });

  it('makes no order on a channel whose key cannot be opened; the channel says it needs its key', async () => {
    const admin = await app().admin();
    const id = await admin.ok('payChannelAdd', {
      body: {
        name: '旧密钥',
        gateway: 'https://pay.example.com/',
        pid: '2',
        key: 'sealed-under-old-secret',
        methods: ['qqpay'],
        enabled: 1,
      },
    });
    await db().updateTable('paymentChannels').set({ keyCipher: 'v1.garbage.garbage' }).where('id', '=', id).execute();
    const buyer = await app().newUser();
    const { methods } = await buyer.client.ok('payMethods');
    expect(methods.some((m: { channelId: number }) => m.channelId === id)).toBe(false);
    const before = await db()
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const refused = await buyer.client.call('orderSubmit', {
      body: { packageId: await addPackage(), channelId: id, method: 'qqpay' },
      headers: idem(),
    });
    expect([refused.status, refused.code]).toEqual([409, 40900]);
    expect(refused.message).toContain('换一种付款方式');
    const after = await db()
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    expect((await admin.ok('payChannelGet', { query: { id } })).keySet).toBe(false);
    const check = await admin.ok('payChannelCheck', { body: { id } });
    expect(check.items[0]).toEqual({ item: 'key', state: 'fail', reason: 'unreadable', detail: null });
    await admin.ok('payChannelUpdate', {
      body: { id, name: '旧密钥', gateway: 'https://pay.example.com/', pid: '2', methods: ['qqpay'], enabled: 0 },
    });
  });
});

/** Closes orders a test left unpaid, so the next test's passes do not ask about them. */
async function closeAll(ids: number[]): Promise<void> {
  await db()
    .updateTable('orders')
    .set({ status: 'cancelled', cancelledAt: 0, nextCheckAt: null })
    .where('id', 'in', ids)
    .where('status', '=', 'pending')
    .execute();
}
