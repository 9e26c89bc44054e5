import { afterEach, describe, expect, it } from 'vitest';
import { auditTrail } from '../helpers/audit.js';
import { expectLedgerConsistent, idem } from '../helpers/ledger.js';
import { useTestApp } from '../helpers/test-app.js';

const app = useTestApp();

afterEach(async () => {
  await expectLedgerConsistent(app());
});

const adminId = () => app().adminId();

const packageAudit = (id: number) => auditTrail(app(), 'package', id);

let nameCounter = 0;
const uniqueName = (prefix = '套餐') => `${prefix}${Date.now() % 100000}-${nameCounter++}`;

/** Adds a package as the seed admin and answers its id. */
async function addPackage(
  fields: { coinName?: string; amount?: number; addCoin?: number; status?: 0 | 1; sort?: number } = {},
): Promise<number> {
  const admin = await app().admin();
  return admin.ok('mallAdd', {
    body: { coinName: uniqueName(), amount: 1000, addCoin: 100, status: 1, sort: 0, ...fields },
  });
}

describe('mallAdd / mallGet', () => {
  it('adds a package and answers it in full, with no orders yet, and audits the addition', async () => {
    const admin = await app().admin();
    const coinName = uniqueName('百积分');
    app().clock.advance(1000);
    const r = await admin.call('mallAdd', { body: { coinName, amount: 1990, addCoin: 200, status: 1, sort: 5 } });
    expect([r.status, r.code]).toEqual([200, 0]);
    const id = r.data as number;
    expect(id).toBeGreaterThan(0);

    const got = await admin.ok('mallGet', { query: { id } });
    const now = app().clock.now();
    expect(got).toEqual({
      id,
      coinName,
      amount: 1990,
      addCoin: 200,
      status: 1,
      sort: 5,
      orders: 0,
      createdAt: now,
      updatedAt: now,
    });

    const audit = await packageAudit(id);
    expect(audit.map((a) => a.action)).toEqual(['package.add']);
    expect(audit[0]).toMatchObject({
      actorId: await adminId(),
      targetType: 'package',
      after: { coinName, amount: 1990, addCoin: 200, status: 1, sort: 5 },
    });
  });

  it('puts a package on shelf with sort 0 when status and sort are not given', async () => {
    const admin = await app().admin();
    const id = await admin.ok('mallAdd', { body: { coinName: uniqueName(), amount: 1, addCoin: 1 } });
    expect(await admin.ok('mallGet', { query: { id } })).toMatchObject({ status: 1, sort: 0, amount: 1, addCoin: 1 });
  });

  it('refuses invalid fields with 400 / 40000 and adds nothing', async () => {
    const admin = await app().admin();
    const before = (await admin.ok('mallListPage', { body: { pageSize: 1 } })).total;
    for (const body of [
      { coinName: '', amount: 100, addCoin: 1 },
      { coinName: '名'.repeat(21), amount: 100, addCoin: 1 },
      { coinName: '换\n行', amount: 100, addCoin: 1 },
      { coinName: '零价', amount: 0, addCoin: 1 },
      { coinName: '负价', amount: -1, addCoin: 1 },
      { coinName: '小数', amount: 1.5, addCoin: 1 },
      { coinName: '零积分', amount: 100, addCoin: 0 },
      { coinName: '状态', amount: 100, addCoin: 1, status: 2 },
      { coinName: '排序', amount: 100, addCoin: 1, sort: -1 },
      { coinName: '多余', amount: 100, addCoin: 1, orders: 3 },
      { amount: 100, addCoin: 1 },
    ]) {
      const r = await admin.call('mallAdd', { body });
      expect([r.status, r.code], JSON.stringify(body)).toEqual([400, 40000]);
    }
    expect((await admin.ok('mallListPage', { body: { pageSize: 1 } })).total).toBe(before);
  });

  it('answers 404 / 40400 for an unknown package', async () => {
    const r = await (await app().admin()).call('mallGet', { query: { id: 987_654 } });
    expect([r.status, r.code, r.message]).toEqual([404, 40400, '套餐不存在']);
  });
});

describe('mallUpdate', () => {
  it('changes only the fields sent, stamps updatedAt and audits before/after', async () => {
    const admin = await app().admin();
    const id = await addPackage({ amount: 1000, addCoin: 100, sort: 3 });
    const before = await admin.ok('mallGet', { query: { id } });
    app().clock.advance(5000);
    expect(await admin.ok('mallUpdate', { body: { id, amount: 900 } })).toBe(true);
    const after = await admin.ok('mallGet', { query: { id } });
    expect(after).toEqual({ ...before, amount: 900, updatedAt: app().clock.now() });

    await admin.ok('mallUpdate', { body: { id, coinName: '改名套餐', addCoin: 120, sort: 1, status: 0 } });
    expect(await admin.ok('mallGet', { query: { id } })).toMatchObject({
      coinName: '改名套餐',
      amount: 900,
      addCoin: 120,
      sort: 1,
      status: 0,
    });

    const audit = await packageAudit(id);
    expect(audit.map((a) => a.action)).toEqual(['package.add', 'package.update', 'package.update']);
    expect(audit[1]).toMatchObject({ before: { amount: 1000 }, after: { amount: 900 } });
    expect(audit[2]).toMatchObject({
      before: { coinName: before.coinName, addCoin: 100, sort: 3, status: 1 },
      after: { coinName: '改名套餐', addCoin: 120, sort: 1, status: 0 },
    });
  });

  it('answers 404 for an unknown package and 400 for invalid fields', async () => {
    const admin = await app().admin();
    const unknown = await admin.call('mallUpdate', { body: { id: 987_654, amount: 5 } });
    expect([unknown.status, unknown.code]).toEqual([404, 40400]);
    const id = await addPackage();
    for (const body of [
      { id, amount: 0 },
      { id, coinName: '' },
      { id, addCoin: -3 },
      { id, orders: 1 },
      { amount: 5 },
    ]) {
      const r = await admin.call('mallUpdate', { body });
      expect([r.status, r.code], JSON.stringify(body)).toEqual([400, 40000]);
    }
  });
});

describe('mallShelf / mallList', () => {
  it('lists on-shelf packages to users by sort value then id, hiding off-shelf ones', async () => {
    const admin = await app().admin();
    const c = await addPackage({ sort: 9000 });
    const a = await addPackage({ sort: 8000 });
    const b = await addPackage({ sort: 8000 });
    const off = await addPackage({ sort: 8500, status: 0 });
    const { client } = await app().newUser();
    const agent = (await app().newUser({ role: 'agent' })).client;

    for (const caller of [client, agent, admin]) {
      const list = await caller.ok('mallList');
      const ids = list.map((p: { id: number }) => p.id);
      expect(ids.filter((id: number) => [a, b, c, off].includes(id))).toEqual([a, b, c]);
      expect(list.every((p: { status: number }) => p.status === 1)).toBe(true);
      // The whole list is in (sort, id) order.
      const keys = list.map((p: { sort: number; id: number }) => [p.sort, p.id]);
      expect(keys).toEqual([...keys].sort((x: number[], y: number[]) => x[0]! - y[0]! || x[1]! - y[1]!));
    }

    // Off shelf: gone from the users' list, still in the admin's; back on shelf: listed again.
    expect(await admin.ok('mallShelf', { body: { id: b, status: 0 } })).toBe(true);
    expect((await client.ok('mallList')).map((p: { id: number }) => p.id)).not.toContain(b);
    const page = await admin.ok('mallListPage', { body: { pageSize: 100, status: 0 } });
    expect(page.records.map((p: { id: number }) => p.id)).toEqual(expect.arrayContaining([b, off]));
    await admin.ok('mallShelf', { body: { id: off, status: 1 } });
    expect(
      (await client.ok('mallList'))
        .map((p: { id: number }) => p.id)
        .filter((id: number) => [a, b, c, off].includes(id)),
    ).toEqual([a, off, c]);

    const audit = await packageAudit(b);
    expect(audit.at(-1)).toMatchObject({ action: 'package.shelf', before: { status: 1 }, after: { status: 0 } });
  });

  it('answers 404 for an unknown package and 400 for a bad status', async () => {
    const admin = await app().admin();
    const unknown = await admin.call('mallShelf', { body: { id: 987_654, status: 0 } });
    expect([unknown.status, unknown.code]).toEqual([404, 40400]);
    const id = await addPackage();
    for (const body of [{ id, status: 2 }, { id }, { id, status: '0' }]) {
      const r = await admin.call('mallShelf', { body });
      expect([r.status, r.code], JSON.stringify(body)).toEqual([400, 40000]);
    }
  });

  it('answers 401 / 40100 to a visitor', async () => {
    const r = await app().client().call('mallList');
    expect([r.status, r.code]).toEqual([401, 40100]);
  });
});

describe('mallListPage', () => {
  it('pages all packages with total, filters by status and searches names', async () => {
    const admin = await app().admin();
    const tag = uniqueName('搜');
    const ids = [
      await addPackage({ coinName: `${tag}甲` }),
      await addPackage({ coinName: `${tag}乙`, status: 0 }),
      await addPackage({ coinName: `${tag}丙` }),
    ];

    const all = await admin.ok('mallListPage', { body: { searchText: tag } });
    expect(all).toMatchObject({ total: 3, current: 1, pageSize: 10 });
    expect(all.records.map((p: { id: number }) => p.id)).toEqual(ids);

    const onShelf = await admin.ok('mallListPage', { body: { searchText: tag, status: 1 } });
    expect(onShelf.records.map((p: { id: number }) => p.id)).toEqual([ids[0], ids[2]]);
    expect(onShelf.total).toBe(2);

    const second = await admin.ok('mallListPage', { body: { searchText: tag, current: 2, pageSize: 2 } });
    expect(second).toMatchObject({ total: 3, current: 2, pageSize: 2 });
    expect(second.records.map((p: { id: number }) => p.id)).toEqual([ids[2]]);

    // LIKE wildcards are matched literally.
    expect((await admin.ok('mallListPage', { body: { searchText: '%_%' } })).total).toBe(0);
  });
});

describe('mallDelete', () => {
  it('deletes a package nothing refers to, and audits it', async () => {
    const admin = await app().admin();
    const id = await addPackage();
    expect(await admin.ok('mallDelete', { body: { id } })).toBe(true);
    const gone = await admin.call('mallGet', { query: { id } });
    expect([gone.status, gone.code]).toEqual([404, 40400]);
    const audit = await packageAudit(id);
    expect(audit.at(-1)).toMatchObject({ action: 'package.delete', actorId: await adminId(), before: { id } });
    const again = await admin.call('mallDelete', { body: { id } });
    expect([again.status, again.code]).toEqual([404, 40400]);
  });

  it('refuses with 409 / 40900 while an order refers to the package (even a cancelled one), and counts its orders', async () => {
    const admin = await app().admin();
    const id = await addPackage();
    const { client } = await app().newUser();
    const order = await client.ok('orderSubmit', { body: { packageId: id }, headers: idem() });
    await client.ok('orderCancel', { body: { id: order.id } });
    // With the first one cancelled, buying again places a second order (an unpaid one would be answered again).
    await client.ok('orderSubmit', { body: { packageId: id }, headers: idem() });
    expect((await admin.ok('mallGet', { query: { id } })).orders).toBe(2);

    const r = await admin.call('mallDelete', { body: { id } });
    expect([r.status, r.code]).toEqual([409, 40900]);
    expect(r.message).toMatch(/订单/);
    expect((await admin.ok('mallGet', { query: { id } })).orders).toBe(2);
    // It can still go off shelf.
    expect(await admin.ok('mallShelf', { body: { id, status: 0 } })).toBe(true);
  });
});

describe('roles', () => {
  it('refuses admin operations to users and agents (403 / 40101) and to visitors (401 / 40100), changing nothing', async () => {
    const id = await addPackage({ amount: 500 });
    const user = (await app().newUser()).client;
    const agent = (await app().newUser({ role: 'agent' })).client;
    const visitor = app().client();
    const calls = [
      ['mallListPage', { body: { current: 1 } }],
      ['mallGet', { query: { id } }],
      ['mallAdd', { body: { coinName: '偷加', amount: 1, addCoin: 100000 } }],
      ['mallUpdate', { body: { id, amount: 1 } }],
      ['mallShelf', { body: { id, status: 0 } }],
      ['mallDelete', { body: { id } }],
    ] as const;
    for (const [op, options] of calls) {
      for (const client of [user, agent]) {
        const r = await client.call(op, options);
        expect([op, r.status, r.code]).toEqual([op, 403, 40101]);
      }
      const v = await visitor.call(op, options);
      expect([op, v.status, v.code]).toEqual([op, 401, 40100]);
    }
    expect(await (await app().admin()).ok('mallGet', { query: { id } })).toMatchObject({ amount: 500, status: 1 });
  });
});
