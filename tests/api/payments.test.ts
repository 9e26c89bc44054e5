import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../src/server/support/audit/repo.js';
import { PaymentChecks, sweepPayments } from '../../src/server/modules/payments/sweeper.js';
import type { ApiClient } from '../helpers/client.js';
import { startFakeEpay, type FakeEpay } from '../helpers/fake-epay.js';
import { balanceOf, entriesOf, expectLedgerConsistent, idem } from '../helpers/ledger.js';
import { noticesOf } from '../helpers/services.js';
import { useTestApp } from '../helpers/test-app.js';

// Paying online (issue 34), on SQLite and PostgreSQL: the built-in sandbox gateway end to end, and a 易支付 gateway
// in the test (helpers/fake-epay.ts) that signs notifications with a key the test knows and answers the query job
// well or badly. The rule under test: coins are credited only for a genuine, matching notification (or query answer),
// exactly once, and anything else answers `fail` and changes nothing.

const app = useTestApp();
let gateway: FakeEpay;
let epayChannel: number;

beforeAll(async () => {
  gateway = await startFakeEpay();
  epayChannel = await (
    await app().admin()
  ).ok('payChannelAdd', {
    body: {
      name: '测试易支付',
      gateway: gateway.gateway,
      pid: gateway.pid,
      key: gateway.key,
      methods: ['alipay', 'wxpay'],
      enabled: 1,
    },
  });
});
afterAll(async () => {
  await gateway.close();
});
afterEach(async () => {
  await expectLedgerConsistent(app());
});

const db = () => app().built.context.db;
let nameCounter = 0;

async function addPackage(amount = 1000, addCoin = 100): Promise<number> {
  return (await app().admin()).ok('mallAdd', {
    body: { coinName: `在线套餐${nameCounter++}`, amount, addCoin, status: 1, sort: 0 },
  });
}

async function sandboxChannel(client: ApiClient): Promise<number> {
  const { methods } = await client.ok('payMethods');
  const sandbox = await db()
    .selectFrom('paymentChannels')
    .select('id')
    .where('kind', '=', 'sandbox')
    .executeTakeFirstOrThrow();
  expect(methods.some((m: { channelId: number }) => m.channelId === sandbox.id)).toBe(true);
  return sandbox.id;
}

const buy = (client: ApiClient, packageId: number, channelId: number, method = 'alipay') =>
  client.ok('orderSubmit', { body: { packageId, channelId, method }, headers: idem() });

/**
 * A gateway's notification as it arrives: GET with the query, or a form POST; no cookie, no browser headers. The client
 * checks the answer is plain text, success or fail.
 */
async function notify(params: Record<string, string>, how: 'get' | 'post' = 'post'): Promise<string> {
  const gatewaySide = app().client();
  const answer =
    how === 'get'
      ? await gatewaySide.call('payNotify', { query: params, withoutCsrf: true })
      : await gatewaySide.call('payNotifyForm', { body: params, withoutCsrf: true });
  return answer.data as string;
}

/** One pass of the payment checks (each order due for a question to its gateways), as the scheduler makes them. */
const askDue = () => new PaymentChecks(app().built.context).start();

const orderOf = async (id: number) =>
  db().selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('timed out');
}

const creditsFor = async (userId: number, orderNo: string) =>
  (await entriesOf(app(), userId)).filter((e) => e.reference === orderNo && e.kind === 'order_credit');

const metric = async (result: string): Promise<number> => {
  const text = await app().built.context.metrics.registry.getSingleMetricAsString('payment_notify_total');
  return Number(new RegExp(`result="${result}"} (\\d+)`).exec(text)?.[1] ?? 0);
};

describe('the sandbox gateway, end to end', () => {
  it('sells a package: signed request to the cashier, payment, signed notify over loopback, coins once', async () => {
    const pkg = await addPackage(990, 120);
    const inviter = await app().newUser({ role: 'agent' });
    const { invitationCode } = await inviter.client.ok('userGetLogin');
    await (await app().admin()).ok('basicInformationUpdate', { body: { id: 1, rebatePercent: 10 } });
    const buyer = await app().newUser({ invitationCode });
    const channelId = await sandboxChannel(buyer.client);

    const placed = await buy(buyer.client, pkg, channelId);
    expect(placed).toMatchObject({ status: 'pending', channelId, method: 'alipay', reused: false, amount: 990 });
    expect(placed.expiresAt).toBe(app().clock.now() + 15 * 60_000);
    const url = new URL(placed.payUrl);
    expect(url.pathname).toBe('/cashier');
    const params = Object.fromEntries(url.searchParams);
    expect(params).toMatchObject({
      pid: 'sandbox',
      type: 'alipay',
      out_trade_no: placed.orderNo,
      money: '9.90',
      notify_url: 'http://localhost:8080/api/pay/notify',
      return_url: 'http://localhost:8080/pay_result',
      sign_type: 'MD5',
    });

    // The cashier page: the gateway checks the signature; a changed amount is refused.
    const visitor = app().client();
    const forged = await visitor.call('sandboxPaySubmit', { body: { ...params, money: '0.01' } });
    expect([forged.status, forged.code]).toEqual([403, 40300]);
    const trade = await visitor.ok('sandboxPaySubmit', { body: params });
    expect(trade).toMatchObject({ outTradeNo: placed.orderNo, money: '9.90', status: 'pending' });
    // Opened twice, it is the same trade.
    expect((await visitor.ok('sandboxPaySubmit', { body: params })).tradeNo).toBe(trade.tradeNo);

    const paid = await visitor.ok('sandboxPayAct', { body: { tradeNo: trade.tradeNo, outcome: 'pay' } });
    expect(new URL(paid.returnUrl).searchParams.get('out_trade_no')).toBe(placed.orderNo);
    const order = await waitFor(
      () => orderOf(placed.id),
      (o) => o.status === 'paid',
    );
    expect(order).toMatchObject({ paidBy: 'online', tradeNo: trade.tradeNo, paidLate: 0, handledBy: null });

    expect(await balanceOf(app(), buyer.id)).toBe(120);
    expect(await creditsFor(buyer.id, placed.orderNo)).toHaveLength(1);
    const rebate = (await entriesOf(app(), inviter.id)).filter((e) => e.reference === placed.orderNo);
    expect(rebate.map((e) => [e.kind, e.amount])).toEqual([['agent_rebate', 12]]);
    expect((await noticesOf(app(), buyer.id)).map((n) => n.kind)).toContain('order_confirmed');
    const checked = await buyer.client.ok('orderCheck', { body: { orderNo: placed.orderNo } });
    expect(checked).toMatchObject({
      status: 'paid',
      paidBy: 'online',
      tradeNo: trade.tradeNo,
      channelName: '沙箱支付（测试用）',
    });
    const audit = await listAudit(db(), 'order', placed.id);
    expect(audit.map((a) => [a.action, a.actorId])).toEqual([['order.paid', null]]);

    // The trade is over: the cashier cannot pay it again.
    const again = await visitor.call('sandboxPayAct', { body: { tradeNo: trade.tradeNo, outcome: 'pay' } });
    expect([again.status, again.code]).toEqual([409, 40900]);
    await (await app().admin()).ok('basicInformationUpdate', { body: { id: 1, rebatePercent: 0 } });
  });

  it('a notify sent twice at once credits once; a lost one is found by orderCheck and by the sweep', async () => {
    const pkg = await addPackage(500, 50);
    const buyer = await app().newUser();
    const channelId = await sandboxChannel(buyer.client);
    const visitor = app().client();

    const twice = await buy(buyer.client, pkg, channelId, 'wxpay');
    const t1 = await visitor.ok('sandboxPaySubmit', { body: Object.fromEntries(new URL(twice.payUrl).searchParams) });
    await visitor.ok('sandboxPayAct', { body: { tradeNo: t1.tradeNo, outcome: 'pay', notify: 'twice' } });
    await waitFor(
      () => orderOf(twice.id),
      (o) => o.status === 'paid',
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(await creditsFor(buyer.id, twice.orderNo)).toHaveLength(1);

    const other = await addPackage(700, 70);
    const lost = await buy(buyer.client, other, channelId);
    const t2 = await visitor.ok('sandboxPaySubmit', { body: Object.fromEntries(new URL(lost.payUrl).searchParams) });
    await visitor.ok('sandboxPayAct', { body: { tradeNo: t2.tradeNo, outcome: 'pay', notify: 'lose' } });
    await new Promise((r) => setTimeout(r, 50));
    expect((await orderOf(lost.id)).status).toBe('pending');
    const checked = await buyer.client.ok('orderCheck', { body: { orderNo: lost.orderNo } });
    expect(checked).toMatchObject({ status: 'paid', tradeNo: t2.tradeNo });

    const third = await addPackage(800, 80);
    const swept = await buy(buyer.client, third, channelId);
    const t3 = await visitor.ok('sandboxPaySubmit', { body: Object.fromEntries(new URL(swept.payUrl).searchParams) });
    await visitor.ok('sandboxPayAct', { body: { tradeNo: t3.tradeNo, outcome: 'pay', notify: 'lose' } });
    // Not asked while young (its notification may be on its way); asked once it is a few minutes old.
    await askDue();
    expect((await orderOf(swept.id)).status).toBe('pending');
    app().clock.advance(3 * 60_000);
    expect(await askDue()).toBeGreaterThanOrEqual(1);
    expect((await orderOf(swept.id)).status).toBe('paid');
    expect(await balanceOf(app(), buyer.id)).toBe(50 + 70 + 80);
  });

  it('a failed or closed cashier leaves the order unpaid, and the order closes at its expiry', async () => {
    const pkg = await addPackage();
    const buyer = await app().newUser();
    const channelId = await sandboxChannel(buyer.client);
    const placed = await buy(buyer.client, pkg, channelId);
    const visitor = app().client();
    const trade = await visitor.ok('sandboxPaySubmit', {
      body: Object.fromEntries(new URL(placed.payUrl).searchParams),
    });
    const failed = await visitor.ok('sandboxPayAct', { body: { tradeNo: trade.tradeNo, outcome: 'fail' } });
    expect(new URL(failed.returnUrl).searchParams.get('out_trade_no')).toBe(placed.orderNo);
    expect((await buyer.client.ok('orderCheck', { body: { orderNo: placed.orderNo } })).status).toBe('pending');

    // 去支付 again (another method): the same order, a new trade at the cashier.
    const repay = await buyer.client.ok('orderPay', { body: { id: placed.id, channelId, method: 'qqpay' } });
    expect(repay.order).toMatchObject({ id: placed.id, method: 'qqpay', expiresAt: placed.expiresAt });
    expect(new URL(repay.payUrl).searchParams.get('type')).toBe('qqpay');

    app().clock.advance(15 * 60_000);
    const { closed } = await sweepPayments(app().built.context);
    expect(closed).toBeGreaterThanOrEqual(1);
    expect(await orderOf(placed.id)).toMatchObject({ status: 'cancelled', handledBy: null });
    const late = await buyer.client.call('orderPay', { body: { id: placed.id, channelId, method: 'alipay' } });
    expect([late.status, late.code]).toEqual([409, 40900]);
    // Buying the package again is a new order.
    const next = await buy(buyer.client, pkg, channelId);
    expect([next.reused, next.orderNo === placed.orderNo]).toEqual([false, false]);
    expect(await balanceOf(app(), buyer.id)).toBe(0);
  });
});

describe('the sandbox switched off', () => {
  it('pays nothing more, not even at a cashier page opened before; its methods leave the mall', async () => {
    const admin = await app().admin();
    const buyer = await app().newUser();
    const channelId = await sandboxChannel(buyer.client);
    const placed = await buy(buyer.client, await addPackage(600, 60), channelId);
    const params = Object.fromEntries(new URL(placed.payUrl).searchParams);
    const visitor = app().client();
    const trade = await visitor.ok('sandboxPaySubmit', { body: params });
    await admin.ok('payChannelUpdate', { body: { id: channelId, methods: ['alipay', 'wxpay', 'qqpay'], enabled: 0 } });
    try {
      for (const r of [
        await visitor.call('sandboxPayAct', { body: { tradeNo: trade.tradeNo, outcome: 'pay' } }),
        await visitor.call('sandboxPaySubmit', { body: params }),
      ]) {
        expect([r.status, r.code]).toEqual([403, 40300]);
        expect(r.message).toContain('模拟收银台已关闭');
      }
      const { methods } = await buyer.client.ok('payMethods');
      expect(methods.some((m: { channelId: number }) => m.channelId === channelId)).toBe(false);
      expect(await balanceOf(app(), buyer.id)).toBe(0);
    } finally {
      await admin.ok('payChannelUpdate', {
        body: { id: channelId, methods: ['alipay', 'wxpay', 'qqpay'], enabled: 1 },
      });
    }
  });

  it('names the channel where two offer one method, the sandbox as 模拟', async () => {
    const { methods } = await (await app().newUser()).client.ok('payMethods');
    const labels = methods.map((m: { label: string }) => m.label);
    expect(labels).toEqual(expect.arrayContaining(['支付宝（模拟）', '支付宝（测试易支付）', 'QQ 钱包']));
    expect(labels.join()).not.toContain('沙箱');
  });
});

describe('the notify endpoint', () => {
  it('credits a genuine notify once, by GET or form POST; duplicates answer success and move nothing', async () => {
    const pkg = await addPackage(1990, 200);
    const buyer = await app().newUser();
    const placed = await buy(buyer.client, pkg, epayChannel);
    expect(new URL(placed.payUrl).toString()).toMatch(new RegExp(`^${gateway.gateway}submit\\.php\\?`));

    const genuine = gateway.notification(placed.orderNo, '19.90');
    const credited = await metric('credited');
    expect(await notify(genuine, 'get')).toBe('success');
    expect(await metric('credited')).toBe(credited + 1);
    expect(await notify(genuine, 'post')).toBe('success');
    expect(await notify({ ...genuine }, 'get')).toBe('success');
    expect(await creditsFor(buyer.id, placed.orderNo)).toHaveLength(1);
    expect(await balanceOf(app(), buyer.id)).toBe(200);
    expect(await orderOf(placed.id)).toMatchObject({ status: 'paid', tradeNo: `T${placed.orderNo}`, paidBy: 'online' });
  });

  it('answers fail and changes nothing for a bad signature, another merchant, another amount, an unknown order, an unpaid status', async () => {
    const pkg = await addPackage(1000, 100);
    const buyer = await app().newUser();
    const placed = await buy(buyer.client, pkg, epayChannel);
    const offline = await buyer.client.ok('orderSubmit', { body: { packageId: await addPackage() }, headers: idem() });
    const good = gateway.notification(placed.orderNo, '10.00');
    const cases: [string, Record<string, string>][] = [
      ['bad_signature', { ...good, sign: good.sign!.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')) }],
      ['bad_signature', { ...good, money: '0.01' }],
      ['bad_signature', { ...gateway.notification(placed.orderNo, '10.00'), sign: 'not-a-signature' }],
      ['wrong_merchant', gateway.notification(placed.orderNo, '10.00', { pid: '99999' })],
      ['wrong_amount', gateway.notification(placed.orderNo, '9.99')],
      ['wrong_amount', gateway.notification(placed.orderNo, '10.001')],
      ['not_paid', gateway.notification(placed.orderNo, '10.00', { trade_status: 'WAIT_BUYER_PAY' })],
      ['unknown_order', gateway.notification('261127ZZZZZZZZ', '10.00')],
      ['unknown_order', gateway.notification(offline.orderNo, '10.00')],
      // Without an order number it is no notification of the protocol at all.
      ['malformed', {}],
    ];
    for (const [reason, params] of cases) {
      const before = await metric(reason);
      for (const how of ['get', 'post'] as const) expect(await notify(params, how), reason).toBe('fail');
      expect(await metric(reason), reason).toBe(before + 2);
    }
    // A notification signed with another channel's key (the sandbox's own) for this order is refused too.
    const sandboxSigned = { ...good, sign: '0'.repeat(32) };
    expect(await notify(sandboxSigned)).toBe('fail');
    expect(await orderOf(placed.id)).toMatchObject({ status: 'pending', paidAt: null, tradeNo: null });
    expect(await balanceOf(app(), buyer.id)).toBe(0);
    // Parameters the contract refuses (a thousand of them, a 2 KB value) are a `fail` too, not the API's envelope.
    const flood = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`p${i}`, 'x']));
    expect(await notify({ ...good, ...flood })).toBe('fail');
    expect(await notify({ ...good, name: 'x'.repeat(2000) })).toBe('fail');
    // Then the genuine one goes through.
    expect(await notify(good)).toBe('success');
    expect(await balanceOf(app(), buyer.id)).toBe(100);
  });

  it('credits once when 50 copies of one notify arrive at once, and each of 20 orders once when their notifies do', async () => {
    const buyer = await app().newUser();
    const one = await buy(buyer.client, await addPackage(300, 30), epayChannel);
    const copy = gateway.notification(one.orderNo, '3.00');
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => notify(copy, i % 2 ? 'get' : 'post')));
    expect(new Set(answers)).toEqual(new Set(['success']));
    expect(await creditsFor(buyer.id, one.orderNo)).toHaveLength(1);

    const many = [];
    for (let i = 0; i < 20; i++) many.push(await buy(buyer.client, await addPackage(100 + i, 1), epayChannel));
    const all = await Promise.all(
      many.map((o) => notify(gateway.notification(o.orderNo, (o.amount / 100).toFixed(2)))),
    );
    expect(all.every((a) => a === 'success')).toBe(true);
    expect(await balanceOf(app(), buyer.id)).toBe(30 + 20);
  });

  it('takes a payment that arrives after the order closed or was cancelled, and flags it 已关单后付款', async () => {
    const buyer = await app().newUser();
    const expired = await buy(buyer.client, await addPackage(600, 60), epayChannel);
    const cancelled = await buy(buyer.client, await addPackage(700, 70), epayChannel);
    await buyer.client.ok('orderCancel', { body: { id: cancelled.id } });
    app().clock.advance(16 * 60_000);
    await sweepPayments(app().built.context);
    expect((await orderOf(expired.id)).status).toBe('cancelled');

    const late = await metric('credited_late');
    expect(await notify(gateway.notification(expired.orderNo, '6.00'))).toBe('success');
    expect(await notify(gateway.notification(cancelled.orderNo, '7.00'))).toBe('success');
    expect(await metric('credited_late')).toBe(late + 2);
    expect(await balanceOf(app(), buyer.id)).toBe(130);
    const admin = await app().admin();
    const flagged = await admin.ok('orderListPage', { body: { paidLate: true, pageSize: 100 } });
    expect(flagged.records.map((o: { id: number }) => o.id).sort()).toEqual([expired.id, cancelled.id].sort());
    expect(flagged.records.every((o: { paidLate: boolean; status: string }) => o.paidLate && o.status === 'paid')).toBe(
      true,
    );
    const byChannel = await admin.ok('orderListPage', { body: { channelId: epayChannel, pageSize: 100 } });
    expect(byChannel.records.every((o: { channelId: number }) => o.channelId === epayChannel)).toBe(true);
    const offlineOnly = await admin.ok('orderListPage', { body: { channelId: 0, pageSize: 100 } });
    expect(offlineOnly.records.every((o: { channelId: number | null }) => o.channelId === null)).toBe(true);
  });

  it('a second payment of a paid order (another trade number) moves nothing and is counted for the admin', async () => {
    const buyer = await app().newUser();
    const placed = await buy(buyer.client, await addPackage(400, 40), epayChannel);
    expect(await notify(gateway.notification(placed.orderNo, '4.00'))).toBe('success');
    const before = await metric('second_payment');
    expect(await notify(gateway.notification(placed.orderNo, '4.00', { trade_no: 'ANOTHER-1' }))).toBe('success');
    expect(await metric('second_payment')).toBe(before + 1);
    expect(await balanceOf(app(), buyer.id)).toBe(40);
  });
});

describe('the query job against a gateway that misbehaves', () => {
  it('settles only a paid answer with the right money; errors, garbage and other amounts change nothing', async () => {
    const buyer = await app().newUser();
    const orders = [];
    for (const amount of [100, 200, 300, 400, 500])
      orders.push(await buy(buyer.client, await addPackage(amount, amount / 10), epayChannel));
    const [error, garbage, wrongMoney, unpaid, good] = orders as [any, any, any, any, any];
    gateway.answers.set(error.orderNo, 'error500');
    gateway.answers.set(garbage.orderNo, 'garbage');
    gateway.answers.set(wrongMoney.orderNo, { paid: true, tradeNo: 'Q3', money: '0.03' });
    gateway.answers.set(unpaid.orderNo, { paid: false });
    gateway.answers.set(good.orderNo, { paid: true, tradeNo: 'Q5', money: '5.00' });
    app().clock.advance(3 * 60_000);
    const asked = gateway.queries.length;
    expect(await askDue()).toBeGreaterThanOrEqual(5);
    expect(gateway.queries.length - asked).toBeGreaterThanOrEqual(5);
    // The query carries the merchant's key to the gateway (the protocol's), and nothing else of ours.
    expect(gateway.queries.at(-1)?.get('key')).toBe(gateway.key);
    expect((await orderOf(good.id)).tradeNo).toBe('Q5');
    for (const o of [error, garbage, wrongMoney, unpaid]) expect((await orderOf(o.id)).status).toBe('pending');
    expect(await balanceOf(app(), buyer.id)).toBe(50);
    // At their expiry the unpaid ones close.
    app().clock.advance(15 * 60_000);
    expect((await sweepPayments(app().built.context)).closed).toBeGreaterThanOrEqual(4);
  });
});

describe('channels (admin)', () => {
  it('never answers a key; a blank key keeps it; the audit holds no key', async () => {
    const admin = await app().admin();
    const channel = await admin.ok('payChannelGet', { query: { id: epayChannel } });
    expect(channel).toMatchObject({
      kind: 'epay',
      pid: gateway.pid,
      keySet: true,
      methods: ['alipay', 'wxpay'],
      enabled: 1,
    });
    expect(channel.notifyUrl).toBe('http://localhost:8080/api/pay/notify');
    const list = await admin.ok('payChannelListPage', { body: {} });
    expect(list.records.map((c: { kind: string }) => c.kind)).toEqual(['sandbox', 'epay']);
    expect(list.records[0]).toMatchObject({ name: '沙箱支付（测试用）', enabled: 1 });
    expect(JSON.stringify([channel, list])).not.toContain(gateway.key);

    expect(
      await admin.ok('payChannelUpdate', {
        body: {
          id: epayChannel,
          name: '改名易支付',
          gateway: gateway.gateway,
          pid: gateway.pid,
          key: '',
          methods: ['alipay', 'wxpay'],
          enabled: 1,
        },
      }),
    ).toBe(true);
    // The kept key still verifies its notifications.
    const buyer = await app().newUser();
    const placed = await buy(buyer.client, await addPackage(100, 10), epayChannel);
    expect(await notify(gateway.notification(placed.orderNo, '1.00'))).toBe('success');
    const audit = await listAudit(db(), 'payment', epayChannel);
    expect(audit.map((a) => a.action)).toEqual(['payChannel.add', 'payChannel.update']);
    expect(JSON.stringify(audit)).not.toContain(gateway.key);
    const rows = await db().selectFrom('paymentChannels').select('keyCipher').execute();
    expect(JSON.stringify(rows)).not.toContain(gateway.key);
  });

  it('offers only the methods of channels that are on; a channel switched off is refused at purchase', async () => {
    const admin = await app().admin();
    const buyer = await app().newUser();
    const id = await admin.ok('payChannelAdd', {
      body: {
        name: '仅QQ',
        gateway: 'https://pay.example.com/',
        pid: '7',
        key: 'another-key-123',
        methods: ['qqpay'],
        enabled: 0,
      },
    });
    const methods = async () =>
      (await buyer.client.ok('payMethods')).methods.map((m: { channelId: number }) => m.channelId);
    expect(await methods()).not.toContain(id);
    const refused = await buyer.client.call('orderSubmit', {
      body: { packageId: await addPackage(), channelId: id, method: 'qqpay' },
      headers: idem(),
    });
    expect([refused.status, refused.code]).toEqual([400, 40000]);
    await admin.ok('payChannelUpdate', {
      body: { id, methods: ['qqpay'], enabled: 1, name: '仅QQ', gateway: 'https://pay.example.com/', pid: '7' },
    });
    expect(await methods()).toContain(id);
    const wrongMethod = await buyer.client.call('orderSubmit', {
      body: { packageId: await addPackage(), channelId: id, method: 'alipay' },
      headers: idem(),
    });
    expect([wrongMethod.status, wrongMethod.code]).toEqual([400, 40000]);
    const half = await buyer.client.call('orderSubmit', {
      body: { packageId: await addPackage(), method: 'alipay' },
      headers: idem(),
    });
    expect([half.status, half.code]).toEqual([400, 40000]);
    await admin.ok('payChannelUpdate', {
      body: { id, methods: ['qqpay'], enabled: 0, name: '仅QQ', gateway: 'https://pay.example.com/', pid: '7' },
    });
  });

  it('an admin confirms offline orders only; an online one is settled by its gateway', async () => {
    const admin = await app().admin();
    const buyer = await app().newUser();
    const online = await buy(buyer.client, await addPackage(), epayChannel);
    const r = await admin.call('orderConfirm', { body: { id: online.id }, headers: idem() });
    expect([r.status, r.code]).toEqual([409, 40900]);
    expect(r.message).toMatch(/在线支付/);
    expect(await balanceOf(app(), buyer.id)).toBe(0);
  });

  it('sets the unpaid-order timeout (5–1440 minutes) that new online orders get', async () => {
    const admin = await app().admin();
    expect(await admin.ok('paySettingsGet')).toEqual({
      orderTimeoutMinutes: 15,
      notifyRetentionDays: 90,
      ordersNeedingRefund: expect.any(Number),
      sandboxOnPublicOrigin: false,
      publicOrigin: 'http://localhost:8080',
    });
    for (const bad of [4, 1441]) {
      const r = await admin.call('paySettingsUpdate', { body: { orderTimeoutMinutes: bad, notifyRetentionDays: 90 } });
      expect([r.status, r.code]).toEqual([400, 40000]);
    }
    await admin.ok('paySettingsUpdate', { body: { orderTimeoutMinutes: 30, notifyRetentionDays: 90 } });
    const buyer = await app().newUser();
    const placed = await buy(buyer.client, await addPackage(), epayChannel);
    expect(placed.expiresAt).toBe(app().clock.now() + 30 * 60_000);
    expect((await buyer.client.ok('payMethods')).orderTimeoutMinutes).toBe(30);
    await admin.ok('paySettingsUpdate', { body: { orderTimeoutMinutes: 15, notifyRetentionDays: 90 } });
  });

  it('refuses every admin payment operation to users and visitors', async () => {
    const user = (await app().newUser()).client;
    const visitor = app().client();
    const calls = [
      ['payChannelListPage', { body: {} }],
      ['payChannelGet', { query: { id: epayChannel } }],
      [
        'payChannelAdd',
        {
          body: {
            name: 'x',
            gateway: 'https://x.example.com/',
            pid: '1',
            key: '12345678',
            methods: ['alipay'],
            enabled: 1,
          },
        },
      ],
      ['payChannelUpdate', { body: { id: epayChannel, methods: ['alipay'], enabled: 0 } }],
      ['paySettingsGet', {}],
      ['paySettingsUpdate', { body: { orderTimeoutMinutes: 20, notifyRetentionDays: 90 } }],
      ['payNotifyLogPage', { body: {} }],
      ['payChannelCheck', { body: { id: epayChannel } }],
      ['orderGet', { query: { id: 1 } }],
      ['orderEventPage', { body: { orderId: 1 } }],
      ['orderPaymentPage', { body: { orderId: 1 } }],
      ['orderReconcile', { body: { id: 1 } }],
    ] as const;
    for (const [op, options] of calls) {
      expect((await user.call(op, options)).code, op).toBe(40101);
      expect((await visitor.call(op, options)).code, op).toBe(40100);
    }
    expect((await visitor.call('payMethods')).code).toBe(40100);
    expect(
      (
        await app()
          .admin()
          .then((a) => a.ok('payChannelGet', { query: { id: epayChannel } }))
      ).enabled,
    ).toBe(1);
  });

  it("answers another user's order as a missing one: orderPay, orderCheck and orderCancel all 404", async () => {
    const owner = await app().newUser();
    const other = await app().newUser();
    const placed = await buy(owner.client, await addPackage(), epayChannel);
    const pay = await other.client.call('orderPay', {
      body: { id: placed.id, channelId: epayChannel, method: 'alipay' },
    });
    expect([pay.status, pay.code]).toEqual([404, 40400]);
    const missing = await other.client.call('orderCheck', { body: { orderNo: '261129ZZZZZZZZ' } });
    const check = await other.client.call('orderCheck', { body: { orderNo: placed.orderNo } });
    expect([check.status, check.code, check.message]).toEqual([missing.status, missing.code, missing.message]);
    expect([check.status, check.code]).toEqual([404, 40400]);
    const cancel = await other.client.call('orderCancel', { body: { id: placed.id } });
    const cancelMissing = await other.client.call('orderCancel', { body: { id: 2_000_000_000 } });
    expect([cancel.status, cancel.code, cancel.message]).toEqual([
      cancelMissing.status,
      cancelMissing.code,
      cancelMissing.message,
    ]);
    expect((await orderOf(placed.id)).status).toBe('pending');
  });
});

describe('the sandbox on a public address', () => {
  const publicApp = useTestApp({ publicOrigin: { origin: 'https://mall.example.com', rpId: 'mall.example.com' } });

  it('starts off, is switched on only with confirmPublic, and says so while on', async () => {
    const admin = await publicApp().admin();
    const buyer = await publicApp().newUser();
    expect((await buyer.client.ok('payMethods')).methods).toEqual([]);
    const [sandbox] = (await admin.ok('payChannelListPage', { body: {} })).records;
    expect(sandbox).toMatchObject({ kind: 'sandbox', enabled: 0 });
    const refused = await admin.call('payChannelUpdate', { body: { id: sandbox.id, methods: ['alipay'], enabled: 1 } });
    expect([refused.status, refused.code]).toEqual([400, 40000]);
    expect(refused.message).toContain('https://mall.example.com');
    expect((await admin.ok('paySettingsGet')).sandboxOnPublicOrigin).toBe(false);
    await admin.ok('payChannelUpdate', {
      body: { id: sandbox.id, methods: ['alipay'], enabled: 1, confirmPublic: true },
    });
    expect((await admin.ok('paySettingsGet')).sandboxOnPublicOrigin).toBe(true);
    expect((await buyer.client.ok('payMethods')).methods).toEqual([
      { channelId: sandbox.id, method: 'alipay', label: '支付宝' },
    ]);
    // Saving it while it is on (another method) asks nothing again.
    await admin.ok('payChannelUpdate', { body: { id: sandbox.id, methods: ['alipay', 'wxpay'], enabled: 1 } });
    await admin.ok('payChannelUpdate', { body: { id: sandbox.id, methods: ['alipay'], enabled: 0 } });
    expect((await admin.ok('paySettingsGet')).sandboxOnPublicOrigin).toBe(false);
  });
});
