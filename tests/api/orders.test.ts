import { afterEach, describe, expect, it } from 'vitest';
import { listAudit } from '../../src/server/support/audit/repo.js';
import type { ApiClient } from '../helpers/client.js';
import { balanceOf, entriesOf, expectLedgerConsistent, idem, newKey } from '../helpers/ledger.js';
import { useTestApp } from '../helpers/test-app.js';

const app = useTestApp();

afterEach(async () => {
  await expectLedgerConsistent(app());
});

const db = () => app().built.context.db;

const adminId = () => app().adminId();

let nameCounter = 0;
const uniqueName = () => `套餐${Date.now() % 100000}-${nameCounter++}`;

async function addPackage(fields: { amount?: number; addCoin?: number; status?: 0 | 1 } = {}): Promise<number> {
  return (await app().admin()).ok('mallAdd', {
    body: { coinName: uniqueName(), amount: 1000, addCoin: 100, status: 1, sort: 0, ...fields },
  });
}

const submit = (client: ApiClient, packageId: number, key = newKey()) =>
  client.call('orderSubmit', { body: { packageId }, headers: idem(key) });
const confirm = async (id: number, key = newKey()) =>
  (await app().admin()).call('orderConfirm', { body: { id }, headers: idem(key) });

async function setRebatePercent(rebatePercent: number) {
  await (await app().admin()).ok('basicInformationUpdate', { body: { id: 1, rebatePercent } });
}

const orderCount = async () =>
  Number(
    (
      await db()
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('orderSubmit', () => {
  it('takes concurrent orders from one buyer without a deadlock (each its own key)', async () => {
    const packages: number[] = [];
    for (let i = 0; i < 8; i++) packages.push(await addPackage());
    const { client } = await app().newUser();
    const results = await Promise.all(packages.map((pkg) => submit(client, pkg)));
    expect(results.map((r) => [r.status, r.code])).toEqual(Array.from({ length: 8 }, () => [200, 0]));
    expect(new Set(results.map((r) => r.data.orderNo)).size).toBe(8);
  });

  it('answers the unpaid order of the same package instead of a new one, also when 8 taps arrive at once', async () => {
    const pkg = await addPackage();
    const { client } = await app().newUser();
    const before = await orderCount();
    const results = await Promise.all(Array.from({ length: 8 }, () => submit(client, pkg)));
    expect(results.map((r) => r.code)).toEqual(Array.from({ length: 8 }, () => 0));
    expect(new Set(results.map((r) => r.data.orderNo)).size).toBe(1);
    expect(results.filter((r) => r.data.reused === false)).toHaveLength(1);
    expect(await orderCount()).toBe(before + 1);
  });

  it('places a pending order that keeps the package name, price and coins as they were', async () => {
    const pkg = await addPackage({ amount: 1990, addCoin: 250 });
    const { coinName } = await (await app().admin()).ok('mallGet', { query: { id: pkg } });
    const { client, userAccount } = await app().newUser();
    app().clock.advance(1000);
    const r = await submit(client, pkg);
    expect([r.status, r.code]).toEqual([200, 0]);
    expect(r.data).toEqual({
      id: expect.any(Number),
      orderNo: expect.stringMatching(/^\d{6}[2-9A-HJKMNP-Z]{8}$/),
      userAccount,
      packageId: pkg,
      coinName,
      amount: 1990,
      addCoin: 250,
      status: 'pending',
      createdAt: app().clock.now(),
      paidAt: null,
      cancelledAt: null,
      channelId: null,
      channelName: null,
      method: null,
      tradeNo: null,
      expiresAt: null,
      paidBy: null,
      paidLate: false,
      needsRefund: false,
      refundedAt: null,
      reused: false,
      payUrl: null,
    });

    // A later change to the package leaves the order as it was placed.
    await (await app().admin()).ok('mallUpdate', { body: { id: pkg, amount: 2990, addCoin: 300, coinName: '涨价了' } });
    const mine = await client.ok('orderMy', { body: {} });
    const { reused: _reused, payUrl: _payUrl, ...placed } = r.data;
    expect(mine.records[0]).toEqual(placed);

    // Buying it again while that order is unpaid answers that order; once it is cancelled, a new one at today's terms.
    const again = await submit(client, pkg);
    expect([again.data.orderNo, again.data.reused, again.data.addCoin]).toEqual([r.data.orderNo, true, 250]);
    await client.ok('orderCancel', { body: { id: r.data.id } });
    const second = await submit(client, pkg);
    expect(second.data.orderNo).not.toBe(r.data.orderNo);
    expect([second.data.reused, second.data.addCoin]).toEqual([false, 300]);
  });

  it('places one order per Idempotency-Key: a retry answers the first order, another body with the key is 409', async () => {
    const pkg = await addPackage();
    const other = await addPackage();
    const { client } = await app().newUser();
    const key = newKey();
    const first = await submit(client, pkg, key);
    const before = await orderCount();
    const retry = await submit(client, pkg, key);
    expect([retry.code, retry.data]).toEqual([0, first.data]);
    expect(await orderCount()).toBe(before);
    const clash = await submit(client, other, key);
    expect([clash.status, clash.code]).toEqual([409, 40900]);
    expect(await orderCount()).toBe(before);
  });

  it('answers 404 / 40400 for an off-shelf or unknown package, and 400 without an Idempotency-Key', async () => {
    const off = await addPackage({ status: 0 });
    const { client } = await app().newUser();
    const before = await orderCount();
    for (const packageId of [off, 987_654]) {
      const r = await submit(client, packageId);
      expect([r.status, r.code, r.message]).toEqual([404, 40400, '套餐不存在或已下架']);
    }
    const noKey = await client.call('orderSubmit', { body: { packageId: off } });
    expect([noKey.status, noKey.code]).toEqual([400, 40000]);
    for (const body of [{}, { packageId: 0 }, { packageId: 'x' }, { packageId: off, extra: 1 }]) {
      const r = await client.call('orderSubmit', { body, headers: idem() });
      expect([r.status, r.code], JSON.stringify(body)).toEqual([400, 40000]);
    }
    expect(await orderCount()).toBe(before);
  });

  it('limits a user to 20 pending orders (40000); a cancel or a confirmation makes room', async () => {
    const packages: number[] = [];
    for (let i = 0; i < 24; i++) packages.push(await addPackage());
    const { client } = await app().newUser();
    const orders = [];
    for (let i = 0; i < 20; i++) orders.push((await submit(client, packages[i]!)).data);
    const refused = await submit(client, packages[20]!);
    expect([refused.status, refused.code]).toEqual([400, 40000]);
    expect(refused.message).toMatch(/20/);

    // Another user is not affected.
    expect((await submit((await app().newUser()).client, packages[20]!)).code).toBe(0);

    await client.ok('orderCancel', { body: { id: orders[0].id } });
    expect((await submit(client, packages[20]!)).code).toBe(0);
    expect((await submit(client, packages[21]!)).code).toBe(40000);
    expect((await confirm(orders[1].id)).code).toBe(0);
    expect((await submit(client, packages[22]!)).code).toBe(0);
  });

  it('answers 401 / 40100 to a visitor', async () => {
    const pkg = await addPackage();
    const r = await submit(app().client(), pkg);
    expect([r.status, r.code]).toEqual([401, 40100]);
  });
});

describe('orderMy / orderListPage', () => {
  it("orderMy answers only the caller's orders, newest first, filtered by status", async () => {
    const [pkgA, pkgB, pkgC] = [await addPackage(), await addPackage(), await addPackage()];
    const me = await app().newUser({ role: 'agent' });
    const other = await app().newUser();
    const a = (await submit(me.client, pkgA)).data;
    const b = (await submit(me.client, pkgB)).data;
    const c = (await submit(me.client, pkgC)).data;
    await submit(other.client, pkgA);
    await me.client.ok('orderCancel', { body: { id: b.id } });
    expect((await confirm(c.id)).code).toBe(0);

    const all = await me.client.ok('orderMy', { body: { current: 1, pageSize: 10 } });
    expect(all).toMatchObject({ total: 3, current: 1, pageSize: 10 });
    expect(all.records.map((o: { id: number; status: string }) => [o.id, o.status])).toEqual([
      [c.id, 'paid'],
      [b.id, 'cancelled'],
      [a.id, 'pending'],
    ]);
    expect(all.records[0].paidAt).toBe(app().clock.now());
    expect(all.records[1].cancelledAt).toBe(app().clock.now());

    for (const status of ['pending', 'paid', 'cancelled'] as const) {
      const page = await me.client.ok('orderMy', { body: { status } });
      expect(page.total).toBe(1);
      expect(page.records[0].status).toBe(status);
    }
    const paged = await me.client.ok('orderMy', { body: { current: 2, pageSize: 2 } });
    expect(paged.records.map((o: { id: number }) => o.id)).toEqual([a.id]);
    expect(
      (await me.client.ok('orderMy', { body: { searchText: a.orderNo } })).records.map((o: { id: number }) => o.id),
    ).toEqual([a.id]);
    expect((await app().client().call('orderMy', { body: {} })).code).toBe(40100);
  });

  it('orderListPage answers every order to an admin, filtered by status, searched by order number or account', async () => {
    const admin = await app().admin();
    const pkg = await addPackage();
    const later = await addPackage();
    const one = await app().newUser();
    const two = await app().newUser();
    const a = (await submit(one.client, pkg)).data;
    const b = (await submit(two.client, pkg)).data;
    const c = (await submit(one.client, later)).data;
    await confirm(c.id);

    const all = await admin.ok('orderListPage', { body: { pageSize: 100 } });
    const ids = all.records.map((o: { id: number }) => o.id);
    expect(ids.slice(0, 3)).toEqual([c.id, b.id, a.id]);
    expect(all.total).toBe(await orderCount());

    const byAccount = await admin.ok('orderListPage', { body: { searchText: one.userAccount.toUpperCase() } });
    expect(byAccount.records.map((o: { id: number }) => o.id)).toEqual([c.id, a.id]);
    const pendingOfOne = await admin.ok('orderListPage', { body: { searchText: one.userAccount, status: 'pending' } });
    expect(pendingOfOne).toMatchObject({ total: 1, records: [{ id: a.id, userAccount: one.userAccount }] });
    const byNo = await admin.ok('orderListPage', { body: { searchText: b.orderNo } });
    const { reused: _r, payUrl: _p, ...placedB } = b;
    expect(byNo.records).toEqual([placedB]);
    const paid = await admin.ok('orderListPage', { body: { status: 'paid', pageSize: 100 } });
    expect(paid.records.every((o: { status: string }) => o.status === 'paid')).toBe(true);
    expect(paid.records.map((o: { id: number }) => o.id)).toContain(c.id);

    for (const client of [one.client, (await app().newUser({ role: 'agent' })).client]) {
      const r = await client.call('orderListPage', { body: {} });
      expect([r.status, r.code]).toEqual([403, 40101]);
    }
    const bad = await admin.call('orderListPage', { body: { status: 'unknown' } });
    expect([bad.status, bad.code]).toEqual([400, 40000]);
  });
});

describe('orderConfirm', () => {
  it('credits the buyer exactly once: a second confirmation is 409, the same key answers the same', async () => {
    const pkg = await addPackage({ addCoin: 150 });
    const buyer = await app().newUser();
    const order = (await submit(buyer.client, pkg)).data;
    expect(await balanceOf(app(), buyer.id)).toBe(0);

    app().clock.advance(1000);
    const key = newKey();
    const r = await confirm(order.id, key);
    expect([r.status, r.code]).toEqual([200, 0]);
    const { reused: _r, payUrl: _p, ...placed } = order;
    expect(r.data).toEqual({ ...placed, status: 'paid', paidAt: app().clock.now(), paidBy: 'manual' });
    expect(await balanceOf(app(), buyer.id)).toBe(150);
    const entries = await entriesOf(app(), buyer.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      amount: 150,
      balanceAfter: 150,
      kind: 'order_credit',
      reference: order.orderNo,
      actorId: await adminId(),
      counterpartyId: null,
    });

    const again = await confirm(order.id);
    expect([again.status, again.code, again.message]).toEqual([409, 40900, '订单已处理']);
    const retry = await confirm(order.id, key);
    expect([retry.status, retry.code, retry.data]).toEqual([200, 0, r.data]);
    expect(await balanceOf(app(), buyer.id)).toBe(150);
    expect(await entriesOf(app(), buyer.id)).toHaveLength(1);

    // The order is not cancellable any more.
    const cancel = await buyer.client.call('orderCancel', { body: { id: order.id } });
    expect([cancel.status, cancel.code]).toEqual([409, 40900]);

    const audit = await listAudit(db(), 'order', order.id);
    expect(audit.map((a) => [a.action, a.actorId])).toEqual([['order.confirm', await adminId()]]);
    expect(JSON.parse(audit[0]!.after!)).toMatchObject({ status: 'paid', addCoin: 150, rebate: null });
  });

  it("gives the agent who invited the buyer the site's rebate percentage, once, under the same reference", async () => {
    await setRebatePercent(10);
    try {
      const agent = await app().newUser({ role: 'agent' });
      const { invitationCode } = await agent.client.ok('userGetLogin');
      const buyer = await app().newUser({ invitationCode });
      const pkg = await addPackage({ addCoin: 155 });
      const order = (await submit(buyer.client, pkg)).data;
      expect((await confirm(order.id)).code).toBe(0);

      expect(await balanceOf(app(), buyer.id)).toBe(155);
      expect(await balanceOf(app(), agent.id)).toBe(15);
      const rebate = await entriesOf(app(), agent.id);
      expect(rebate).toHaveLength(1);
      expect(rebate[0]).toMatchObject({
        amount: 15,
        balanceAfter: 15,
        kind: 'agent_rebate',
        counterpartyId: buyer.id,
        reference: order.orderNo,
        actorId: await adminId(),
      });
      expect((await entriesOf(app(), buyer.id))[0]).toMatchObject({ kind: 'order_credit', reference: order.orderNo });

      // No second rebate for the same order.
      expect((await confirm(order.id)).code).toBe(40900);
      expect(await balanceOf(app(), agent.id)).toBe(15);

      // A rebate below one coin is not posted.
      const tiny = (await submit(buyer.client, await addPackage({ addCoin: 9 }))).data;
      expect((await confirm(tiny.id)).code).toBe(0);
      expect(await balanceOf(app(), buyer.id)).toBe(164);
      expect(await balanceOf(app(), agent.id)).toBe(15);

      const audit = await listAudit(db(), 'order', order.id);
      expect(JSON.parse(audit[0]!.after!)).toMatchObject({ rebate: { agentId: agent.id, coin: 15, percent: 10 } });
    } finally {
      await setRebatePercent(0);
    }
  });

  it('gives no rebate to an inviter that is not an agent, nor to an agent when the percentage is 0', async () => {
    const pkg = await addPackage({ addCoin: 200 });
    await setRebatePercent(10);
    try {
      const inviter = await app().newUser();
      const { invitationCode } = await inviter.client.ok('userGetLogin');
      const buyer = await app().newUser({ invitationCode });
      const order = (await submit(buyer.client, pkg)).data;
      expect((await confirm(order.id)).code).toBe(0);
      expect(await balanceOf(app(), buyer.id)).toBe(200);
      expect(await entriesOf(app(), inviter.id)).toEqual([]);
    } finally {
      await setRebatePercent(0);
    }

    const agent = await app().newUser({ role: 'agent' });
    const { invitationCode } = await agent.client.ok('userGetLogin');
    const buyer = await app().newUser({ invitationCode });
    const order = (await submit(buyer.client, pkg)).data;
    expect((await confirm(order.id)).code).toBe(0);
    expect(await balanceOf(app(), buyer.id)).toBe(200);
    expect(await entriesOf(app(), agent.id)).toEqual([]);
  });

  it('credits once when 20 confirmations of one order (distinct keys) arrive at once', async () => {
    await setRebatePercent(10);
    try {
      const agent = await app().newUser({ role: 'agent' });
      const { invitationCode } = await agent.client.ok('userGetLogin');
      const buyer = await app().newUser({ invitationCode });
      const order = (await submit(buyer.client, await addPackage({ addCoin: 1000 }))).data;
      const results = await Promise.all(Array.from({ length: 20 }, () => confirm(order.id)));
      const codes = results.map((r) => r.code).sort();
      expect(codes.filter((c) => c === 0)).toHaveLength(1);
      expect(codes.filter((c) => c === 40900)).toHaveLength(19);
      expect(await balanceOf(app(), buyer.id)).toBe(1000);
      expect(await balanceOf(app(), agent.id)).toBe(100);
      expect(await entriesOf(app(), buyer.id)).toHaveLength(1);
      expect(await entriesOf(app(), agent.id)).toHaveLength(1);
      expect(await listAudit(db(), 'order', order.id)).toHaveLength(1);
    } finally {
      await setRebatePercent(0);
    }
  });

  it('confirms an order whose package went off shelf (or changed) after it was placed', async () => {
    const admin = await app().admin();
    const pkg = await addPackage({ addCoin: 70 });
    const buyer = await app().newUser();
    const order = (await submit(buyer.client, pkg)).data;
    await admin.ok('mallShelf', { body: { id: pkg, status: 0 } });
    await admin.ok('mallUpdate', { body: { id: pkg, addCoin: 7000 } });
    expect((await buyer.client.ok('mallList')).map((p: { id: number }) => p.id)).not.toContain(pkg);
    const r = await confirm(order.id);
    expect([r.code, r.data.status, r.data.addCoin]).toEqual([0, 'paid', 70]);
    expect(await balanceOf(app(), buyer.id)).toBe(70);
  });

  it('answers 404 for an unknown order, 409 for a cancelled one, 403 to users and agents, 401 to visitors', async () => {
    const unknown = await confirm(987_654);
    expect([unknown.status, unknown.code]).toEqual([404, 40400]);

    const buyer = await app().newUser({ role: 'agent' });
    const order = (await submit(buyer.client, await addPackage())).data;
    for (const client of [buyer.client, (await app().newUser()).client]) {
      const r = await client.call('orderConfirm', { body: { id: order.id }, headers: idem() });
      expect([r.status, r.code]).toEqual([403, 40101]);
    }
    const visitor = await app()
      .client()
      .call('orderConfirm', { body: { id: order.id }, headers: idem() });
    expect([visitor.status, visitor.code]).toEqual([401, 40100]);
    const noKey = await (await app().admin()).call('orderConfirm', { body: { id: order.id } });
    expect([noKey.status, noKey.code]).toEqual([400, 40000]);

    await buyer.client.ok('orderCancel', { body: { id: order.id } });
    const cancelled = await confirm(order.id);
    expect([cancelled.status, cancelled.code, cancelled.message]).toEqual([409, 40900, '订单已处理']);
    expect(await balanceOf(app(), buyer.id)).toBe(0);
    expect(await entriesOf(app(), buyer.id)).toEqual([]);
  });
});

describe('orderCancel', () => {
  it('lets the buyer cancel its own pending order, once', async () => {
    const buyer = await app().newUser();
    const order = (await submit(buyer.client, await addPackage())).data;
    app().clock.advance(1000);
    const r = await buyer.client.call('orderCancel', { body: { id: order.id } });
    expect([r.status, r.code]).toEqual([200, 0]);
    const { reused: _r, payUrl: _p, ...placed } = order;
    expect(r.data).toEqual({ ...placed, status: 'cancelled', cancelledAt: app().clock.now() });
    const again = await buyer.client.call('orderCancel', { body: { id: order.id } });
    expect([again.status, again.code, again.message]).toEqual([409, 40900, '订单已处理']);
    expect(await entriesOf(app(), buyer.id)).toEqual([]);
  });

  it("answers another user's order as a missing one (404 / 40400); an admin cancels any pending order", async () => {
    const buyer = await app().newUser();
    const order = (await submit(buyer.client, await addPackage())).data;
    for (const client of [(await app().newUser()).client, (await app().newUser({ role: 'agent' })).client]) {
      const r = await client.call('orderCancel', { body: { id: order.id } });
      expect([r.status, r.code, r.message]).toEqual([404, 40400, '订单不存在']);
    }
    const visitor = await app()
      .client()
      .call('orderCancel', { body: { id: order.id } });
    expect([visitor.status, visitor.code]).toEqual([401, 40100]);
    expect((await buyer.client.ok('orderMy', { body: {} })).records[0].status).toBe('pending');

    const r = await (await app().admin()).call('orderCancel', { body: { id: order.id } });
    expect([r.code, r.data.status]).toEqual([0, 'cancelled']);
    const audit = await listAudit(db(), 'order', order.id);
    expect(audit.map((a) => [a.action, a.actorId])).toEqual([['order.cancel', await adminId()]]);
  });

  it('answers 404 for an unknown order and 409 for a paid one', async () => {
    const buyer = await app().newUser();
    const unknown = await buyer.client.call('orderCancel', { body: { id: 987_654 } });
    expect([unknown.status, unknown.code]).toEqual([404, 40400]);
    const order = (await submit(buyer.client, await addPackage())).data;
    await confirm(order.id);
    for (const client of [buyer.client, await app().admin()]) {
      const r = await client.call('orderCancel', { body: { id: order.id } });
      expect([r.status, r.code]).toEqual([409, 40900]);
    }
  });
});
