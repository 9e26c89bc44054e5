import { afterEach, describe, expect, it } from 'vitest';
import { balanceOf, entriesOf, expectLedgerConsistent, grant, idem, newKey } from '../helpers/ledger.js';
import { useTestApp } from '../helpers/test-app.js';

// Real concurrency: every batch is fired at once through the same app. On PostgreSQL the pool runs the transactions
// in parallel; on SQLite they queue on the one connection, so these also prove the serial path.
const app = useTestApp();

afterEach(async () => {
  await expectLedgerConsistent(app());
});

const times = <T>(n: number, f: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)));

describe('one Idempotency-Key, many concurrent requests', () => {
  it('100 concurrent addCoin with one key add once, and all answer the same result', async () => {
    const admin = await app().admin();
    const { id, userAccount } = await app().newUser();
    const key = newKey();
    const body = { userAccount, coin: 37, description: '并发重试' };
    const results = await times(100, () => admin.call('userAddCoin', { body, headers: idem(key) }));
    for (const r of results)
      expect([r.status, r.code, r.data]).toEqual([200, 0, { userId: id, userAccount, coin: 37 }]);
    expect(await balanceOf(app(), id)).toBe(37);
    expect(await entriesOf(app(), id)).toHaveLength(1);
  });

  it('100 concurrent transfers with one key move once, and all answer the same reference and balance', async () => {
    const payer = await app().newUser();
    const payee = await app().newUser();
    await grant(app(), payer.userAccount, 50);
    const key = newKey();
    const body = { userAccount: payee.userAccount, coin: 30 };
    const results = await times(100, () => payer.client.call('userTransferCoin', { body, headers: idem(key) }));
    const first = results[0]!;
    expect([first.status, first.code]).toEqual([200, 0]);
    expect(first.data).toMatchObject({ coin: 30, balance: 20 });
    for (const r of results) expect([r.status, r.code, r.data]).toEqual([200, 0, first.data]);
    expect(await balanceOf(app(), payer.id)).toBe(20);
    expect(await balanceOf(app(), payee.id)).toBe(30);
    expect((await entriesOf(app())).filter((e) => e.reference === first.data.reference)).toHaveLength(2);
    expect(await entriesOf(app(), payee.id)).toHaveLength(1);
  });
});

describe('concurrent transfers against one balance', () => {
  it('with a balance of N, N+8 concurrent 1-coin transfers: exactly N succeed, 8 answer 积分不足', async () => {
    const N = 20;
    const payer = await app().newUser();
    const payee = await app().newUser();
    await grant(app(), payer.userAccount, N);
    const results = await times(N + 8, () =>
      payer.client.call('userTransferCoin', { body: { userAccount: payee.userAccount, coin: 1 }, headers: idem() }),
    );
    const ok = results.filter((r) => r.code === 0);
    const refused = results.filter((r) => r.code !== 0);
    expect(ok).toHaveLength(N);
    expect(refused.map((r) => [r.status, r.code, r.message])).toEqual(
      Array.from({ length: 8 }, () => [400, 40000, '积分不足']),
    );
    // Each success answers a distinct balance from N-1 down to 0.
    expect(ok.map((r) => r.data.balance).sort((a, b) => a - b)).toEqual(Array.from({ length: N }, (_, i) => i));
    expect(new Set(ok.map((r) => r.data.reference)).size).toBe(N);
    expect(await balanceOf(app(), payer.id)).toBe(0);
    expect(await balanceOf(app(), payee.id)).toBe(N);
  });

  it('concurrent admin reductions and transfers of one balance never take it below zero', async () => {
    const admin = await app().admin();
    const payer = await app().newUser();
    const payee = await app().newUser();
    await grant(app(), payer.userAccount, 30);
    const results = await times(40, (i) =>
      i % 2 === 0
        ? admin.call('userReduceCoin', {
            body: { userAccount: payer.userAccount, coin: 2, description: '并发扣减' },
            headers: idem(),
          })
        : payer.client.call('userTransferCoin', { body: { userAccount: payee.userAccount, coin: 2 }, headers: idem() }),
    );
    for (const r of results) expect([0, 40000]).toContain(r.code);
    expect(results.filter((r) => r.code === 0)).toHaveLength(15);
    expect(await balanceOf(app(), payer.id)).toBe(0);
    const moved = results.filter((r, i) => i % 2 === 1 && r.code === 0).length;
    expect(await balanceOf(app(), payee.id)).toBe(2 * moved);
  });
});

describe('transfers in both directions', () => {
  it('many concurrent A→B and B→A transfers neither deadlock nor lose coins', async () => {
    const a = await app().newUser();
    const b = await app().newUser();
    await grant(app(), a.userAccount, 1000);
    await grant(app(), b.userAccount, 1000);
    const amount = (i: number) => (i % 5) + 1;
    const results = await times(80, (i) => {
      const [from, to] = i % 2 === 0 ? [a, b] : [b, a];
      return from.client.call('userTransferCoin', {
        body: { userAccount: to.userAccount, coin: amount(i) },
        headers: idem(),
      });
    });
    // Neither side can run dry (at most 200 out of 1000), so every transfer must succeed: a deadlock or a
    // serialization failure would show as a 500 here.
    expect(results.map((r) => [r.status, r.code]).filter(([, code]) => code !== 0)).toEqual([]);
    let aOut = 0;
    let bOut = 0;
    for (let i = 0; i < 80; i++) {
      if (i % 2 === 0) aOut += amount(i);
      else bOut += amount(i);
    }
    expect(await balanceOf(app(), a.id)).toBe(1000 - aOut + bOut);
    expect(await balanceOf(app(), b.id)).toBe(1000 - bOut + aOut);
    expect((await balanceOf(app(), a.id)) + (await balanceOf(app(), b.id))).toBe(2000);
    expect((await entriesOf(app(), a.id)).filter((e) => e.kind.startsWith('transfer_'))).toHaveLength(80);
  });

  it('a ring of concurrent transfers (A→B→C→A) among three users conserves the total', async () => {
    const users = [await app().newUser(), await app().newUser(), await app().newUser()];
    for (const u of users) await grant(app(), u.userAccount, 10);
    // Small balances: some transfers may be refused for want of coins, but never with anything other than 积分不足.
    const results = await times(60, (i) => {
      const from = users[i % 3]!;
      const to = users[(i + 1) % 3]!;
      return from.client.call('userTransferCoin', { body: { userAccount: to.userAccount, coin: 3 }, headers: idem() });
    });
    for (const r of results)
      expect(r.code === 0 || (r.code === 40000 && r.message === '积分不足'), `${r.status} ${r.code} ${r.message}`).toBe(
        true,
      );
    let total = 0;
    for (const u of users) total += await balanceOf(app(), u.id);
    expect(total).toBe(30);
  });
});
