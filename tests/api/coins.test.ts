import { dbKind } from '../helpers/database.js';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { auditTrail } from '../helpers/audit.js';
import { balanceOf, entriesOf, expectLedgerConsistent, grant, idem, newKey } from '../helpers/ledger.js';
import { ADMIN, uniqueAccount, useTestApp } from '../helpers/test-app.js';

const app = useTestApp();

// Every test leaves the ledger consistent: balances equal their entries, none negative, coinLedgerCheck clean.
afterEach(async () => {
  await expectLedgerConsistent(app());
});

const db = () => app().built.context.db;

/** An instant as the site's clock shows it: Asia/Shanghai (TZ_SITE in tests) is UTC+8 all year. */
const shanghai = (ms: number) => new Date(ms + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');

const adminId = () => app().adminId();

async function coinAudit(userId: number) {
  return (await auditTrail(app(), 'user', userId)).filter((a) => a.action.startsWith('coin.'));
}

const idempotencyRows = () => db().selectFrom('idempotencyKeys').selectAll().execute();

describe('userAddCoin / userReduceCoin', () => {
  it('adds and reduces: answers the new balance, appends an entry with the reason, writes the audit log', async () => {
    const admin = await app().admin();
    const me = await adminId();
    const { id, userAccount } = await app().newUser();

    const added = await admin.call('userAddCoin', {
      body: { userAccount, coin: 100, description: '活动奖励' },
      headers: idem(),
    });
    expect([added.status, added.code]).toEqual([200, 0]);
    expect(added.data).toEqual({ userId: id, userAccount, coin: 100 });

    const reduced = await admin.call('userReduceCoin', {
      body: { userAccount, coin: 30, description: '误充更正' },
      headers: idem(),
    });
    expect([reduced.status, reduced.code]).toEqual([200, 0]);
    expect(reduced.data).toEqual({ userId: id, userAccount, coin: 70 });
    expect(await balanceOf(app(), id)).toBe(70);

    const entries = await entriesOf(app(), id);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      amount: 100,
      balanceAfter: 100,
      kind: 'admin_add',
      description: '活动奖励',
      actorId: me,
      counterpartyId: null,
    });
    expect(entries[1]).toMatchObject({
      amount: -30,
      balanceAfter: 70,
      kind: 'admin_reduce',
      description: '误充更正',
      actorId: me,
      counterpartyId: null,
    });
    expect(entries[0]!.reference).not.toBe(entries[1]!.reference);
    expect(entries[0]!.createdAt).toBe(app().clock.now());

    // The statement names the admin as the actor.
    const page = await admin.ok('coinEntries', { query: { userId: id } });
    expect(page.records.map((r: any) => [r.kind, r.amount, r.balanceAfter, r.actorAccount, r.description])).toEqual([
      ['admin_reduce', -30, 70, ADMIN.userAccount, '误充更正'],
      ['admin_add', 100, 100, ADMIN.userAccount, '活动奖励'],
    ]);

    const audit = await coinAudit(id);
    expect(audit.map((a) => a.action)).toEqual(['coin.add', 'coin.reduce']);
    expect(audit[0]).toMatchObject({
      actorId: me,
      targetType: 'user',
      before: { coin: 0 },
      after: { coin: 100, reason: '活动奖励', reference: entries[0]!.reference },
    });
    expect(audit[1]).toMatchObject({
      actorId: me,
      targetType: 'user',
      before: { coin: 100 },
      after: { coin: 70, reason: '误充更正', reference: entries[1]!.reference },
    });
  });

  it('refuses to reduce below zero with 40000 and the balance, and writes nothing (no entry, no audit, no key)', async () => {
    const admin = await app().admin();
    const { id, userAccount } = await app().newUser();
    await grant(app(), userAccount, 10);
    const entriesBefore = await entriesOf(app(), id);
    const auditBefore = await coinAudit(id);
    const keysBefore = await idempotencyRows();

    const key = newKey();
    const r = await admin.call('userReduceCoin', {
      body: { userAccount, coin: 11, description: '扣太多' },
      headers: idem(key),
    });
    expect([r.status, r.code, r.message]).toEqual([400, 40000, `${userAccount} 当前只有 10 积分，不能扣除 11 积分`]);
    expect(await balanceOf(app(), id)).toBe(10);
    expect(await entriesOf(app(), id)).toEqual(entriesBefore);
    expect(await coinAudit(id)).toEqual(auditBefore);
    expect(await idempotencyRows()).toEqual(keysBefore);

    // A failed attempt records nothing: the same key may then carry a request that succeeds.
    const retry = await admin.call('userReduceCoin', {
      body: { userAccount, coin: 10, description: '扣太多' },
      headers: idem(key),
    });
    expect([retry.code, retry.data]).toEqual([0, { userId: id, userAccount, coin: 0 }]);
  });

  it('answers 404 / 40400 for an unknown or deleted account', async () => {
    const admin = await app().admin();
    const gone = await app().newUser();
    await admin.ok('userDelete', { body: { id: gone.id } });
    for (const op of ['userAddCoin', 'userReduceCoin'] as const) {
      for (const userAccount of [uniqueAccount('nobody'), gone.userAccount]) {
        const r = await admin.call(op, { body: { userAccount, coin: 1, description: '不存在' }, headers: idem() });
        expect([op, r.status, r.code]).toEqual([op, 404, 40400]);
      }
    }
    expect(await entriesOf(app(), gone.id)).toEqual([]);
  });

  it('answers 403 / 40101 to a user or an agent, and 401 / 40100 to a visitor, moving nothing', async () => {
    const { id, userAccount } = await app().newUser();
    const user = (await app().newUser()).client;
    const agent = (await app().newUser({ role: 'agent' })).client;
    for (const client of [user, agent]) {
      for (const op of ['userAddCoin', 'userReduceCoin'] as const) {
        const r = await client.call(op, { body: { userAccount, coin: 5, description: '自己加' }, headers: idem() });
        expect([r.status, r.code]).toEqual([403, 40101]);
      }
    }
    const visitor = await app()
      .client()
      .call('userAddCoin', { body: { userAccount, coin: 5, description: '游客' }, headers: idem() });
    expect([visitor.status, visitor.code]).toEqual([401, 40100]);
    expect(await balanceOf(app(), id)).toBe(0);
    expect(await entriesOf(app(), id)).toEqual([]);
  });

  it('refuses a coin amount outside 1..100000000 and an empty or missing reason (400 / 40000)', async () => {
    const admin = await app().admin();
    const { id, userAccount } = await app().newUser();
    for (const body of [
      { userAccount, coin: 0, description: '零' },
      { userAccount, coin: -5, description: '负数' },
      { userAccount, coin: 2.5, description: '小数' },
      { userAccount, coin: '5', description: '字符串' },
      { userAccount, coin: 100_000_001, description: '太多' },
      { userAccount, coin: 5, description: '' },
      { userAccount, coin: 5 },
    ]) {
      const r = await admin.call('userAddCoin', { body, headers: idem() });
      expect([JSON.stringify(body), r.status, r.code]).toEqual([JSON.stringify(body), 400, 40000]);
    }
    expect(await entriesOf(app(), id)).toEqual([]);
  });
});

describe('Idempotency-Key', () => {
  it('is required: a coin-moving request without it answers 400 / 40000 and moves nothing', async () => {
    const admin = await app().admin();
    const payer = await app().newUser();
    const payee = await app().newUser();
    await grant(app(), payer.userAccount, 10);
    const add = await admin.call('userAddCoin', {
      body: { userAccount: payee.userAccount, coin: 5, description: '无键' },
    });
    expect([add.status, add.code]).toEqual([400, 40000]);
    // The person reads one plain sentence; the header is named for the developer only.
    expect(add.message).toBe('请求无法完成，请刷新页面后重试');
    expect(add.detail).toMatch(/idempotency-key/i);
    const reduce = await admin.call('userReduceCoin', {
      body: { userAccount: payer.userAccount, coin: 5, description: '无键' },
    });
    expect([reduce.status, reduce.code]).toEqual([400, 40000]);
    const transfer = await payer.client.call('userTransferCoin', { body: { userAccount: payee.userAccount, coin: 5 } });
    expect([transfer.status, transfer.code]).toEqual([400, 40000]);
    expect(await balanceOf(app(), payer.id)).toBe(10);
    expect(await balanceOf(app(), payee.id)).toBe(0);
  });

  it('refuses a malformed key (too short, too long, characters outside A-Z a-z 0-9 - _) with 400 / 40000', async () => {
    const admin = await app().admin();
    const payer = await app().newUser();
    const payee = await app().newUser();
    await grant(app(), payer.userAccount, 10);
    const keysBefore = await idempotencyRows();
    for (const key of [
      '',
      'abc1234',
      'a'.repeat(65),
      'bad key 123',
      'bad.key.123',
      'key/with/slash',
      "k'; drop table x--",
      'key+plus=123',
    ]) {
      const add = await admin.call('userAddCoin', {
        body: { userAccount: payee.userAccount, coin: 5, description: '坏键' },
        headers: idem(key),
      });
      expect([key, add.status, add.code]).toEqual([key, 400, 40000]);
      const transfer = await payer.client.call('userTransferCoin', {
        body: { userAccount: payee.userAccount, coin: 5 },
        headers: idem(key),
      });
      expect([key, transfer.status, transfer.code]).toEqual([key, 400, 40000]);
    }
    expect(await balanceOf(app(), payer.id)).toBe(10);
    expect(await balanceOf(app(), payee.id)).toBe(0);
    expect(await idempotencyRows()).toEqual(keysBefore);
    // The bounds themselves are fine: 8 and 64 characters of the allowed alphabet.
    for (const key of ['Ab3_-xYz', 'k'.repeat(64)]) {
      expect(
        (
          await admin.call('userAddCoin', {
            body: { userAccount: payee.userAccount, coin: 1, description: '好键' },
            headers: idem(key),
          })
        ).code,
      ).toBe(0);
    }
    expect(await balanceOf(app(), payee.id)).toBe(2);
  });

  it('a retry of addCoin with the same key and body answers the first result and adds nothing', async () => {
    const admin = await app().admin();
    const { id, userAccount } = await app().newUser();
    const key = newKey();
    const body = { userAccount, coin: 40, description: '重试' };
    const first = await admin.call('userAddCoin', { body, headers: idem(key) });
    expect(first.data).toEqual({ userId: id, userAccount, coin: 40 });
    // Another movement in between: the retry still answers the first result, not the current balance.
    await grant(app(), userAccount, 1);
    for (let i = 0; i < 3; i++) {
      const again = await admin.call('userAddCoin', { body, headers: idem(key) });
      expect([again.status, again.code, again.data]).toEqual([200, 0, { userId: id, userAccount, coin: 40 }]);
    }
    expect(await balanceOf(app(), id)).toBe(41);
    expect((await entriesOf(app(), id)).filter((e) => e.description === '重试')).toHaveLength(1);
    expect((await coinAudit(id)).filter((a) => a.after?.reason === '重试')).toHaveLength(1);
  });

  it('a retry of a transfer with the same key and body answers the first result (same reference) and moves once', async () => {
    const payer = await app().newUser();
    const payee = await app().newUser();
    await grant(app(), payer.userAccount, 30);
    const key = newKey();
    const body = { userAccount: payee.userAccount, coin: 12 };
    const first = await payer.client.ok('userTransferCoin', { body, headers: idem(key) });
    const again = await payer.client.call('userTransferCoin', { body, headers: idem(key) });
    expect([again.code, again.data]).toEqual([0, first]);
    expect(await balanceOf(app(), payer.id)).toBe(18);
    expect(await balanceOf(app(), payee.id)).toBe(12);
    expect((await entriesOf(app())).filter((e) => e.reference === first.reference)).toHaveLength(2);
  });

  it('the same body with its fields in another order is the same request: answered again, not 40900', async () => {
    const admin = await app().admin();
    const payer = await app().newUser();
    const payee = await app().newUser();
    await grant(app(), payer.userAccount, 20);

    const addKey = newKey();
    const added = await admin.ok('userAddCoin', {
      body: { userAccount: payee.userAccount, coin: 5, description: '顺序' },
      headers: idem(addKey),
    });
    const addAgain = await admin.call('userAddCoin', {
      rawBody: JSON.stringify({ description: '顺序', coin: 5, userAccount: payee.userAccount }),
      headers: idem(addKey),
    });
    expect([addAgain.status, addAgain.code, addAgain.data]).toEqual([200, 0, added]);

    const transferKey = newKey();
    const sent = await payer.client.ok('userTransferCoin', {
      body: { userAccount: payee.userAccount, coin: 4 },
      headers: idem(transferKey),
    });
    const sentAgain = await payer.client.call('userTransferCoin', {
      rawBody: JSON.stringify({ coin: 4, userAccount: payee.userAccount }),
      headers: idem(transferKey),
    });
    expect([sentAgain.status, sentAgain.code, sentAgain.data]).toEqual([200, 0, sent]);

    expect(await balanceOf(app(), payer.id)).toBe(16);
    expect(await balanceOf(app(), payee.id)).toBe(9);
  });

  it('the same key with another body, or on another operation, answers 409 / 40900 and moves nothing', async () => {
    const admin = await app().admin();
    const payer = await app().newUser();
    const payee = await app().newUser();
    await grant(app(), payer.userAccount, 30);

    const adminKey = newKey();
    await admin.ok('userAddCoin', {
      body: { userAccount: payee.userAccount, coin: 5, description: '第一次' },
      headers: idem(adminKey),
    });
    for (const [op, body] of [
      ['userAddCoin', { userAccount: payee.userAccount, coin: 6, description: '第一次' }],
      ['userAddCoin', { userAccount: payee.userAccount, coin: 5, description: '第二次' }],
      ['userAddCoin', { userAccount: payer.userAccount, coin: 5, description: '第一次' }],
      ['userReduceCoin', { userAccount: payee.userAccount, coin: 5, description: '第一次' }],
    ] as const) {
      const r = await admin.call(op, { body, headers: idem(adminKey) });
      expect([op, r.status, r.code]).toEqual([op, 409, 40900]);
    }

    const transferKey = newKey();
    await payer.client.ok('userTransferCoin', {
      body: { userAccount: payee.userAccount, coin: 3 },
      headers: idem(transferKey),
    });
    const other = await payer.client.call('userTransferCoin', {
      body: { userAccount: payee.userAccount, coin: 4 },
      headers: idem(transferKey),
    });
    expect([other.status, other.code]).toEqual([409, 40900]);

    expect(await balanceOf(app(), payer.id)).toBe(27);
    expect(await balanceOf(app(), payee.id)).toBe(8);
  });

  it('keys belong to their caller: two admins, or two users, may use the same key independently', async () => {
    const admin = await app().admin();
    const admin2 = (await app().newUser({ role: 'admin' })).client;
    const target = await app().newUser();
    const key = newKey();
    const body = { userAccount: target.userAccount, coin: 7, description: '同一个键' };
    expect(await admin.ok('userAddCoin', { body, headers: idem(key) })).toEqual({
      userId: target.id,
      userAccount: target.userAccount,
      coin: 7,
    });
    expect(await admin2.ok('userAddCoin', { body, headers: idem(key) })).toEqual({
      userId: target.id,
      userAccount: target.userAccount,
      coin: 14,
    });
    expect((await entriesOf(app(), target.id)).filter((e) => e.kind === 'admin_add')).toHaveLength(2);

    const a = await app().newUser();
    const b = await app().newUser();
    await grant(app(), a.userAccount, 5);
    await grant(app(), b.userAccount, 5);
    const transfer = (from: typeof a) =>
      from.client.ok('userTransferCoin', { body: { userAccount: target.userAccount, coin: 2 }, headers: idem(key) });
    const ra = await transfer(a);
    const rb = await transfer(b);
    expect(ra.reference).not.toBe(rb.reference);
    expect(await balanceOf(app(), target.id)).toBe(18);
  });
});

// The transfer's rules (refusals, limits, replays, ordering) are the table of tests/api/transfer-rules.test.ts.
describe('userTransferCoin', () => {
  it('moves coins: two entries sharing one reference, counterparties set, the payee shown with a masked name', async () => {
    const payer = await app().newUser();
    const payee = await app().newUser();
    await grant(app(), payer.userAccount, 50);

    const r = await payer.client.call('userTransferCoin', {
      body: { userAccount: payee.userAccount, coin: 20 },
      headers: idem(),
    });
    expect([r.status, r.code]).toEqual([200, 0]);
    const masked = payee.userAccount.slice(0, 1) + '*'.repeat(Math.min(payee.userAccount.length - 1, 8));
    expect(r.data).toEqual({
      payee: { userAccount: payee.userAccount, maskedName: masked },
      coin: 20,
      balance: 30,
      reference: expect.any(String),
    });
    expect(r.data.payee.maskedName).not.toBe(payee.userAccount);
    expect(await balanceOf(app(), payer.id)).toBe(30);
    expect(await balanceOf(app(), payee.id)).toBe(20);

    const pair = (await entriesOf(app())).filter((e) => e.reference === r.data.reference);
    expect(pair).toHaveLength(2);
    expect(pair.find((e) => e.kind === 'transfer_out')).toMatchObject({
      userId: payer.id,
      amount: -20,
      balanceAfter: 30,
      counterpartyId: payee.id,
      actorId: payer.id,
    });
    expect(pair.find((e) => e.kind === 'transfer_in')).toMatchObject({
      userId: payee.id,
      amount: 20,
      balanceAfter: 20,
      counterpartyId: payer.id,
      actorId: payer.id,
    });

    // Each side's statement names the other side.
    const [out] = (await payer.client.ok('coinEntries')).records;
    expect(out).toMatchObject({
      kind: 'transfer_out',
      amount: -20,
      balanceAfter: 30,
      counterpartyAccount: payee.userAccount,
      reference: r.data.reference,
      actorAccount: payer.userAccount,
    });
    const [into] = (await payee.client.ok('coinEntries')).records;
    expect(into).toMatchObject({
      kind: 'transfer_in',
      amount: 20,
      balanceAfter: 20,
      counterpartyAccount: payer.userAccount,
      reference: r.data.reference,
    });
  });

  it('refuses a coin amount that is 0, negative, fractional, a string, missing or above 100000000 (400 / 40000)', async () => {
    const payer = await app().newUser();
    const payee = await app().newUser();
    await grant(app(), payer.userAccount, 10);
    for (const coin of [0, -1, 1.5, '5', '', null, true, 100_000_001, 1e20, undefined]) {
      const body = coin === undefined ? { userAccount: payee.userAccount } : { userAccount: payee.userAccount, coin };
      const r = await payer.client.call('userTransferCoin', { body, headers: idem() });
      expect([String(coin), r.status, r.code]).toEqual([String(coin), 400, 40000]);
    }
    const extra = await payer.client.call('userTransferCoin', {
      body: { userAccount: payee.userAccount, coin: 1, note: 'x' },
      headers: idem(),
    });
    expect([extra.status, extra.code]).toEqual([400, 40000]);
    expect(await balanceOf(app(), payer.id)).toBe(10);
    expect(await balanceOf(app(), payee.id)).toBe(0);
  });

  it('answers 401 / 40100 to a visitor', async () => {
    const payee = await app().newUser();
    const r = await app()
      .client()
      .call('userTransferCoin', { body: { userAccount: payee.userAccount, coin: 1 }, headers: idem() });
    expect([r.status, r.code]).toEqual([401, 40100]);
  });
});

describe('coinEntries', () => {
  it('shows a user its own entries, newest first, page by page, and filters by kind', async () => {
    const user = await app().newUser();
    const other = await app().newUser();
    for (const coin of [1, 2, 3]) await grant(app(), user.userAccount, coin);
    await user.client.ok('userTransferCoin', { body: { userAccount: other.userAccount, coin: 4 }, headers: idem() });

    const first = await user.client.ok('coinEntries', { query: { current: 1, pageSize: 2 } });
    expect([first.total, first.current, first.pageSize]).toEqual([4, 1, 2]);
    expect(first.records.map((r: any) => [r.kind, r.amount, r.balanceAfter])).toEqual([
      ['transfer_out', -4, 2],
      ['admin_add', 3, 6],
    ]);
    const second = await user.client.ok('coinEntries', { query: { current: 2, pageSize: 2 } });
    expect(second.records.map((r: any) => [r.kind, r.amount, r.balanceAfter])).toEqual([
      ['admin_add', 2, 3],
      ['admin_add', 1, 1],
    ]);
    const ids = [...first.records, ...second.records].map((r: any) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect([...first.records, ...second.records].every((r: any) => r.userId === user.id)).toBe(true);
    expect((await user.client.ok('coinEntries', { query: { current: 3, pageSize: 2 } })).records).toEqual([]);

    const adds = await user.client.ok('coinEntries', { query: { kind: 'admin_add' } });
    expect(adds.total).toBe(3);
    expect(adds.records.map((r: any) => r.amount)).toEqual([3, 2, 1]);
    const outs = await user.client.ok('coinEntries', { query: { kind: 'transfer_out' } });
    expect(outs.records.map((r: any) => r.amount)).toEqual([-4]);
    expect((await user.client.ok('coinEntries', { query: { kind: 'transfer_in' } })).total).toBe(0);

    const badKind = await user.client.call('coinEntries', { query: { kind: 'bogus' } });
    expect([badKind.status, badKind.code]).toEqual([400, 40000]);
  });

  it("answers 403 / 40101 to a user asking for another user's entries; its own id is fine", async () => {
    const user = await app().newUser();
    const other = await app().newUser({ role: 'agent' });
    await grant(app(), other.userAccount, 5);
    const r = await user.client.call('coinEntries', { query: { userId: other.id } });
    expect([r.status, r.code]).toEqual([403, 40101]);
    const agent = await other.client.call('coinEntries', { query: { userId: user.id } });
    expect([agent.status, agent.code]).toEqual([403, 40101]);
    expect((await other.client.ok('coinEntries', { query: { userId: other.id } })).total).toBe(1);
    const visitor = await app().client().call('coinEntries');
    expect([visitor.status, visitor.code]).toEqual([401, 40100]);
  });

  it("lets an admin read anyone's entries", async () => {
    const admin = await app().admin();
    const user = await app().newUser();
    await grant(app(), user.userAccount, 9);
    const mine = await user.client.ok('coinEntries');
    const theirs = await admin.ok('coinEntries', { query: { userId: user.id } });
    expect(theirs).toEqual(mine);
    expect(theirs.records).toHaveLength(1);
  });
});

describe('coinLedgerCheck', () => {
  it('reports a user whose stored balance was changed behind the ledger', async () => {
    const admin = await app().admin();
    const user = await app().newUser();
    await grant(app(), user.userAccount, 25);
    expect((await admin.ok('coinLedgerCheck')).mismatches).toEqual([]);

    await sql`update users set coin = coin + 1 where id = ${user.id}`.execute(db());
    try {
      const check = await admin.ok('coinLedgerCheck');
      expect(check.mismatches).toEqual([
        {
          userId: user.id,
          userAccount: user.userAccount,
          balance: 26,
          sumOfEntries: 25,
          entryCount: 1,
          entriesCounted: 1,
        },
      ]);
    } finally {
      await sql`update users set coin = coin - 1 where id = ${user.id}`.execute(db());
    }
    expect((await admin.ok('coinLedgerCheck')).mismatches).toEqual([]);
  });

  it('reports a user whose stored entry count was changed behind the ledger', async () => {
    const admin = await app().admin();
    const user = await app().newUser();
    await grant(app(), user.userAccount, 7);
    await sql`update users set entry_count = entry_count + 2 where id = ${user.id}`.execute(db());
    try {
      const check = await admin.ok('coinLedgerCheck');
      expect(check.mismatches).toEqual([
        {
          userId: user.id,
          userAccount: user.userAccount,
          balance: 7,
          sumOfEntries: 7,
          entryCount: 3,
          entriesCounted: 1,
        },
      ]);
    } finally {
      await sql`update users set entry_count = entry_count - 2 where id = ${user.id}`.execute(db());
    }
    expect((await admin.ok('coinLedgerCheck')).mismatches).toEqual([]);
  });

  it('is for admins only', async () => {
    const { client } = await app().newUser();
    const r = await client.call('coinLedgerCheck');
    expect([r.status, r.code]).toEqual([403, 40101]);
  });
});

describe('append-only ledger', () => {
  it('refuses an UPDATE or a DELETE of coin_entries at the database, leaving the rows as they were', async () => {
    const user = await app().newUser();
    await grant(app(), user.userAccount, 3);
    const before = await entriesOf(app());
    expect(before.length).toBeGreaterThan(0);
    const [mine] = await entriesOf(app(), user.id);

    await expect(sql`update coin_entries set amount = 1`.execute(db())).rejects.toThrow(/append-only/);
    await expect(sql`update coin_entries set description = 'x' where id = ${mine!.id}`.execute(db())).rejects.toThrow(
      /append-only/,
    );
    await expect(
      db().updateTable('coinEntries').set({ balanceAfter: 0 }).where('id', '=', mine!.id).execute(),
    ).rejects.toThrow(/append-only/);
    await expect(sql`delete from coin_entries`.execute(db())).rejects.toThrow(/append-only/);
    await expect(sql`delete from coin_entries where id = ${mine!.id}`.execute(db())).rejects.toThrow(/append-only/);
    await expect(db().deleteFrom('coinEntries').where('userId', '=', user.id).execute()).rejects.toThrow(/append-only/);
    // The side doors: SQLite's INSERT OR REPLACE (deletes without firing delete triggers), PostgreSQL's TRUNCATE.
    if (dbKind() === 'sqlite') {
      await expect(
        sql`insert or replace into coin_entries (id, user_id, amount, balance_after, kind, reference, description, created_at)
            values (${mine!.id}, ${user.id}, 1000, 1000, 'admin_add', 'x', 'x', 0)`.execute(db()),
      ).rejects.toThrow(/append-only/);
    } else {
      await expect(sql`truncate coin_entries cascade`.execute(db())).rejects.toThrow(/append-only/);
    }

    expect(await entriesOf(app())).toEqual(before);
  });
});

describe('coinEntriesExport', () => {
  it('exports one’s own statement as CSV (BOM, header, newest first), and formulas stay inert text', async () => {
    const user = await app().newUser();
    const admin = await app().admin();
    await admin.ok('userAddCoin', {
      body: { userAccount: user.userAccount, coin: 7, description: '=HYPERLINK("http://x")' },
      headers: idem(),
    });
    await admin.ok('userReduceCoin', {
      body: { userAccount: user.userAccount, coin: 2, description: '更正, "引号"' },
      headers: idem(),
    });
    const r = await user.client.call<string>('coinEntriesExport');
    expect(r.status).toBe(200);
    expect(String(r.headers['content-type'])).toContain('text/csv');
    expect(String(r.headers['content-disposition'])).toMatch(/^attachment; filename="coin-entries-\d+\.csv"$/);
    expect(r.data.startsWith('\ufeff时间,类型,变动,变动后余额,对方账号,说明,编号,操作人\r\n')).toBe(true);
    const lines = r.data.trim().split('\r\n');
    expect(lines).toHaveLength(3);
    // The screen's words and the site's clock (TZ_SITE is Asia/Shanghai in tests), not codes and UTC.
    const [reduced, added] = (await user.client.ok('coinEntries', { query: {} })).records;
    expect(lines[1]).toBe(
      `${shanghai(reduced!.createdAt)},管理员扣积分,-2,5,,"更正, ""引号""",${reduced!.reference},admin`,
    );
    expect(lines[2]).toContain(`${shanghai(added!.createdAt)},管理员加积分,7,7,,"'=HYPERLINK(""http://x"")",`);
    expect(r.data).not.toMatch(/admin_add|admin_reduce|\d{2}:\d{2}:\d{2}\.\d{3}Z/);
  });

  it('says transfers in the words of the screen too', async () => {
    const payer = await app().newUser();
    const payee = await app().newUser();
    await grant(app(), payer.userAccount, 5);
    await payer.client.ok('userTransferCoin', { body: { userAccount: payee.userAccount, coin: 2 }, headers: idem() });
    const sent = (await payer.client.call<string>('coinEntriesExport')).data;
    const got = (await payee.client.call<string>('coinEntriesExport')).data;
    expect(sent).toContain(`,转出,-2,3,${payee.userAccount},`);
    expect(got).toContain(`,转入,2,2,${payer.userAccount},`);
    expect(sent + got).not.toMatch(/transfer_(in|out)/);
  });

  it('lets an admin export anyone’s statement, and nobody else', async () => {
    const user = await app().newUser();
    const other = await app().newUser();
    await grant(app(), user.userAccount, 3);
    const admin = await app().admin();
    expect(
      (await admin.call<string>('coinEntriesExport', { query: { userId: user.id } })).data.trim().split('\r\n'),
    ).toHaveLength(2);
    const refused = await other.client.call('coinEntriesExport', { query: { userId: user.id } });
    expect([refused.status, refused.code]).toEqual([403, 40101]);
  });
});
