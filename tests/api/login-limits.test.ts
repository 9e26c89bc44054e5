import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import type { CallResult } from '../helpers/client.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';
import { PASSWORD, uniqueAccount, useTestApp } from '../helpers/test-app.js';

const app = useTestApp();

const MINUTE = 60 * 1000;
const WRONG = 'Wrong-passw0rd';
const ACCOUNT_LOCKED =
  '该账号在陌生设备上登录失败次数过多，已暂时锁定陌生设备登录；在常用设备上登录不受影响，或 15 分钟后再试';
const DEVICE_LOCKED = '这台设备登录失败次数过多，请 15 分钟后再试';
const ADDRESS_LOCKED = '登录失败次数过多，请 15 分钟后再试';

// Every test uses addresses of its own, so one test's failures never lock another's.
let nextAddress = 1;
const freshIp = () => `192.0.2.${nextAddress++}`;

/** A login from a browser that holds no device cookie, or (`cookie`) from one that sends these cookies. */
const login = (userAccount: string, userPassword: string, ip: string, cookie?: string) =>
  app()
    .client()
    .call('userLogin', { body: { userAccount, userPassword }, ip, ...(cookie ? { headers: { cookie } } : {}) });

const setCookies = (r: CallResult): string[] => [r.headers['set-cookie'] ?? []].flat().map(String);

/** The device cookie a sign-in set, as the browser sends it back (`did_<id>=<value>`). */
function deviceCookieOf(r: CallResult): string {
  expect(r.code, r.message).toBe(0);
  const cookie = setCookies(r).find((c) => c.startsWith('did_'));
  expect(cookie, JSON.stringify(r.headers['set-cookie'])).toBeDefined();
  return cookie!.split(';')[0]!;
}

/** A new account and the device cookie of the browser its owner signed in from (at an address of its own). */
async function ownerWithKnownBrowser() {
  const { userAccount, id } = await app().newUser();
  return { userAccount, id, device: deviceCookieOf(await login(userAccount, PASSWORD, freshIp())) };
}

/** A stranger, from addresses of its own and no device cookie, fails the password five times: the account locks. */
async function strangerLocks(userAccount: string) {
  for (let i = 0; i < 5; i++) expect((await login(userAccount, WRONG, freshIp())).code).toBe(40000);
  const locked = await login(userAccount, PASSWORD, freshIp());
  expect([locked.status, locked.code, locked.message]).toEqual([429, 42900, ACCOUNT_LOCKED]);
}

function retryAfter(r: CallResult): number {
  const value = Number(r.headers['retry-after']);
  expect(Number.isInteger(value), `Retry-After ${String(r.headers['retry-after'])}`).toBe(true);
  return value;
}

describe('login lock per account, for browsers without its device cookie', () => {
  it('after 5 wrong passwords the 6th attempt, even with the right password, answers 429 / 42900 until 15 minutes pass', async () => {
    const { userAccount } = await app().newUser();
    // From five different addresses: the account lock does not depend on where the guesses come from.
    for (let i = 0; i < 5; i++) {
      const r = await login(userAccount, WRONG, freshIp());
      expect([r.status, r.code, r.message]).toEqual([400, 40000, '账号或密码错误']);
    }
    const locked = await login(userAccount, PASSWORD, freshIp());
    expect([locked.status, locked.code, locked.message]).toEqual([429, 42900, ACCOUNT_LOCKED]);
    expect(locked.data).toBeNull();
    expect(locked.headers['set-cookie']).toBeUndefined();
    const wait = retryAfter(locked);
    expect(wait).toBeGreaterThan(14 * 60);
    expect(wait).toBeLessThanOrEqual(15 * 60);

    app().clock.advance(10 * MINUTE);
    const still = await login(userAccount, PASSWORD, freshIp());
    expect([still.status, still.code]).toEqual([429, 42900]);
    expect(retryAfter(still)).toBe(wait - 10 * 60);

    app().clock.advance(5 * MINUTE + 1000);
    const ok = await login(userAccount, PASSWORD, freshIp());
    expect(ok.code).toBe(0);
    expect(ok.data.userAccount).toBe(userAccount);
  });

  it('forgives earlier failures once the right password is given', async () => {
    const { userAccount } = await app().newUser();
    const ip = freshIp();
    for (let i = 0; i < 4; i++) expect((await login(userAccount, WRONG, ip)).code).toBe(40000);
    expect((await login(userAccount, PASSWORD, ip)).code).toBe(0);
    for (let i = 0; i < 4; i++) expect((await login(userAccount, WRONG, ip)).code).toBe(40000);
    expect((await login(userAccount, PASSWORD, ip)).code).toBe(0);
  });

  it('locks for the full 15 minutes even when the failures straddle a quarter hour on the clock', async () => {
    const { userAccount } = await app().newUser();
    // Three seconds before a quarter hour of the epoch: a fixed-window counter would forget everything at :00.
    const quarter = 15 * MINUTE;
    const clock = app().clock;
    clock.advance(
      quarter - (clock.current % quarter) - 3000 + (clock.current % quarter > quarter - 3000 ? quarter : 0),
    );
    for (let i = 0; i < 5; i++) {
      expect((await login(userAccount, WRONG, freshIp())).code).toBe(40000);
      clock.advance(1000);
    }
    clock.advance(30 * 1000);
    const locked = await login(userAccount, PASSWORD, freshIp());
    expect([locked.status, locked.code]).toEqual([429, 42900]);
    expect(retryAfter(locked)).toBeGreaterThan(14 * 60);
    // Nor do guesses on both sides of the boundary add up to more than five.
    clock.advance(retryAfter(locked) * 1000);
    expect((await login(userAccount, PASSWORD, freshIp())).code).toBe(0);
  });

  it('counts wrong passwords sent all at once: no more than 5 are ever checked', async () => {
    const { userAccount } = await app().newUser();
    const results = await Promise.all(Array.from({ length: 12 }, () => login(userAccount, WRONG, freshIp())));
    const checked = results.filter((r) => r.message === '账号或密码错误').length;
    expect(checked).toBeLessThanOrEqual(5);
    for (const r of results) {
      if (r.code !== 40000) {
        expect([r.status, r.code, r.message]).toEqual([429, 42900, ACCOUNT_LOCKED]);
        expect(retryAfter(r)).toBeGreaterThan(0);
      }
    }
    // Five checked failures lock the account; fewer leave it open.
    const after = await login(userAccount, PASSWORD, freshIp());
    expect(after.code).toBe(checked === 5 ? 42900 : 0);
  });

  it('counts unknown accounts the same way, so a lock does not tell whether an account exists', async () => {
    const ghost = uniqueAccount('ghost');
    for (let i = 0; i < 5; i++) expect((await login(ghost, WRONG, freshIp())).message).toBe('账号或密码错误');
    const r = await login(ghost, WRONG, freshIp());
    expect([r.status, r.code, r.message]).toEqual([429, 42900, ACCOUNT_LOCKED]);
  });
});

describe('device cookies: a known browser is limited on its own (OWASP)', () => {
  it('every sign-in sets a signed device cookie: HttpOnly, SameSite=Lax, a year, sent only to the login operations', async () => {
    const { userAccount, id } = await app().newUser();
    const r = await login(userAccount, PASSWORD, freshIp());
    const [sid, device] = setCookies(r);
    expect(sid).toMatch(/^sid=[A-Za-z0-9_-]{40,}; /); // the session cookie stays the first
    expect(device).toMatch(new RegExp(`^did_${id}=${id}\\.[0-9a-z]+\\.[0-9a-f]{32}\\.[0-9a-f]{64}; `));
    expect(device).toContain('Path=/api/user/login;');
    expect(device).toContain('HttpOnly');
    expect(device).toContain('SameSite=Lax');
    expect(device).toContain(`Max-Age=${365 * 24 * 60 * 60}`);
    expect(device).not.toContain('Secure');
    // A fresh nonce at every sign-in.
    expect(deviceCookieOf(await login(userAccount, PASSWORD, freshIp()))).not.toBe(deviceCookieOf(r));
    // A wrong password sets none.
    expect((await login(userAccount, WRONG, freshIp())).headers['set-cookie']).toBeUndefined();
  });

  it('a stranger’s failures lock the account for unknown browsers; the owner’s known browser still signs in', async () => {
    const { userAccount, device } = await ownerWithKnownBrowser();
    await strangerLocks(userAccount);
    // More guesses change nothing for the owner.
    for (let i = 0; i < 3; i++) expect((await login(userAccount, WRONG, freshIp())).code).toBe(42900);
    const owner = await login(userAccount, PASSWORD, freshIp(), device);
    expect(owner.code, owner.message).toBe(0);
    expect(owner.data.userAccount).toBe(userAccount);
    // The lock still holds for unknown browsers, wherever they are.
    expect((await login(userAccount, PASSWORD, freshIp())).message).toBe(ACCOUNT_LOCKED);
  });

  it('nor does a locked address stop a known browser', async () => {
    const { userAccount, device } = await ownerWithKnownBrowser();
    const ip = freshIp();
    for (let i = 0; i < 20; i++) expect((await login(uniqueAccount('scan'), WRONG, ip)).code).toBe(40000);
    expect((await login(userAccount, PASSWORD, ip)).message).toBe(ADDRESS_LOCKED);
    expect((await login(userAccount, PASSWORD, ip, device)).code).toBe(0);
  });

  it('a device cookie’s own failures lock that device only, for 15 minutes; its success forgives them', async () => {
    const { userAccount, device } = await ownerWithKnownBrowser();
    const other = deviceCookieOf(await login(userAccount, PASSWORD, freshIp()));
    const ip = freshIp();
    for (let i = 0; i < 4; i++) expect((await login(userAccount, WRONG, ip, device)).code).toBe(40000);
    expect((await login(userAccount, PASSWORD, ip, device)).code).toBe(0);
    for (let i = 0; i < 5; i++) expect((await login(userAccount, WRONG, ip, device)).code).toBe(40000);
    const locked = await login(userAccount, PASSWORD, ip, device);
    expect([locked.status, locked.code, locked.message]).toEqual([429, 42900, DEVICE_LOCKED]);
    expect(retryAfter(locked)).toBeGreaterThan(14 * 60);
    // Not the account: another known browser, and an unknown one, sign in; the locked device stays locked.
    expect((await login(userAccount, PASSWORD, freshIp(), other)).code).toBe(0);
    expect((await login(userAccount, PASSWORD, ip)).code).toBe(0);
    expect((await login(userAccount, PASSWORD, freshIp(), device)).message).toBe(DEVICE_LOCKED);
    app().clock.advance(15 * MINUTE + 1000);
    expect((await login(userAccount, PASSWORD, ip, device)).code).toBe(0);
  });

  it('a forged or altered cookie, or one issued for another account, is an unknown browser', async () => {
    const owner = await ownerWithKnownBrowser();
    const someone = await ownerWithKnownBrowser();
    await strangerLocks(owner.userAccount);
    const [name, value] = owner.device.split('=') as [string, string];
    const [, issued, nonce, mac] = value.split('.') as [string, string, string, string];
    const flip = (hex: string) => hex.slice(0, -1) + (hex.endsWith('0') ? '1' : '0');
    const refused = [
      someone.device, // valid, but for another account
      `did_${owner.id}=${someone.device.split('=')[1]}`, // the same under the owner's name
      `${name}=${owner.id}.${issued}.${nonce}.${flip(mac)}`, // signature altered
      `${name}=${owner.id}.${issued}.${flip(nonce)}.${mac}`, // nonce altered
      `${name}=${owner.id}.${(parseInt(issued, 36) + 1).toString(36)}.${nonce}.${mac}`, // issue time altered
      `${name}=${someone.id}.${issued}.${nonce}.${mac}`, // account altered
      `${name}=${owner.id}.${issued}.${nonce}.${'0'.repeat(64)}`, // made up
    ];
    for (const cookie of refused) {
      const r = await login(owner.userAccount, PASSWORD, freshIp(), cookie);
      expect([r.code, r.message], cookie).toEqual([42900, ACCOUNT_LOCKED]);
    }
    expect((await login(owner.userAccount, PASSWORD, freshIp(), `${someone.device}; ${owner.device}`)).code).toBe(0);
  });

  it('counts a known device’s wrong passwords sent all at once: no more than 5 are ever checked', async () => {
    const { userAccount, device } = await ownerWithKnownBrowser();
    const results = await Promise.all(Array.from({ length: 12 }, () => login(userAccount, WRONG, freshIp(), device)));
    const checked = results.filter((r) => r.message === '账号或密码错误').length;
    expect(checked).toBeLessThanOrEqual(5);
    for (const r of results) {
      if (r.code !== 40000) expect([r.status, r.code, r.message]).toEqual([429, 42900, DEVICE_LOCKED]);
    }
    expect((await login(userAccount, PASSWORD, freshIp(), device)).code).toBe(checked === 5 ? 42900 : 0);
    // The account is not locked for anyone else.
    expect((await login(userAccount, PASSWORD, freshIp())).code).toBe(0);
  });

  it('the two-factor second step and a passkey sign-in make the browser known too', async () => {
    const t = app();
    const { client, userAccount } = await t.newUser();
    const { key } = await client.ok('twoFactorSetup');
    const totp = new TOTP({ secret: Secret.fromBase32(key), digits: 6, period: 30, algorithm: 'SHA1' });
    await client.ok('twoFactorEnable', { body: { code: totp.generate({ timestamp: t.clock.now() }) } });
    const authenticator = new SoftAuthenticator('http://localhost:8080');
    const options = await client.ok('passkeyRegistrationOptions');
    await client.ok('passkeyAdd', { body: { name: '手机', credential: authenticator.register(options) } });
    t.clock.advance(30_000);

    // The password step alone sets no device cookie; the second step does.
    const first = await login(userAccount, PASSWORD, freshIp());
    expect(first.data.challenge).toBeDefined();
    expect(first.headers['set-cookie']).toBeUndefined();
    const second = await t.client().call('userLoginSecondStep', {
      body: { challenge: first.data.challenge, code: totp.generate({ timestamp: t.clock.now() }) },
    });
    const byCode = deviceCookieOf(second);
    const visitor = t.client();
    const passkey = await visitor.call('userLoginPasskey', {
      body: { credential: authenticator.authenticate(await visitor.ok('userLoginPasskeyOptions')) },
    });
    const byPasskey = deviceCookieOf(passkey);

    await strangerLocks(userAccount);
    for (const device of [byCode, byPasskey]) {
      const r = await login(userAccount, PASSWORD, freshIp(), device);
      expect(r.code, r.message).toBe(0);
      expect(r.data.challenge).toBeDefined();
    }
  });
});

describe('login lock per address', () => {
  it('20 failures from one address, over different accounts, lock that address for 15 minutes', async () => {
    const { userAccount } = await app().newUser();
    const ip = freshIp();
    for (let i = 0; i < 20; i++) {
      const r = await login(uniqueAccount('scan'), WRONG, ip);
      expect([r.status, r.code], `attempt ${i + 1}`).toEqual([400, 40000]);
    }
    const locked = await login(userAccount, PASSWORD, ip);
    expect([locked.status, locked.code, locked.message]).toEqual([429, 42900, ADDRESS_LOCKED]);
    const wait = retryAfter(locked);
    expect(wait).toBeGreaterThan(14 * 60);
    expect(wait).toBeLessThanOrEqual(15 * 60);

    // The account itself is not locked: from another address it logs in.
    expect((await login(userAccount, PASSWORD, freshIp())).code).toBe(0);

    app().clock.advance(15 * MINUTE + 1000);
    expect((await login(userAccount, PASSWORD, ip)).code).toBe(0);
  });

  it('does not count successful logins from an address', async () => {
    const { userAccount } = await app().newUser();
    const ip = freshIp();
    for (let i = 0; i < 19; i++) expect((await login(uniqueAccount('scan'), WRONG, ip)).code).toBe(40000);
    for (let i = 0; i < 5; i++) expect((await login(userAccount, PASSWORD, ip)).code).toBe(0);
    expect((await login(uniqueAccount('scan'), WRONG, ip)).code).toBe(40000);
    expect((await login(userAccount, PASSWORD, ip)).code).toBe(42900);
  });
});

describe('registration limit per address', () => {
  const register = (ip: string, userAccount = uniqueAccount('reg')) =>
    app()
      .client()
      .call('userRegister', { body: { userAccount, userPassword: PASSWORD, checkPassword: PASSWORD }, ip });

  it('allows 10 registrations per address per hour, then answers 429 / 42900 with Retry-After', async () => {
    const ip = freshIp();
    for (let i = 0; i < 10; i++) expect((await register(ip)).code, `registration ${i + 1}`).toBe(0);
    const refused = await register(ip);
    expect([refused.status, refused.code, refused.message]).toEqual([429, 42900, '注册太频繁，请稍后再试']);
    const wait = retryAfter(refused);
    expect(wait).toBeGreaterThan(55 * 60);
    expect(wait).toBeLessThanOrEqual(61 * 60);

    // Other addresses are not affected.
    expect((await register(freshIp())).code).toBe(0);

    // Half an hour later it is still refused; once Retry-After has passed it works again.
    app().clock.advance(30 * MINUTE);
    expect((await register(ip)).code).toBe(42900);
    app().clock.advance(wait * 1000 - 30 * MINUTE);
    expect((await register(ip)).code).toBe(0);
  });

  it('counts every hour, not only clock hours: 10 before and 10 after the hour would be 20 in minutes', async () => {
    const ip = freshIp();
    const hour = 60 * MINUTE;
    const clock = app().clock;
    clock.advance(hour - (clock.current % hour) - 60 * 1000 + (clock.current % hour > hour - 60 * 1000 ? hour : 0));
    for (let i = 0; i < 10; i++) expect((await register(ip)).code).toBe(0);
    clock.advance(2 * MINUTE);
    expect((await register(ip)).code).toBe(42900);
  });
});

describe('no secret ever leaves the server', () => {
  const SECRET = /password|hash|token/i;

  /** The response text, headers included, with the session cookie's random value blanked out. */
  function exposed(r: CallResult): string {
    const headers = JSON.stringify(r.headers)
      .replace(/sid=[A-Za-z0-9_-]*/g, 'sid=…')
      .replace(/did_[0-9]+=[0-9a-z.]*/g, 'did_…');
    return `${JSON.stringify({ code: r.code, message: r.message, data: r.data })}\n${headers}`;
  }

  it('in login, current-user, admin views, lists and public profiles, nor in their failures', async () => {
    const admin = await app().admin();
    const agent = await app().newUser({ role: 'agent' });
    const code = (await agent.client.ok('userGetInvitationCode')).invitationCode;
    const sub = await app().newUser({ invitationCode: code });
    const c = app().client();
    const results: [string, CallResult][] = [
      [
        'userLogin',
        await c.call('userLogin', { body: { userAccount: sub.userAccount, userPassword: PASSWORD }, ip: freshIp() }),
      ],
      [
        'userLogin wrong',
        await c.call('userLogin', { body: { userAccount: sub.userAccount, userPassword: WRONG }, ip: freshIp() }),
      ],
      ['userGetLogin', await c.call('userGetLogin')],
      ['userGet', await admin.call('userGet', { query: { id: sub.id } })],
      ['userList', await admin.call('userList', { query: { pageSize: 100 } })],
      ['userListPage', await admin.call('userListPage', { query: { pageSize: 100 } })],
      ['userSubordinate', await agent.client.call('userSubordinate', { body: {} })],
      ['userGetUserInfo', await c.call('userGetUserInfo', { query: { userAccount: agent.userAccount } })],
      ['userGetInvitationCode', await c.call('userGetInvitationCode')],
      [
        'userRegister',
        await app()
          .client()
          .call('userRegister', {
            body: { userAccount: uniqueAccount('sec'), userPassword: PASSWORD, checkPassword: PASSWORD },
            ip: freshIp(),
          }),
      ],
      ['userLogout', await c.call('userLogout')],
      ['userGetLogin stale', await c.call('userGetLogin')],
    ];
    for (const [name, r] of results) {
      const text = exposed(r);
      expect(text, name).not.toMatch(SECRET);
      expect(text, name).not.toContain(PASSWORD);
      expect(text, name).not.toMatch(/scrypt\$/);
    }
    // The lists really did contain users (an empty answer would prove nothing).
    expect(results.find(([n]) => n === 'userListPage')![1].data.records.length).toBeGreaterThan(2);
    expect(results.find(([n]) => n === 'userSubordinate')![1].data.records).toHaveLength(1);
    expect(results.find(([n]) => n === 'userLogin')![1].code).toBe(0);
  });
});
