import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ApiClient, type CallResult } from '../helpers/client.js';
import { balanceOf, entriesOf, expectLedgerConsistent, grant, idem, newKey } from '../helpers/ledger.js';
import { inspect } from '../helpers/server-process.js';
import { PASSWORD, uniqueAccount, useTestApp, type TestApp } from '../helpers/test-app.js';

// THE rules of a user's transfer, written once as tables of cases. The ledger has two implementations of them:
// SQLite's TypeScript (src/server/modules/coins/ledger-sqlite.ts) and PostgreSQL's plpgsql `transfer_coins` /
// `move_coins` (ledger-postgres.ts, migrations 0011 and 0016). This is an API suite, so it runs once per database:
// each implementation must answer every case the same way. Change a rule here first, then in both implementations.

const app = useTestApp();

afterEach(async () => {
  await expectLedgerConsistent(app());
});

type User = Awaited<ReturnType<TestApp['newUser']>>;

/** Whom the payer names: a live user (as registered or in upper case), nobody, a banned, unbanned or deleted user, itself. */
type Payee = 'other' | 'OTHER' | 'unknown' | 'banned' | 'unbanned' | 'deleted' | 'self' | 'SELF';

type Answer = 'moved' | readonly [status: number, code: number, message: string];

interface RuleCase {
  rule: string;
  payerCoins: number;
  payee: Payee;
  coin: number;
  /** The site's per-transfer cap during the case (site_information.amount; 0: no cap). */
  cap?: number;
  answer: Answer;
}

const FUNDS = [400, 40000, '积分不足'] as const;
const NO_PAYEE = [404, 40400, '收款账号不存在或不可用'] as const;
const SELF = [400, 40000, '不能转给自己'] as const;
const capOf = (cap: number) => [400, 40000, `单笔最多转 ${cap} 积分`] as const;

const RULES: RuleCase[] = [
  // Limits: the balance.
  { rule: 'a transfer within the balance moves', payerCoins: 50, payee: 'other', coin: 20, answer: 'moved' },
  { rule: 'the whole balance can go', payerCoins: 10, payee: 'other', coin: 10, answer: 'moved' },
  { rule: 'more than the balance is refused', payerCoins: 10, payee: 'other', coin: 11, answer: FUNDS },
  { rule: 'an empty balance is refused', payerCoins: 0, payee: 'other', coin: 1, answer: FUNDS },
  // Refusals: who may be paid.
  { rule: 'the payee is found whatever its letter case', payerCoins: 5, payee: 'OTHER', coin: 5, answer: 'moved' },
  { rule: 'an unknown payee is refused', payerCoins: 10, payee: 'unknown', coin: 1, answer: NO_PAYEE },
  { rule: 'a banned payee is refused', payerCoins: 10, payee: 'banned', coin: 1, answer: NO_PAYEE },
  { rule: 'an unbanned payee receives again', payerCoins: 10, payee: 'unbanned', coin: 1, answer: 'moved' },
  { rule: 'a deleted payee is refused', payerCoins: 10, payee: 'deleted', coin: 1, answer: NO_PAYEE },
  { rule: 'oneself is refused', payerCoins: 10, payee: 'self', coin: 1, answer: SELF },
  { rule: 'oneself in another letter case is refused', payerCoins: 10, payee: 'SELF', coin: 1, answer: SELF },
  // Limits: the site's per-transfer cap.
  {
    rule: 'above the cap is refused, naming it',
    payerCoins: 100,
    payee: 'other',
    coin: 11,
    cap: 10,
    answer: capOf(10),
  },
  { rule: 'at the cap moves', payerCoins: 100, payee: 'other', coin: 10, cap: 10, answer: 'moved' },
  { rule: 'a cap of 0 is no cap', payerCoins: 1000, payee: 'other', coin: 1000, cap: 0, answer: 'moved' },
  // Ordering: which refusal answers when several apply (payee, then oneself, then the cap, then the balance).
  { rule: 'an unknown payee before the balance', payerCoins: 0, payee: 'unknown', coin: 5, answer: NO_PAYEE },
  { rule: 'oneself before the cap', payerCoins: 100, payee: 'self', coin: 11, cap: 10, answer: SELF },
  { rule: 'the cap before the balance', payerCoins: 0, payee: 'other', coin: 11, cap: 10, answer: capOf(10) },
];

const setCap = async (cap: number) =>
  (await app().admin()).ok('basicInformationUpdate', { body: { id: 1, amount: cap } });

/** The user a case's payer names, and that user's id when there is one. */
async function payeeFor(kind: Payee, payer: User): Promise<{ account: string; user?: User }> {
  const admin = await app().admin();
  if (kind === 'unknown') return { account: uniqueAccount('nobody') };
  if (kind === 'self') return { account: payer.userAccount };
  if (kind === 'SELF') return { account: payer.userAccount.toUpperCase() };
  const user = await app().newUser();
  if (kind === 'banned' || kind === 'unbanned') await admin.ok('userBan', { query: { id: user.id } });
  if (kind === 'unbanned') await admin.ok('userUnBan', { query: { id: user.id } });
  if (kind === 'deleted') await admin.ok('userDelete', { body: { id: user.id } });
  return { account: kind === 'OTHER' ? user.userAccount.toUpperCase() : user.userAccount, user };
}

const idempotencyKeysOf = (userId: number) =>
  app().built.context.db.selectFrom('idempotencyKeys').select('key').where('actorId', '=', userId).execute();

const receivedNotices = (userId: number) =>
  app()
    .built.context.db.selectFrom('notices')
    .select(['title', 'body'])
    .where('userId', '=', userId)
    .where('kind', '=', 'coins_received')
    .execute();

const masked = (name: string) => name.slice(0, 1) + '*'.repeat(Math.min(name.length - 1, 8));

describe('transfer rules, case by case', () => {
  afterEach(async () => {
    await setCap(0);
  });
  for (const c of RULES) {
    it(c.rule, async () => {
      await setCap(c.cap ?? 0);
      const payer = await app().newUser();
      if (c.payerCoins > 0) await grant(app(), payer.userAccount, c.payerCoins);
      const { account, user: payee } = await payeeFor(c.payee, payer);
      const r = await payer.client.call('userTransferCoin', {
        body: { userAccount: account, coin: c.coin },
        headers: idem(),
      });

      if (c.answer === 'moved') {
        expect([r.status, r.code]).toEqual([200, 0]);
        expect(r.data).toEqual({
          payee: { userAccount: payee!.userAccount, maskedName: masked(payee!.userAccount) },
          coin: c.coin,
          balance: c.payerCoins - c.coin,
          reference: expect.any(String),
        });
        expect(await balanceOf(app(), payer.id)).toBe(c.payerCoins - c.coin);
        expect(await balanceOf(app(), payee!.id)).toBe(c.coin);
        const pair = (await entriesOf(app())).filter((e) => e.reference === r.data.reference);
        expect(pair.map((e) => [e.kind, e.userId, e.amount, e.counterpartyId, e.actorId]).sort()).toEqual(
          [
            ['transfer_in', payee!.id, c.coin, payer.id, payer.id],
            ['transfer_out', payer.id, -c.coin, payee!.id, payer.id],
          ].sort(),
        );
        expect(await receivedNotices(payee!.id)).toEqual([
          { title: '收到转账', body: `${payer.userAccount} 向你转入 ${c.coin} 积分。` },
        ]);
        return;
      }
      expect([r.status, r.code, r.message]).toEqual([...c.answer]);
      // A refusal moves nothing, tells nobody and keeps no key (the request may be retried under it).
      expect(await balanceOf(app(), payer.id)).toBe(c.payerCoins);
      expect((await entriesOf(app(), payer.id)).map((e) => e.kind)).toEqual(c.payerCoins > 0 ? ['admin_add'] : []);
      if (payee) {
        expect(await entriesOf(app(), payee.id)).toEqual([]);
        expect(await receivedNotices(payee.id)).toEqual([]);
      }
      expect(await idempotencyKeysOf(payer.id)).toEqual([]);
    });
  }
});

interface ReplayCase {
  rule: string;
  payerCoins: number;
  first: number;
  /** What happens between the first request and its retry under the same key. */
  between?: (payer: User, payee: User) => Promise<unknown>;
  retry: number;
  /** 'first': the retry answers the first result and moves nothing more. */
  answer: 'first' | 'moved' | readonly [status: number, code: number, message: string];
  /** The payer's balance at the end. */
  balance: number;
}

const spendAll = async (payer: User, payee: User) =>
  payer.client.ok('userTransferCoin', { body: { userAccount: payee.userAccount, coin: 5 }, headers: idem() });

const REPLAYS: ReplayCase[] = [
  {
    rule: 'the same key and body answers the first result and moves once',
    payerCoins: 10,
    first: 4,
    retry: 4,
    answer: 'first',
    balance: 6,
  },
  {
    rule: 'a retry after the payer ran dry still answers the first result',
    payerCoins: 10,
    first: 5,
    between: spendAll,
    retry: 5,
    answer: 'first',
    balance: 0,
  },
  {
    rule: 'the same key with another amount answers 409 / 40900',
    payerCoins: 10,
    first: 2,
    retry: 3,
    answer: [409, 40900, '这次提交与之前的一次重复了，请刷新页面后重新操作'],
    balance: 8,
  },
  {
    rule: 'a refused attempt keeps no key: once the coins are there, the same key moves them',
    payerCoins: 0,
    first: 5,
    between: (payer) => grant(app(), payer.userAccount, 5),
    retry: 5,
    answer: 'moved',
    balance: 0,
  },
];

describe('idempotent replays, case by case', () => {
  for (const c of REPLAYS) {
    it(c.rule, async () => {
      const payer = await app().newUser();
      const payee = await app().newUser();
      if (c.payerCoins > 0) await grant(app(), payer.userAccount, c.payerCoins);
      const key = newKey();
      const send = (coin: number) =>
        payer.client.call('userTransferCoin', { body: { userAccount: payee.userAccount, coin }, headers: idem(key) });
      const first = await send(c.first);
      await c.between?.(payer, payee);
      const retry = await send(c.retry);
      if (c.answer === 'first') expect([retry.status, retry.code, retry.data]).toEqual([200, 0, first.data]);
      else if (c.answer === 'moved') expect([retry.status, retry.code, retry.data.coin]).toEqual([200, 0, c.retry]);
      else expect([retry.status, retry.code, retry.message]).toEqual([...c.answer]);
      expect(await balanceOf(app(), payer.id)).toBe(c.balance);
    });
  }
});

const transfer = (client: ApiClient, body: object, key = newKey()): Promise<CallResult> =>
  client.call('userTransferCoin', { body, headers: idem(key) });

describe('transfers sent together', () => {
  it('one refusal of each kind fails alone; the others move their coins', async () => {
    // The payee first: its id is lower, so a payer's transfer credits it before debiting the payer. A refused debit
    // must take that credit back with it.
    const payee = await app().newUser();
    const payers = await Promise.all(Array.from({ length: 6 }, () => app().newUser()));
    for (const p of payers) await grant(app(), p.userAccount, 10);
    const [a, b, c, d, e, f] = payers as [User, User, User, User, User, User];
    const sharedKey = newKey();
    const answers = await Promise.all([
      transfer(a.client, { userAccount: payee.userAccount, coin: 4 }),
      transfer(b.client, { userAccount: payee.userAccount, coin: 11 }),
      transfer(c.client, { userAccount: 'nobody_here', coin: 1 }),
      transfer(d.client, { userAccount: payee.userAccount, coin: 2 }, sharedKey),
      transfer(d.client, { userAccount: payee.userAccount, coin: 3 }, sharedKey),
      transfer(e.client, { userAccount: payee.userAccount, coin: 10 }),
      transfer(f.client, { userAccount: f.userAccount, coin: 1 }),
    ]);
    const codes = answers.map((r) => [r.status, r.code]);
    expect([codes[0], codes[1], codes[2], codes[5], codes[6]]).toEqual([
      [200, 0],
      [400, 40000],
      [404, 40400],
      [200, 0],
      [400, 40000],
    ]);
    // Of the two requests under one key exactly one moves coins; the other is told the key is taken (40900).
    const keyed = [answers[3], answers[4]];
    expect(keyed.map((r) => r.code).sort()).toEqual([0, 40900]);
    const keyedCoin = (keyed.find((r) => r.code === 0)!.data as { coin: number }).coin;
    expect(await Promise.all(payers.map((p) => balanceOf(app(), p.id)))).toEqual([6, 10, 10, 10 - keyedCoin, 0, 10]);
    expect(await balanceOf(app(), payee.id)).toBe(4 + keyedCoin + 10);
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
    expect(await entriesOf(app(), payee.id)).toHaveLength(1);
  });
});

describe('two servers on one database', () => {
  let other: TestApp | undefined;
  afterAll(async () => {
    await other?.built.fastify.close();
  });
  const second = async () => (other ??= await inspect(app().db));

  it('crossing transfers between the same users, sent through both at once, neither deadlock nor lose a coin', async () => {
    const there = await second();
    const users = await Promise.all(Array.from({ length: 6 }, () => app().newUser()));
    for (const u of users) await grant(app(), u.userAccount, 1000);
    const clientsThere = await Promise.all(
      users.map(async (u) => {
        const client = new ApiClient(there.built.fastify);
        await client.ok('userLogin', { body: { userAccount: u.userAccount, userPassword: PASSWORD } });
        return client;
      }),
    );
    const expected = new Map(users.map((u) => [u.id, 1000]));
    const sent: Promise<CallResult>[] = [];
    for (let round = 0; round < 4; round++)
      users.forEach((payer, i) => {
        // Here each pays the next users; there the previous ones: the same pairs, locked in opposite orders.
        for (const [client, to] of [
          [payer.client, users[(i + 1 + round) % users.length]!],
          [clientsThere[i]!, users[(i + users.length - 1 - round) % users.length]!],
        ] as const) {
          if (to.id === payer.id) continue;
          const coin = 1 + ((i + round) % 3);
          expected.set(payer.id, expected.get(payer.id)! - coin);
          expected.set(to.id, expected.get(to.id)! + coin);
          sent.push(transfer(client, { userAccount: to.userAccount, coin }));
        }
      });
    expect((await Promise.all(sent)).map((r) => r.code)).toEqual(sent.map(() => 0));
    for (const u of users) expect(await balanceOf(app(), u.id)).toBe(expected.get(u.id));
  });

  it('a cap changed by the other server applies to the very next transfer here', async () => {
    const there = await second();
    const payer = await app().newUser();
    const payee = await app().newUser();
    await grant(app(), payer.userAccount, 100);
    expect((await transfer(payer.client, { userAccount: payee.userAccount, coin: 30 })).code).toBe(0);
    await (await there.admin()).ok('basicInformationUpdate', { body: { id: 1, amount: 20 } });
    const over = await transfer(payer.client, { userAccount: payee.userAccount, coin: 21 });
    expect([over.status, over.code, over.message]).toEqual([...capOf(20)]);
    await (await there.admin()).ok('basicInformationUpdate', { body: { id: 1, amount: 0 } });
    expect((await transfer(payer.client, { userAccount: payee.userAccount, coin: 21 })).code).toBe(0);
    expect(await balanceOf(app(), payer.id)).toBe(49);
  });
});
