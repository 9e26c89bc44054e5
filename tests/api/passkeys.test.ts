import { describe, expect, it } from 'vitest';
import { auditTrail } from '../helpers/audit.js';
import type { ApiClient } from '../helpers/client.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';
import { Secret, TOTP } from 'otpauth';
import { ADMIN, PASSWORD, useTestApp, type TestApp } from '../helpers/test-app.js';

// Passkeys (WebAuthn) through @simplewebauthn/server, with a software authenticator standing in for the browser: add,
// list, remove; sign in without a password (two factors on its own); every refusal a real attacker would try — a
// replayed answer, a counter set back by a cloned credential, a removed passkey, another origin, a challenge of
// another purpose or one that expired — and the cap. The relying party is the test app's PUBLIC_ORIGIN.

const ORIGIN = 'http://localhost:8080';
const START = Date.UTC(2026, 10, 26, 3, 0, 0);

async function addPasskey(c: ApiClient, authenticator: SoftAuthenticator, name = '我的手机') {
  const options = await c.ok('passkeyRegistrationOptions');
  return c.ok('passkeyAdd', { body: { name, credential: authenticator.register(options) } });
}

async function signIn(t: TestApp, authenticator: SoftAuthenticator, overrides = {}) {
  const c = t.client();
  const options = await c.ok('userLoginPasskeyOptions');
  const answer = await c.call('userLoginPasskey', {
    body: { credential: authenticator.authenticate(options, overrides) },
  });
  return { c, answer };
}

describe('passkeys', () => {
  const app = useTestApp({}, { startAt: START });

  it('are added with a name and listed without their key; options bind the site, the account and its passkeys', async () => {
    const t = app();
    const { client: c, id, userAccount } = await t.newUser();
    const options = await c.ok('passkeyRegistrationOptions');
    expect(options.rp).toEqual({ name: expect.any(String), id: 'localhost' });
    expect(options.user.name).toBe(userAccount);
    expect(options.user.id).not.toContain(String(id));
    expect(options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' });
    expect(options.excludeCredentials).toEqual([]);

    const authenticator = new SoftAuthenticator(ORIGIN);
    const added = await c.ok('passkeyAdd', { body: { name: '我的手机', credential: authenticator.register(options) } });
    expect(added).toEqual({
      id: expect.any(Number),
      userId: id,
      name: '我的手机',
      synced: false,
      createdAt: START,
      lastUsedAt: null,
    });
    const list = await c.ok('passkeyList', { query: { current: 1, pageSize: 10 } });
    expect(list.records).toEqual([added]);
    // The stored public key and credential id never leave the server.
    const stored = await t.built.context.db
      .selectFrom('passkeys')
      .select(['publicKey', 'credentialId'])
      .where('userId', '=', id)
      .executeTakeFirstOrThrow();
    expect(stored.credentialId).toBe(authenticator.credentials[0]!.id.toString('base64url'));
    expect(JSON.stringify(list)).not.toContain(stored.publicKey);
    expect(JSON.stringify(list)).not.toContain(stored.credentialId);
    // The browser is told not to register the same authenticator twice.
    const again = await c.ok('passkeyRegistrationOptions');
    expect(again.excludeCredentials.map((d: { id: string }) => d.id)).toEqual([
      authenticator.credentials[0]!.id.toString('base64url'),
    ]);
    // Visitors have none to list.
    expect((await t.client().call('passkeyList')).status).toBe(401);
  });

  it('sign in without a password, as two factors: no code asked even with two-factor codes on', async () => {
    const t = app();
    const { client, userAccount } = await t.newUser();
    const { key } = await client.ok('twoFactorSetup');
    const totp = new TOTP({ secret: Secret.fromBase32(key), digits: 6, period: 30, algorithm: 'SHA1' });
    await client.ok('twoFactorEnable', { body: { code: totp.generate({ timestamp: t.clock.now() }) } });
    // The password alone now asks for a code.
    expect((await t.client().ok('userLogin', { body: { userAccount, userPassword: PASSWORD } })).methods).toBeDefined();
    const authenticator = new SoftAuthenticator(ORIGIN);
    await addPasskey(client, authenticator);

    const options = await t.client().ok('userLoginPasskeyOptions');
    expect(options).toMatchObject({ rpId: 'localhost', userVerification: 'required', allowCredentials: [] });
    const { c, answer } = await signIn(t, authenticator);
    expect(answer.code).toBe(0);
    expect(answer.data).toMatchObject({ userAccount, twoFactor: true, enrolTwoFactor: false });
    expect(c.cookie).toBeDefined();
    expect((await c.ok('userGetLogin')).userAccount).toBe(userAccount);
    const [row] = (await c.ok('passkeyList')).records;
    expect(row.lastUsedAt).toBe(t.clock.now());
    // The session is listed in 登录设备 like any other.
    expect((await c.ok('sessionList', { query: { current: 1, pageSize: 10 } })).records).toHaveLength(2);
  });

  it('refuse a replayed answer, even from an authenticator that does not count', async () => {
    const t = app();
    const { client } = await t.newUser();
    const authenticator = new SoftAuthenticator(ORIGIN, { counting: false });
    await addPasskey(client, authenticator);
    const options = await t.client().ok('userLoginPasskeyOptions');
    const credential = authenticator.authenticate(options);
    expect((await t.client().call('userLoginPasskey', { body: { credential } })).code).toBe(0);
    const replay = await t.client().call('userLoginPasskey', { body: { credential } });
    expect([replay.status, replay.code]).toEqual([400, 40000]);
    expect(replay.message).toBe('通行密钥的请求已过期或已用过，请重试');
    // A fresh challenge works again (counter 0 and 0: an authenticator that does not count).
    expect((await signIn(t, authenticator)).answer.code).toBe(0);
  });

  it('refuse a counter that goes backwards (a cloned credential)', async () => {
    const t = app();
    const { client } = await t.newUser();
    const authenticator = new SoftAuthenticator(ORIGIN);
    await addPasskey(client, authenticator);
    expect((await signIn(t, authenticator)).answer.code).toBe(0);
    expect((await signIn(t, authenticator)).answer.code).toBe(0);
    const cloned = await signIn(t, authenticator, { counter: 1 });
    expect([cloned.answer.status, cloned.answer.code]).toEqual([400, 40000]);
    expect(cloned.answer.message).toContain('可能被复制过');
    expect(cloned.c.cookie).toBeUndefined();
    const same = await signIn(t, authenticator, { counter: 2 });
    expect(same.answer.code).toBe(40000);
    expect((await signIn(t, authenticator, { counter: 3 })).answer.code).toBe(0);

    // Two answers with the same counter sent at once (a clone racing the original): one passes, never both.
    const [first, second] = await Promise.all([
      t.client().ok('userLoginPasskeyOptions'),
      t.client().ok('userLoginPasskeyOptions'),
    ]);
    const racing = [
      authenticator.authenticate(first, { counter: 4 }),
      authenticator.authenticate(second, { counter: 4 }),
    ];
    const answers = await Promise.all(
      racing.map((credential) => t.client().call('userLoginPasskey', { body: { credential } })),
    );
    expect(answers.map((a) => a.code).sort()).toEqual([0, 40000]);
  });

  it('refuse a removed passkey; only the owner removes it', async () => {
    const t = app();
    const { client } = await t.newUser();
    const other = (await t.newUser()).client;
    const authenticator = new SoftAuthenticator(ORIGIN);
    const added = await addPasskey(client, authenticator);
    const stranger = await other.call('passkeyRemove', { body: { id: added.id } });
    expect([stranger.status, stranger.code]).toEqual([404, 40400]);
    expect((await signIn(t, authenticator)).answer.code).toBe(0);

    expect(await client.ok('passkeyRemove', { body: { id: added.id } })).toBe(true);
    expect((await client.ok('passkeyList')).records).toEqual([]);
    const refused = await signIn(t, authenticator);
    expect([refused.answer.status, refused.answer.code]).toEqual([400, 40000]);
    expect(refused.answer.message).toBe('这个通行密钥没有添加到任何账号，或已被移除');
    expect((await client.call('passkeyRemove', { body: { id: added.id } })).code).toBe(40400);
  });

  it('refuse another origin, another purpose’s challenge, another account’s challenge and an expired one', async () => {
    const t = app();
    const { client } = await t.newUser();
    const authenticator = new SoftAuthenticator(ORIGIN);
    await addPasskey(client, authenticator);

    const phishing = await signIn(t, authenticator, { origin: 'https://localhost.evil.example' });
    expect(phishing.answer.code).toBe(40000);

    // A registration challenge is not a sign-in challenge.
    const registration = await client.ok('passkeyRegistrationOptions');
    const crossed = await t.client().call('userLoginPasskey', {
      body: { credential: authenticator.authenticate({ ...registration, rpId: 'localhost' }) },
    });
    expect(crossed.code).toBe(40000);

    // Another account's registration challenge cannot add a passkey to mine.
    const other = (await t.newUser()).client;
    const theirs = await other.ok('passkeyRegistrationOptions');
    const stolen = await client.call('passkeyAdd', {
      body: { name: '别人的', credential: new SoftAuthenticator(ORIGIN).register(theirs) },
    });
    expect([stolen.status, stolen.code, stolen.message]).toEqual([400, 40000, '通行密钥的请求已过期或已用过，请重试']);

    // Five minutes is all a challenge lasts.
    const options = await t.client().ok('userLoginPasskeyOptions');
    t.clock.advance(5 * 60_000 + 1);
    const late = await t
      .client()
      .call('userLoginPasskey', { body: { credential: authenticator.authenticate(options) } });
    expect(late.message).toBe('通行密钥的请求已过期或已用过，请重试');

    // An answer signed for another site's relying party is refused at registration too.
    const wrongSite = await client.ok('passkeyRegistrationOptions');
    const added = await client.call('passkeyAdd', {
      body: {
        name: '钓鱼',
        credential: new SoftAuthenticator(ORIGIN).register(wrongSite, { origin: 'https://evil.example' }),
      },
    });
    expect(added.code).toBe(40000);
  });

  it('a passkey is added once, and an account has at most ten', async () => {
    const t = app();
    const { client } = await t.newUser();
    const authenticator = new SoftAuthenticator(ORIGIN);
    const options = await client.ok('passkeyRegistrationOptions');
    const credential = authenticator.register(options);
    await client.ok('passkeyAdd', { body: { name: '一', credential } });
    // The same answer again: its challenge is spent.
    expect((await client.call('passkeyAdd', { body: { name: '二', credential } })).code).toBe(40000);
    // The same credential attested again under a fresh challenge (a browser ignoring excludeCredentials): refused,
    // for this account and for any other (one credential, one account).
    const twice = authenticator.register(await client.ok('passkeyRegistrationOptions'), { again: 0 });
    const duplicate = await client.call('passkeyAdd', { body: { name: '二', credential: twice } });
    expect([duplicate.status, duplicate.code, duplicate.message]).toEqual([409, 40900, '这个通行密钥已经添加过了']);
    const other = (await t.newUser()).client;
    const elsewhere = authenticator.register(await other.ok('passkeyRegistrationOptions'), { again: 0 });
    expect((await other.call('passkeyAdd', { body: { name: '二', credential: elsewhere } })).code).toBe(40900);
    for (let i = 2; i <= 10; i++) await addPasskey(client, new SoftAuthenticator(ORIGIN), `第${i}个`);
    const eleventh = await client.call('passkeyRegistrationOptions');
    expect([eleventh.status, eleventh.code]).toEqual([409, 40900]);
    expect((await client.ok('passkeyList', { query: { pageSize: 20 } })).total).toBe(10);
  });

  it('a banned account cannot sign in with its passkey', async () => {
    const t = app();
    const { client, id } = await t.newUser();
    const authenticator = new SoftAuthenticator(ORIGIN);
    await addPasskey(client, authenticator);
    await (await t.admin()).ok('userBan', { query: { id } });
    const refused = await signIn(t, authenticator);
    expect([refused.answer.status, refused.answer.code]).toEqual([403, 40300]);
  });

  it('failed passkey sign-ins count against the address like wrong passwords', async () => {
    const t = app();
    const { client } = await t.newUser();
    const authenticator = new SoftAuthenticator(ORIGIN);
    await addPasskey(client, authenticator);
    const options = await t.client().ok('userLoginPasskeyOptions');
    const forged = authenticator.authenticate(options);
    forged.response.signature = Buffer.from('not a signature').toString('base64url');
    const codes: number[] = [];
    for (let i = 0; i < 21; i++) {
      const answer = await t.client().call('userLoginPasskey', { body: { credential: forged }, ip: '10.9.8.7' });
      codes.push(answer.code);
    }
    expect(codes.slice(0, 20)).toEqual(Array(20).fill(40000));
    expect(codes[20]).toBe(42900);
  });
});

describe('passkeys under ADMIN_2FA=required', () => {
  const app = useTestApp({ admin2fa: 'required' }, { startAt: START });

  it('an admin signed in with a passkey is not sent to enrol; with its password alone it still is', async () => {
    const t = app();
    const c = t.client();
    expect((await c.ok('userLogin', { body: ADMIN })).enrolTwoFactor).toBe(true);
    const authenticator = new SoftAuthenticator(ORIGIN);
    // Adding a passkey is open to an admin that must still enrol.
    await addPasskey(c, authenticator, '管理员的钥匙');
    expect((await c.call('userListPage', { query: { current: 1, pageSize: 10 } })).code).toBe(40102);

    const { c: withPasskey, answer } = await signIn(t, authenticator);
    expect(answer.data).toMatchObject({ userRole: 'admin', enrolTwoFactor: false });
    expect((await withPasskey.ok('userGetLogin')).enrolTwoFactor).toBe(false);
    expect((await withPasskey.call('userListPage', { query: { current: 1, pageSize: 10 } })).code).toBe(0);

    const passwordOnly = t.client();
    await passwordOnly.ok('userLogin', { body: ADMIN });
    expect((await passwordOnly.call('userListPage', { query: { current: 1, pageSize: 10 } })).code).toBe(40102);
  });
});

describe('passkeys and an admin’s two-factor reset', () => {
  const app = useTestApp({}, { startAt: START });

  it('a reset for a lost phone removes the passkeys too, audited, and ends the sessions', async () => {
    const t = app();
    const { client, id, userAccount } = await t.newUser();
    const { key } = await client.ok('twoFactorSetup');
    const totp = new TOTP({ secret: Secret.fromBase32(key), digits: 6, period: 30, algorithm: 'SHA1' });
    await client.ok('twoFactorEnable', { body: { code: totp.generate({ timestamp: t.clock.now() }) } });
    const authenticator = new SoftAuthenticator(ORIGIN);
    await addPasskey(client, authenticator);
    await (await t.admin()).ok('twoFactorReset', { body: { id } });
    expect((await client.call('passkeyList')).code).toBe(40001);
    const again = t.client();
    await again.ok('userLogin', { body: { userAccount, userPassword: PASSWORD } });
    expect((await again.ok('passkeyList')).records).toEqual([]);
    expect((await signIn(t, authenticator)).answer.message).toBe('这个通行密钥没有添加到任何账号，或已被移除');
    const reset = (await auditTrail(t, 'user', id)).find((e) => e.action === 'user.twoFactorReset');
    expect(reset?.after).toEqual({ twoFactorAt: null, passkeysRemoved: 1 });
  });
});
