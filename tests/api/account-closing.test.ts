import { Secret, TOTP } from 'otpauth';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeDueAccounts } from '../../src/server/modules/closing/sweeper.js';
import { auditTrail } from '../helpers/audit.js';
import type { ApiClient } from '../helpers/client.js';
import { EventStreamReader } from '../helpers/event-stream.js';
import { balanceOf, entriesOf, expectLedgerConsistent, grant, idem, newKey } from '../helpers/ledger.js';
import { addPlatform, startService } from '../helpers/services.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';
import { PASSWORD, useTestApp, type TestApp } from '../helpers/test-app.js';

// 注销 (issue 35): a user closes its own account. The request ends every session and stream at once and pauses the
// services; signing in within 7 days cancels it; after them the account is closed for good: personal data erased, the
// name masked wherever it is shown (the counterparties' entries too), orders and ledger kept and still balanced.

const START = Date.UTC(2026, 10, 27, 2, 0, 10);
const DAY = 24 * 60 * 60 * 1000;
const ORIGIN = 'http://localhost:8080';

const app = useTestApp({}, { startAt: START });
let base = '';
const readers: EventStreamReader[] = [];

beforeAll(async () => {
  base = await app().built.fastify.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await Promise.all(readers.map((r) => r.close()));
});
afterEach(async () => {
  await expectLedgerConsistent(app());
});

const db = () => app().built.context.db;
const close = (c: ApiClient, body: { password: string; code?: string } = { password: PASSWORD }) =>
  c.call('userCloseAccount', { body });
const sweep = () => closeDueAccounts(app().built.context);
const signIn = (userAccount: string) =>
  app()
    .client()
    .call('userLogin', { body: { userAccount, userPassword: PASSWORD } });
/** Moves the clock a day at a time, the admin's session sliding along as an admin's in daily use does. */
async function passDays(days: number, ...others: ApiClient[]) {
  for (let d = 0; d < days; d++) {
    app().clock.advance(DAY);
    for (const c of [await app().admin(), ...others]) await c.ok('userGetLogin');
  }
}
const adminView = async (id: number) => (await app().admin()).ok('userGet', { query: { id } });

async function transfer(from: ApiClient, to: string, coin: number) {
  await from.ok('userTransferCoin', { body: { userAccount: to, coin }, headers: idem(newKey()) });
}

async function openStream(c: ApiClient): Promise<EventStreamReader> {
  const { reader, opened } = await EventStreamReader.open(base, c.cookie);
  expect(opened.status).toBe(200);
  readers.push(reader);
  await reader.next((d) => d.kind === 'ready');
  return reader;
}

describe('asking to close the account', () => {
  it('needs the password, refuses admins, and asks a two-factor user for a code', async () => {
    const user = await app().newUser();
    const wrong = await close(user.client, { password: 'not-the-password-1' });
    expect([wrong.status, wrong.code, wrong.message]).toEqual([400, 40000, '密码错误']);

    // An admin cannot: the site would lose its operator by a form (x-roles: user, agent).
    const admin = await app().newUser({ role: 'admin' });
    const refused = await close(admin.client);
    expect(refused.status).toBe(403);

    const guarded = await app().newUser();
    const { key } = await guarded.client.ok('twoFactorSetup');
    const totp = new TOTP({ secret: Secret.fromBase32(key), digits: 6, period: 30, algorithm: 'SHA1' });
    await guarded.client.ok('twoFactorEnable', { body: { code: totp.generate({ timestamp: app().clock.now() }) } });
    app().clock.advance(30_000);
    const noCode = await close(guarded.client);
    expect([noCode.status, noCode.message]).toEqual([400, '你开启了两步验证，请输入验证器上的 6 位数字或一个恢复码']);
    const badCode = await close(guarded.client, { password: PASSWORD, code: '000000' });
    expect(badCode.message).toBe('验证码错误');
    const ok = await close(guarded.client, {
      password: PASSWORD,
      code: totp.generate({ timestamp: app().clock.now() }),
    });
    expect(ok.code).toBe(0);
    // Nothing of the account is closed yet: only the request stands.
    expect(await adminView(user.id)).toMatchObject({ closingAt: null, closedAt: null });
    expect(await adminView(guarded.id)).toMatchObject({ closingAt: app().clock.now(), closedAt: null });
  });

  it('ends every session and stream at once, pauses the services, and answers when it takes effect', async () => {
    const user = await app().newUser();
    await grant(app(), user.userAccount, 500);
    const platformId = await addPlatform(app(), { price: 1, billingUnit: 'per_run' });
    await startService(user.client, platformId);
    const phone = app().client();
    await phone.ok('userLogin', { body: { userAccount: user.userAccount, userPassword: PASSWORD } });
    const stream = await openStream(phone);

    const answer = await user.client.ok('userCloseAccount', { body: { password: PASSWORD } });
    expect(answer).toEqual({ closesAt: app().clock.now() + 7 * DAY, pausedServices: 1 });

    const last = await stream.next((d) => d.kind === 'signedOut', 2000);
    expect(last.data.message).toBe('账号已申请注销，7 天内重新登录即可撤销');
    for (const c of [user.client, phone]) {
      const after = await c.call('userGetLogin');
      expect([after.status, after.code, after.message]).toEqual([401, 40001, '账号已申请注销，7 天内重新登录即可撤销']);
    }
    const services = await db().selectFrom('services').select('state').where('userId', '=', user.id).execute();
    expect(services.map((s) => s.state)).toEqual(['paused']);
    expect((await auditTrail(app(), 'user', user.id)).map((a) => a.action)).toContain('user.closing');
  });
});

describe('the cooling-off', () => {
  it('is cancelled by signing in: the account, its balance and its name stay, and the inbox says so', async () => {
    const user = await app().newUser();
    await grant(app(), user.userAccount, 80);
    await close(user.client);
    await passDays(6);

    const again = await signIn(user.userAccount);
    expect(again.code).toBe(0);
    expect(await adminView(user.id)).toMatchObject({ userAccount: user.userAccount, closingAt: null, closedAt: null });
    const titles = await db().selectFrom('notices').select('title').where('userId', '=', user.id).execute();
    expect(titles.map((n) => n.title)).toContain('注销申请已撤销');

    await passDays(2);
    await sweep();
    expect(await adminView(user.id)).toMatchObject({ userAccount: user.userAccount, closedAt: null });
    expect(await balanceOf(app(), user.id)).toBe(80);
  });
});

describe('closing for good', () => {
  it('erases the personal data, masks the name everywhere, and leaves orders and the ledger as they were', async () => {
    const t: TestApp = app();
    const agent = await t.newUser({ role: 'agent' });
    const { invitationCode } = await agent.client.ok('userGetLogin');
    const invitee = await t.newUser({ invitationCode });
    const friend = await t.newUser();
    await grant(t, agent.userAccount, 300);
    await grant(t, friend.userAccount, 100);
    await transfer(agent.client, friend.userAccount, 40);
    await transfer(friend.client, agent.userAccount, 15);
    // A bound e-mail, a passkey and the browser it signed in from: all of them go with the account.
    await db().updateTable('users').set({ email: 'agent@example.com' }).where('id', '=', agent.id).execute();
    const authenticator = new SoftAuthenticator(ORIGIN);
    const options = await agent.client.ok('passkeyRegistrationOptions');
    await agent.client.ok('passkeyAdd', { body: { name: '手机', credential: authenticator.register(options) } });
    const amountsBefore = (await entriesOf(t)).map((e) => [e.id, e.userId, e.amount, e.balanceAfter, e.reference]);

    await close(agent.client);
    await passDays(6, friend.client);
    t.clock.advance(DAY - 1000);
    expect(await sweep()).toBe(0);
    t.clock.advance(1000);
    expect(await sweep()).toBe(1);
    expect(await sweep()).toBe(0);

    const masked = `已注销#${agent.id}`;
    expect(await adminView(agent.id)).toMatchObject({
      userAccount: masked,
      userName: '已注销用户',
      email: null,
      twoFactor: false,
      passkeys: 0,
      closedAt: t.clock.now(),
      coin: 275,
    });
    // The closed account is listed for the admin, and found by its masked name.
    const listed = await (await t.admin()).ok('userListPage', { query: { current: 1, pageSize: 5, id: agent.id } });
    expect(listed.records.map((u: { userAccount: string }) => u.userAccount)).toEqual([masked]);
    for (const table of ['sessions', 'userBrowsers', 'passkeys'] as const) {
      const left = await db().selectFrom(table).select('userId').where('userId', '=', agent.id).execute();
      expect(left, table).toEqual([]);
    }

    // The friend's statement names the masked account; the ledger is as it was (append-only), still balanced.
    const statement = await friend.client.ok('coinEntries', { query: { current: 1, pageSize: 20 } });
    const words = (statement.records as { description: string; counterpartyAccount: string | null }[]).map(
      (e) => `${e.description}|${e.counterpartyAccount}`,
    );
    expect(words).toContain(`来自 ${masked}|${masked}`);
    expect(words).toContain(`转给 ${masked}|${masked}`);
    expect(words.join()).not.toContain(agent.userAccount);
    expect((await entriesOf(t)).map((e) => [e.id, e.userId, e.amount, e.balanceAfter, e.reference])).toEqual(
      amountsBefore,
    );

    // The old name signs nothing in; nobody can pay the masked one; admin actions are refused with why.
    expect((await signIn(agent.userAccount)).message).toBe('账号或密码错误');
    const pay = await friend.client.call('userTransferCoin', {
      body: { userAccount: masked, coin: 1 },
      headers: idem(newKey()),
    });
    expect(pay.code).not.toBe(0);
    const ban = await (await t.admin()).call('userBan', { query: { id: agent.id } });
    expect([ban.code, ban.message]).toEqual([40000, '该账号已注销，不能再修改']);

    // The invitee keeps its own account.
    expect((await signIn(invitee.userAccount)).code).toBe(0);
    expect((await auditTrail(t, 'user', agent.id)).map((a) => a.action)).toContain('user.closed');
  });

  it('closes an account once when two processes sweep at the same moment', async () => {
    const user = await app().newUser();
    await close(user.client);
    await passDays(7);
    const [a, b] = await Promise.all([sweep(), sweep()]);
    expect(a + b).toBe(1);
    const closed = (await auditTrail(app(), 'user', user.id)).filter((x) => x.action === 'user.closed');
    expect(closed).toHaveLength(1);
  });
});
