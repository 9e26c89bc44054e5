import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditTrail } from '../helpers/audit.js';
import type { ApiClient } from '../helpers/client.js';
import { dbKind } from '../helpers/database.js';
import { EventStreamReader } from '../helpers/event-stream.js';
import { expectLedgerConsistent, grant, idem } from '../helpers/ledger.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';
import { PASSWORD, useTestApp, type TestApp } from '../helpers/test-app.js';

// What a reset, a ban or a logout takes away is gone at once (issue 33): a session's rights follow the factors that
// still exist; an admin's reset covers every second factor and ends every session; a change the user makes ends its
// other sessions; a login challenge completes one sign-in; and every end of a session closes its event streams, their
// last event saying why. Under ADMIN_2FA=required, on the test's clock, with a software authenticator for passkeys.

const ORIGIN = 'http://localhost:8080';
const START = Date.UTC(2026, 10, 27, 2, 0, 10);
const STEP = 30_000;

const app = useTestApp({ admin2fa: 'required' }, { startAt: START });
let base = '';
const readers: EventStreamReader[] = [];

beforeAll(async () => {
  base = await app().built.fastify.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await Promise.all(readers.map((r) => r.close()));
});

const totpOf = (key: string) => new TOTP({ secret: Secret.fromBase32(key), digits: 6, period: 30, algorithm: 'SHA1' });

/** Turns two-factor sign-in on for the signed-in client; answers its key. Moves past the step the enrolment took. */
async function enrol(t: TestApp, c: ApiClient): Promise<string> {
  const { key } = await c.ok('twoFactorSetup');
  await c.ok('twoFactorEnable', { body: { code: totpOf(key).generate({ timestamp: t.clock.now() }) } });
  t.clock.advance(STEP);
  return key;
}

/** Signs in with the password and, when asked, the current code; a new client (a new phone). */
async function signInWithCode(t: TestApp, userAccount: string, key: string): Promise<ApiClient> {
  const c = t.client();
  const first = await c.ok('userLogin', { body: { userAccount, userPassword: PASSWORD } });
  if (first.challenge) {
    await c.ok('userLoginSecondStep', {
      body: { challenge: first.challenge, code: totpOf(key).generate({ timestamp: t.clock.now() }) },
    });
    t.clock.advance(STEP);
  }
  return c;
}

async function addPasskey(c: ApiClient, authenticator: SoftAuthenticator, name = '丢了的手机'): Promise<number> {
  const options = await c.ok('passkeyRegistrationOptions');
  return (await c.ok('passkeyAdd', { body: { name, credential: authenticator.register(options) } })).id;
}

async function signInWithPasskey(t: TestApp, authenticator: SoftAuthenticator): Promise<ApiClient> {
  const c = t.client();
  const options = await c.ok('userLoginPasskeyOptions');
  await c.ok('userLoginPasskey', { body: { credential: authenticator.authenticate(options) } });
  return c;
}

/** A second admin with TOTP on, signed in with a code (ADMIN_2FA=required lets nothing else through). */
async function newAdmin(t: TestApp) {
  await otherAdmin(t); // the helper adds the admin through the seeded one, which must have enrolled first
  const { client, id, userAccount } = await t.newUser({ role: 'admin' });
  const key = await enrol(t, client);
  return { client: await signInWithCode(t, userAccount, key), id, userAccount, key };
}

/**
 * The seeded admin acting as "another admin": the helper's own admin client (which adds users and grants coins),
 * enrolled once from its password session, which then passes ADMIN_2FA=required.
 */
let enrolled = false;
async function otherAdmin(t: TestApp): Promise<ApiClient> {
  const admin = await t.admin();
  if (!enrolled) {
    await enrol(t, admin);
    enrolled = true;
  }
  return admin;
}

async function openStream(c: ApiClient): Promise<EventStreamReader> {
  const { reader, opened } = await EventStreamReader.open(base, c.cookie);
  expect(opened.status, JSON.stringify(opened.refusal)).toBe(200);
  readers.push(reader);
  await reader.next((d) => d.kind === 'ready');
  return reader;
}

/** The stream's last event says why, and the stream is closed, within 2 s of the end. */
async function expectEnded(reader: EventStreamReader, why: string) {
  const last = await reader.next((d) => d.kind === 'signedOut', 2000);
  expect(last.data.message).toContain(why);
  await reader.until('the stream to close', (r) => r.ended, 2000);
}

const ended = async (c: ApiClient, operation: 'userListPage' | 'userGetLogin' = 'userGetLogin') => {
  const answer = await c.call(operation, { query: { current: 1, pageSize: 10 } });
  return [answer.status, answer.code];
};

const kinds = async (c: ApiClient) =>
  ((await c.ok('noticeMy', { body: { current: 1, pageSize: 20 } })).records as { kind: string }[]).map((n) => n.kind);

describe(`a session's rights follow the factors that still exist (${dbKind()})`, () => {
  it('an admin signed in with a passkey loses its rights when another admin resets it: every session of it ends', async () => {
    const t = app();
    const d = await newAdmin(t);
    const authenticator = new SoftAuthenticator(ORIGIN);
    await addPasskey(d.client, authenticator);
    const withPasskey = await signInWithPasskey(t, authenticator);
    expect(await ended(withPasskey, 'userListPage')).toEqual([200, 0]);
    const stream = await openStream(withPasskey);

    expect(await (await otherAdmin(t)).ok('twoFactorReset', { body: { id: d.id } })).toBe(true);
    // Neither the passkey session nor the code session keeps anything: not the list, not the coins.
    expect(await ended(withPasskey, 'userListPage')).toEqual([401, 40001]);
    expect(await ended(d.client, 'userListPage')).toEqual([401, 40001]);
    const addCoin = await withPasskey.call('userAddCoin', {
      body: { userAccount: d.userAccount, coin: 1, description: '不该成功' },
      headers: idem(),
    });
    expect(addCoin.code).toBe(40001);
    await expectLedgerConsistent(t);
    await expectEnded(stream, '重置');
    // The passkey is gone with the reset; the password alone now only leads to enrolment.
    const again = t.client();
    await again.ok('userLogin', { body: { userAccount: d.userAccount, userPassword: PASSWORD } });
    expect(await ended(again, 'userListPage')).toEqual([403, 40102]);
    const options = await t.client().ok('userLoginPasskeyOptions');
    const refused = await t
      .client()
      .call('userLoginPasskey', { body: { credential: authenticator.authenticate(options) } });
    expect(refused.code).toBe(40000);
  });

  it('a reset works on an account that has only a passkey; an account with no second factor is 409', async () => {
    const t = app();
    const { client, id } = await t.newUser();
    const authenticator = new SoftAuthenticator(ORIGIN);
    await addPasskey(client, authenticator);
    const admin = await otherAdmin(t);
    expect(await admin.ok('userGet', { query: { id } })).toMatchObject({ twoFactor: false, passkeys: 1 });
    expect(await admin.ok('twoFactorReset', { body: { id } })).toBe(true);
    expect(await ended(client)).toEqual([401, 40001]);
    const options = await t.client().ok('userLoginPasskeyOptions');
    const refused = await t
      .client()
      .call('userLoginPasskey', { body: { credential: authenticator.authenticate(options) } });
    expect(refused.message).toContain('已被移除');
    const nothing = await admin.call('twoFactorReset', { body: { id } });
    expect([nothing.status, nothing.code]).toEqual([409, 40900]);
    const trail = await auditTrail(t, 'user', id);
    expect(trail.at(-1)).toMatchObject({ action: 'user.twoFactorReset', after: { passkeysRemoved: 1 } });
  });

  it('an admin removes one named passkey of a user: the sessions it began end at once, the others go on', async () => {
    const t = app();
    const { client: byPassword, id } = await t.newUser();
    const lost = new SoftAuthenticator(ORIGIN);
    const kept = new SoftAuthenticator(ORIGIN);
    const lostId = await addPasskey(byPassword, lost, '丢了的手机');
    await addPasskey(byPassword, kept, '平板');
    const onLost = await signInWithPasskey(t, lost);
    const onKept = await signInWithPasskey(t, kept);
    const lostStream = await openStream(onLost);
    const keptStream = await openStream(onKept);
    const admin = await otherAdmin(t);

    const listed = await admin.ok('passkeyListOfUser', { query: { userId: id } });
    expect(listed.records.map((p: { name: string }) => p.name).sort()).toEqual(['丢了的手机', '平板']);
    expect(JSON.stringify(listed)).not.toMatch(/publicKey|credentialId/);
    expect(await admin.ok('passkeyRemoveOfUser', { body: { userId: id, id: lostId } })).toBe(true);

    expect(await ended(onLost)).toEqual([401, 40001]);
    await expectEnded(lostStream, '重置');
    expect(await ended(onKept)).toEqual([200, 0]);
    expect(await ended(byPassword)).toEqual([200, 0]);
    expect(keptStream.ended).toBe(false);
    expect((await admin.call('passkeyRemoveOfUser', { body: { userId: id, id: lostId } })).code).toBe(40400);
    // Only an admin, and not on itself.
    expect((await byPassword.call('passkeyRemoveOfUser', { body: { userId: id, id: lostId } })).code).toBe(40101);
    expect((await byPassword.call('passkeyListOfUser', { query: { userId: id } })).code).toBe(40101);
    const trail = await auditTrail(t, 'user', id);
    expect(trail.at(-1)).toMatchObject({ action: 'user.passkeyRemove', before: { name: '丢了的手机' } });
    expect(await kinds(byPassword)).toContain('sign_in_changed');
  });

  it('a user turning two-factor off, removing a passkey or changing the password ends its other sessions, not this one', async () => {
    const t = app();
    const { client: here, userAccount } = await t.newUser();
    const key = await enrol(t, here);
    const phone = await signInWithCode(t, userAccount, key);
    const phoneStream = await openStream(phone);
    const hereStream = await openStream(here);

    const code = totpOf(key).generate({ timestamp: t.clock.now() });
    expect(await here.ok('twoFactorDisable', { body: { code } })).toBe(true);
    expect(await ended(phone)).toEqual([401, 40001]);
    await expectEnded(phoneStream, '验证方式已变更');
    expect(await ended(here)).toEqual([200, 0]);
    expect(hereStream.ended).toBe(false);

    // A passkey removed by its owner: the other devices end, this one stays.
    const authenticator = new SoftAuthenticator(ORIGIN);
    const passkeyId = await addPasskey(here, authenticator);
    const tablet = t.client();
    await tablet.ok('userLogin', { body: { userAccount, userPassword: PASSWORD } });
    expect(await here.ok('passkeyRemove', { body: { id: passkeyId } })).toBe(true);
    expect(await ended(tablet)).toEqual([401, 40001]);
    expect(await ended(here)).toEqual([200, 0]);

    // The password: the other devices end with 40001, the device that changed it stays signed in.
    const laptop = t.client();
    await laptop.ok('userLogin', { body: { userAccount, userPassword: PASSWORD } });
    const laptopStream = await openStream(laptop);
    await here.ok('userUpdatePassword', {
      body: { oldPassword: PASSWORD, newPassword: 'N3wPassw0rd!', checkPassword: 'N3wPassw0rd!' },
    });
    expect(await ended(laptop)).toEqual([401, 40001]);
    await expectEnded(laptopStream, '密码已修改');
    expect(await ended(here)).toEqual([200, 0]);
    expect(hereStream.ended).toBe(false);

    const trail = (await auditTrail(t, 'user', (await here.ok('userGetLogin')).id)).map((e) => e.action);
    expect(trail).toEqual(
      expect.arrayContaining(['user.twoFactorDisable', 'user.passkeyRemove', 'user.password.change']),
    );
    expect((await kinds(here)).filter((k) => k === 'sign_in_changed')).toHaveLength(3);
  });

  it('an admin without codes that removes the passkey it signed in with goes back to enrolment', async () => {
    const t = app();
    await otherAdmin(t);
    const { client: byPassword } = await t.newUser({ role: 'admin' });
    // Under ADMIN_2FA=required a passkey is this admin's way in: added from the enrolment wall.
    const authenticator = new SoftAuthenticator(ORIGIN);
    const passkeyId = await addPasskey(byPassword, authenticator);
    const withPasskey = await signInWithPasskey(t, authenticator);
    expect(await ended(withPasskey, 'userListPage')).toEqual([200, 0]);
    expect(await withPasskey.ok('passkeyRemove', { body: { id: passkeyId } })).toBe(true);
    expect(await ended(withPasskey, 'userListPage')).toEqual([403, 40102]);
    expect((await withPasskey.ok('userGetLogin')).enrolTwoFactor).toBe(true);
  });
});

describe(`a login challenge completes one sign-in (${dbKind()})`, () => {
  it('the challenge that completed a sign-in takes no next code, even within its five minutes', async () => {
    const t = app();
    const { client, userAccount } = await t.newUser();
    const key = await enrol(t, client);
    const c = t.client();
    const { challenge } = await c.ok('userLogin', { body: { userAccount, userPassword: PASSWORD } });
    await c.ok('userLoginSecondStep', {
      body: { challenge, code: totpOf(key).generate({ timestamp: t.clock.now() }) },
    });
    t.clock.advance(STEP);
    const again = await t
      .client()
      .call('userLoginSecondStep', { body: { challenge, code: totpOf(key).generate({ timestamp: t.clock.now() }) } });
    expect([again.status, again.code]).toEqual([400, 40000]);
    expect(again.message).toContain('重新输入密码');
    // Two password steps in the same millisecond get challenges of their own.
    const a = await t.client().ok('userLogin', { body: { userAccount, userPassword: PASSWORD } });
    const b = await t.client().ok('userLogin', { body: { userAccount, userPassword: PASSWORD } });
    expect(a.challenge).not.toBe(b.challenge);
  });
});

describe(`an event stream ends with its session (${dbKind()})`, () => {
  it('logout, 登录设备 end, a ban and a deletion each close the streams of the ended sessions within 2 s', async () => {
    const t = app();
    const admin = await otherAdmin(t);

    const { client: loggingOut } = await t.newUser();
    const logoutStream = await openStream(loggingOut);
    await loggingOut.ok('userLogout');
    await expectEnded(logoutStream, '登录已失效');

    const { client: phone, userAccount } = await t.newUser();
    const tablet = t.client();
    await tablet.ok('userLogin', { body: { userAccount, userPassword: PASSWORD } });
    const tabletStream = await openStream(tablet);
    const phoneStream = await openStream(phone);
    const devices = await phone.ok('sessionList', { query: { current: 1, pageSize: 10 } });
    const other = devices.records.find((s: { current: boolean }) => !s.current);
    await phone.ok('sessionEnd', { body: { id: other.id } });
    await expectEnded(tabletStream, '退出登录');
    expect(phoneStream.ended).toBe(false);

    const { client: banned, id: bannedId, userAccount: bannedAccount } = await t.newUser();
    const bannedStream = await openStream(banned);
    await admin.ok('userBan', { query: { id: bannedId } });
    await expectEnded(bannedStream, '账号已被封禁');
    // Nothing reaches it after the end: not its balance, not the site record.
    const seen = bannedStream.events.length;
    await grant(t, bannedAccount, 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(bannedStream.events.length).toBe(seen);
    await expectLedgerConsistent(t);

    const { client: deleted, id: deletedId } = await t.newUser();
    const deletedStream = await openStream(deleted);
    await admin.ok('userDelete', { body: { id: deletedId } });
    await expectEnded(deletedStream, '已被删除');

    // An admin's password reset ends every session of the user, and their streams.
    const { client: reset, id: resetId } = await t.newUser();
    const resetStream = await openStream(reset);
    await admin.ok('userBossUpdatePassword', { body: { id: resetId, newPassword: 'R3setPassw0rd!' } });
    await expectEnded(resetStream, '密码已修改');
  });
});
