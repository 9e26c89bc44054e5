import { afterEach, describe, expect, it } from 'vitest';
import { sqliteDriverOf } from '../../src/server/db/sqlite-driver.js';
import { postgresBatcherOf } from '../../src/server/modules/coins/ledger-postgres.js';
import { inspect } from '../helpers/server-process.js';
import { balanceOf, entriesOf, expectLedgerConsistent, grant, idem, newKey } from '../helpers/ledger.js';
import { ApiClient } from '../helpers/client.js';
import { PASSWORD, useTestApp, type TestApp } from '../helpers/test-app.js';

// Transfers that arrive together share one transaction (group commit), each in its own savepoint or subtransaction: a
// refusal must undo only its own writes and leave the others to commit. On SQLite db/sqlite-driver.ts groups them; on
// PostgreSQL modules/coins/transfer-batcher-postgres.ts sends them as one transfer_coins_batch call (migration 0015).
// The answers and the ledger must be those of one transfer at a time.
const app = useTestApp();

afterEach(async () => {
  await expectLedgerConsistent(app());
});

/** Committed grouped transactions and the transfers they carried so far. */
const groupCommitsOf = (built: TestApp['built']) => ({
  ...(sqliteDriverOf(built.context.db)?.groupCommits ??
    postgresBatcherOf(built.context.db)?.groupCommits ?? { transactions: 0, works: 0 }),
});
const groupCommits = () => groupCommitsOf(app().built);

type User = Awaited<ReturnType<TestApp['newUser']>>;

const transfer = (client: User['client'], body: object, key = newKey()) =>
  client.call('userTransferCoin', { body, headers: idem(key) });

describe('transfers sent together', () => {
  it('one refusal of each kind fails alone; the others move their coins and the ledger adds up', async () => {
    // The payee first: its id is lower, so a payer's transfer credits it before debiting the payer. A refused debit
    // must take that credit back with it (the savepoint), or the payee would keep coins nobody paid.
    const payee = await app().newUser();
    const payers = await Promise.all(Array.from({ length: 6 }, () => app().newUser()));
    for (const p of payers) await grant(app(), p.userAccount, 10);
    const [a, b, c, d, e, f] = payers as [User, User, User, User, User, User];
    const sharedKey = newKey();
    const before = groupCommits();

    const answers = await Promise.all([
      transfer(a.client, { userAccount: payee.userAccount, coin: 4 }),
      transfer(b.client, { userAccount: payee.userAccount, coin: 11 }), // 积分不足
      transfer(c.client, { userAccount: 'nobody_here', coin: 1 }), // unknown payee
      transfer(d.client, { userAccount: payee.userAccount, coin: 2 }, sharedKey),
      transfer(d.client, { userAccount: payee.userAccount, coin: 3 }, sharedKey), // same key, another request
      transfer(e.client, { userAccount: payee.userAccount, coin: 10 }),
      transfer(f.client, { userAccount: f.userAccount, coin: 1 }), // to oneself
    ]);

    const summary = answers.map((r) => [r.status, r.code]);
    expect(summary[0]).toEqual([200, 0]);
    expect([answers[1].status, answers[1].code, answers[1].message]).toEqual([400, 40000, '积分不足']);
    expect(summary[2]).toEqual([404, 40400]);
    // Of the two requests under one key exactly one moves coins; the other is told the key is taken (40900).
    const keyed = [answers[3], answers[4]];
    expect(keyed.map((r) => r.code).sort()).toEqual([0, 40900]);
    const keyedOk = keyed.find((r) => r.code === 0)!;
    expect(summary[5]).toEqual([200, 0]);
    expect(summary[6]).toEqual([400, 40000]);

    expect(await balanceOf(app(), a.id)).toBe(6);
    expect(await balanceOf(app(), b.id)).toBe(10);
    expect(await balanceOf(app(), c.id)).toBe(10);
    expect(await balanceOf(app(), d.id)).toBe(10 - (keyedOk.data as { coin: number }).coin);
    expect(await balanceOf(app(), e.id)).toBe(0);
    expect(await balanceOf(app(), payee.id)).toBe(4 + (keyedOk.data as { coin: number }).coin + 10);
    expect(await entriesOf(app(), payee.id)).toHaveLength(3);
    expect(await entriesOf(app(), b.id)).toHaveLength(1); // the grant only

    // Seven requests, fewer commits: they were grouped (each success in one of them, nothing committed per refusal).
    const after = groupCommits();
    expect(after.works - before.works).toBe(7);
    expect(after.transactions - before.transactions).toBeLessThan(7);
  });

  it('the same request repeated under one key, all at once, moves once and every copy answers the first result', async () => {
    const payee = await app().newUser();
    const payer = await app().newUser();
    await grant(app(), payer.userAccount, 100);
    const key = newKey();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => transfer(payer.client, { userAccount: payee.userAccount, coin: 7 }, key)),
    );
    for (const r of answers) expect([r.status, r.code, r.data]).toEqual([200, 0, answers[0]!.data]);
    expect(answers[0]!.data).toMatchObject({ coin: 7, balance: 93 });
    expect(await balanceOf(app(), payer.id)).toBe(93);
    expect(await entriesOf(app(), payee.id)).toHaveLength(1);
  });

  it('batches of two servers crossing the same payers and payees neither deadlock nor lose a coin', async () => {
    // A second server on the same database: its own pool, its own batches, in flight beside this one's. Each batch
    // pays in both directions between the same users, the pairs in opposite orders in the two servers: locked as
    // each transfer came, two such batches would each hold a row the other waits for.
    const other = await inspect(app().db);
    try {
      const users = await Promise.all(Array.from({ length: 8 }, () => app().newUser()));
      for (const u of users) await grant(app(), u.userAccount, 1000);
      const otherClients = await Promise.all(
        users.map(async (u) => {
          const client = new ApiClient(other.built.fastify);
          await client.ok('userLogin', { body: { userAccount: u.userAccount, userPassword: PASSWORD } });
          return client;
        }),
      );
      const expected = new Map(users.map((u) => [u.id, 1000]));
      const before = [groupCommitsOf(app().built), groupCommitsOf(other.built)];
      for (let round = 0; round < 6; round++) {
        const sent: { from: number; to: number; coin: number; answer: Promise<{ code: number }> }[] = [];
        users.forEach((payer, i) => {
          for (const step of [1, 3, 5]) {
            const here = users[(i + step) % users.length]!;
            const there = users[(i + users.length - step) % users.length]!;
            const coin = 1 + ((i + step + round) % 4);
            sent.push({
              from: i,
              to: users.indexOf(here),
              coin,
              answer: transfer(payer.client, { userAccount: here.userAccount, coin }),
            });
            const client = otherClients[i]!;
            sent.push({
              from: i,
              to: users.indexOf(there),
              coin,
              answer: client.call('userTransferCoin', {
                body: { userAccount: there.userAccount, coin },
                headers: idem(newKey()),
              }),
            });
          }
        });
        const answers = await Promise.all(sent.map((s) => s.answer));
        expect(answers.map((a) => a.code)).toEqual(sent.map(() => 0));
        for (const s of sent) {
          const payer = users[s.from]!.id;
          const payee = users[s.to]!.id;
          expected.set(payer, expected.get(payer)! - s.coin);
          expected.set(payee, expected.get(payee)! + s.coin);
        }
      }
      for (const u of users) expect(await balanceOf(app(), u.id)).toBe(expected.get(u.id));
      const after = [groupCommitsOf(app().built), groupCommitsOf(other.built)];
      // Both servers grouped: fewer commits than transfers on each side.
      for (const [i, a] of after.entries()) {
        expect(a.works - before[i]!.works).toBe(6 * 24);
        expect(a.transactions - before[i]!.transactions).toBeLessThan(6 * 24);
      }
    } finally {
      await other.built.fastify.close();
    }
  });

  it('a retry of a transfer that succeeded answers its first result even when the payer has run dry since', async () => {
    const payee = await app().newUser();
    const payer = await app().newUser();
    await grant(app(), payer.userAccount, 5);
    const key = newKey();
    const first = await transfer(payer.client, { userAccount: payee.userAccount, coin: 5 }, key);
    expect([first.status, first.code]).toEqual([200, 0]);
    const retry = await transfer(payer.client, { userAccount: payee.userAccount, coin: 5 }, key);
    expect([retry.status, retry.code, retry.data]).toEqual([200, 0, first.data]);
    expect(await balanceOf(app(), payee.id)).toBe(5);
  });
});

describe('the per-transfer cap', () => {
  it('an admin lowering it refuses the very next transfer above it', async () => {
    const admin = await app().admin();
    const payer = await app().newUser();
    const payee = await app().newUser();
    await grant(app(), payer.userAccount, 100);
    try {
      // A transfer first, so whatever the server keeps of the cap is warm.
      expect((await transfer(payer.client, { userAccount: payee.userAccount, coin: 30 })).code).toBe(0);
      await admin.ok('basicInformationUpdate', { body: { id: 1, amount: 20 } });
      const over = await transfer(payer.client, { userAccount: payee.userAccount, coin: 21 });
      expect([over.status, over.code, over.message]).toEqual([400, 40000, '单笔最多转 20 积分']);
      expect(await balanceOf(app(), payer.id)).toBe(70);
    } finally {
      await admin.ok('basicInformationUpdate', { body: { id: 1, amount: 0 } });
    }
  });

  it('lowered by another server on the same database, it refuses the next transfer above it here too', async () => {
    const payer = await app().newUser();
    const payee = await app().newUser();
    await grant(app(), payer.userAccount, 100);
    // A second server process's view of the database: its own connections (and, on SQLite, its own cache).
    const other = await inspect(app().db);
    try {
      expect((await transfer(payer.client, { userAccount: payee.userAccount, coin: 30 })).code).toBe(0);
      await (await other.admin()).ok('basicInformationUpdate', { body: { id: 1, amount: 20 } });
      const over = await transfer(payer.client, { userAccount: payee.userAccount, coin: 21 });
      expect([over.status, over.code, over.message]).toEqual([400, 40000, '单笔最多转 20 积分']);
      // And back up again there: the next transfer above the old cap goes through here.
      await (await other.admin()).ok('basicInformationUpdate', { body: { id: 1, amount: 0 } });
      expect((await transfer(payer.client, { userAccount: payee.userAccount, coin: 21 })).code).toBe(0);
      expect(await balanceOf(app(), payer.id)).toBe(49);
    } finally {
      await (await other.admin()).ok('basicInformationUpdate', { body: { id: 1, amount: 0 } });
      await other.built.fastify.close();
    }
  });
});
