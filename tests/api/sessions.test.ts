import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/server/app.js';
import { ApiClient } from '../helpers/client.js';
import { sqlOutsideTheApp } from '../helpers/database.js';
import { ADMIN, PASSWORD, testConfig, uniqueAccount, useTestApp } from '../helpers/test-app.js';

const app = useTestApp();

describe('register, login, current user, logout', () => {
  it('registers a visitor, logs it in with an HttpOnly SameSite cookie, and answers get/login', async () => {
    const c = app().client();
    const userAccount = uniqueAccount();
    const id = await c.ok('userRegister', { body: { userAccount, userPassword: PASSWORD, checkPassword: PASSWORD } });
    expect(id).toBeGreaterThan(1);

    const login = await c.call('userLogin', { body: { userAccount, userPassword: PASSWORD } });
    expect(login.code).toBe(0);
    const cookie = String(login.headers['set-cookie']);
    expect(cookie).toMatch(/^sid=[A-Za-z0-9_-]{40,}; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(login.data).toMatchObject({ id, userAccount, userRole: 'user', userName: userAccount });

    expect(await c.ok('userGetLogin')).toMatchObject({ id, userAccount });
  });

  it('takes a blank nickname as not given: the nickname is the account; a real one is kept, a spaced one refused', async () => {
    const blank = uniqueAccount();
    const c = app().client();
    await c.ok('userRegister', {
      body: { userAccount: blank, userPassword: PASSWORD, checkPassword: PASSWORD, userName: '' },
    });
    await c.ok('userLogin', { body: { userAccount: blank, userPassword: PASSWORD } });
    expect(await c.ok('userGetLogin')).toMatchObject({ userAccount: blank, userName: blank });

    const named = uniqueAccount();
    const n = app().client();
    await n.ok('userRegister', {
      body: { userAccount: named, userPassword: PASSWORD, checkPassword: PASSWORD, userName: '小明' },
    });
    await n.ok('userLogin', { body: { userAccount: named, userPassword: PASSWORD } });
    expect(await n.ok('userGetLogin')).toMatchObject({ userName: '小明' });

    const spaced = await app()
      .client()
      .call('userRegister', {
        body: { userAccount: uniqueAccount(), userPassword: PASSWORD, checkPassword: PASSWORD, userName: ' ' },
      });
    expect([spaced.status, spaced.code]).toEqual([400, 40000]);
    expect(spaced.message).toContain('昵称');
  });

  it('answers 40100 to a visitor asking for the current user', async () => {
    const r = await app().client().call('userGetLogin');
    expect([r.status, r.code]).toEqual([401, 40100]);
    expect(r.message).toBe('请先登录');
  });

  it('refuses a wrong password and an unknown account with the same message', async () => {
    const { userAccount } = await app().newUser();
    const wrong = await app()
      .client()
      .call('userLogin', { body: { userAccount, userPassword: 'Wrong-pass1' } });
    const unknown = await app()
      .client()
      .call('userLogin', { body: { userAccount: uniqueAccount(), userPassword: 'Wrong-pass1' } });
    expect([wrong.status, wrong.code, wrong.message]).toEqual([400, 40000, '账号或密码错误']);
    expect(unknown.message).toBe(wrong.message);
  });

  it('gives a new session id at every login and never stores the token itself', async () => {
    const { userAccount, client } = await app().newUser();
    const first = client.cookie;
    await client.ok('userLogin', { body: { userAccount, userPassword: PASSWORD } });
    expect(client.cookie).not.toBe(first);
    const token = client.cookie!.slice('sid='.length);
    const rows = await app().built.context.db.selectFrom('sessions').select('tokenHash').execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => r.tokenHash === token)).toBe(false);
  });

  it('finds the session cookie among others by its exact name, and takes a malformed one as none', async () => {
    const { client } = await app().newUser();
    const pair = client.cookie!;
    const token = pair.slice('sid='.length);
    const codeWith = async (cookie: string) => {
      const c = app().client();
      c.cookie = cookie;
      return (await c.call('userGetLogin')).code;
    };
    // The first of two is taken, as a browser sends the more specific path first.
    for (const cookie of [
      `a=1; ${pair}; theme=dark`,
      `a=1;${pair}`,
      `xsid=x; ${pair}`,
      `${pair}; sid=${'b'.repeat(40)}`,
    ])
      expect(await codeWith(cookie), cookie).toBe(0);
    for (const cookie of [
      `xsid=${token}`,
      `a=sid=${token}`,
      'sid=',
      'sid=short',
      `sid=${'a'.repeat(101)}`,
      `sid=${token.slice(0, 30)}%3B`,
    ])
      expect(await codeWith(cookie), cookie).toBe(40100);
  });

  it('ends the session at logout: the old cookie answers 40001 afterwards', async () => {
    const { client } = await app().newUser();
    const cookie = client.cookie;
    const out = await client.call('userLogout');
    expect(out.code).toBe(0);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
    const stale = app().client();
    stale.cookie = cookie;
    const r = await stale.call('userGetLogin');
    expect([r.status, r.code]).toEqual([401, 40001]);
  });

  it('accepts a session in any process on the same database (nothing kept in memory)', async () => {
    const { client } = await app().newUser();
    const { buildApp } = await import('../../src/server/app.js');
    const { testConfig } = await import('../helpers/test-app.js');
    const second = await buildApp(testConfig(app().db.config), { logger: false });
    try {
      const { ApiClient } = await import('../helpers/client.js');
      const other = new ApiClient(second.fastify);
      other.cookie = client.cookie;
      expect((await other.ok('userGetLogin')).userAccount).toBeTruthy();
    } finally {
      await second.fastify.close();
    }
  });

  it('slides the session forward with use and ends it after 7 idle days', async () => {
    const { client } = await app().newUser();
    app().clock.advance(6 * 24 * 3600 * 1000);
    expect((await client.call('userGetLogin')).code).toBe(0);
    app().clock.advance(6 * 24 * 3600 * 1000);
    expect((await client.call('userGetLogin')).code).toBe(0);
    app().clock.advance(8 * 24 * 3600 * 1000);
    expect((await client.call('userGetLogin')).code).toBe(40100);
  });

  it('lets the seeded admin log in', async () => {
    const admin = await app().admin();
    expect((await admin.ok('userGetLogin')).userRole).toBe('admin');
    expect(ADMIN.userAccount).toBe('admin');
  });
});

describe('ban ends live sessions', () => {
  it('a banned user is logged out at its next call (40001) and cannot log in (40300)', async () => {
    const { client, id, userAccount } = await app().newUser();
    const admin = await app().admin();
    await admin.ok('userBan', { query: { id } });
    const r = await client.call('userGetLogin');
    expect([r.status, r.code, r.message]).toEqual([401, 40001, '账号已被封禁，请联系管理员']);
    const again = await app()
      .client()
      .call('userLogin', { body: { userAccount, userPassword: PASSWORD } });
    expect([again.status, again.code]).toEqual([403, 40300]);
    await admin.ok('userUnBan', { query: { id } });
    expect(
      (
        await app()
          .client()
          .call('userLogin', { body: { userAccount, userPassword: PASSWORD } })
      ).code,
    ).toBe(0);
  });
});

describe('account names ignore letter case', () => {
  it('refuses an account that differs from an existing one only by case, and logs in either way', async () => {
    const { userAccount } = await app().newUser();
    const upper = userAccount.toUpperCase();
    const taken = await app()
      .client()
      .call('userRegister', {
        body: { userAccount: upper, userPassword: PASSWORD, checkPassword: PASSWORD },
        ip: '10.9.9.9',
      });
    expect([taken.status, taken.code]).toEqual([409, 40900]);
    const login = await app()
      .client()
      .call('userLogin', { body: { userAccount: upper, userPassword: PASSWORD } });
    expect(login.code).toBe(0);
    expect(login.data.userAccount).toBe(userAccount);
  });
});

describe('sign-up bonus', () => {
  it('credits the site’s addCoin to a new account, as a ledger entry', async () => {
    const admin = await app().admin();
    await admin.ok('basicInformationUpdate', { body: { id: 1, addCoin: 30 } });
    try {
      const { client, id } = await app().newUser();
      expect((await client.ok('userGetLogin')).coin).toBe(30);
      const entries = await app()
        .built.context.db.selectFrom('coinEntries')
        .selectAll()
        .where('userId', '=', id)
        .execute();
      expect(entries.map((e) => [e.kind, Number(e.amount), Number(e.balanceAfter)])).toEqual([
        ['signup_bonus', 30, 30],
      ]);
    } finally {
      await admin.ok('basicInformationUpdate', { body: { id: 1, addCoin: 0 } });
    }
    const { client } = await app().newUser();
    expect((await client.ok('userGetLogin')).coin).toBe(0);
  });
});

// Nothing about a session or its user is kept in memory between requests: whatever ends a session or changes the
// user, in this process, another one, or by SQL typed outside the app, is what the very next request sees.
describe('a session is read from the database on every request', () => {
  let second: BuiltApp;
  beforeAll(async () => {
    second = await buildApp(testConfig(app().db.config), { logger: false });
  });
  afterAll(async () => {
    await second.fastify.close();
  });

  /** Three answers first, so anything a server might keep of this session is warm. */
  const warm = async (client: ApiClient) => {
    for (let i = 0; i < 3; i++) expect((await client.call('userGetLogin')).code).toBe(0);
  };
  const outside = (statement: string, parameters: unknown[]) =>
    sqlOutsideTheApp(app().db.config, statement, parameters);

  it('answers 40001 to a cookie logged out, or a user banned, in another process', async () => {
    const loggedOut = await app().newUser();
    const banned = await app().newUser();
    for (const { client } of [loggedOut, banned]) await warm(client);
    const elsewhere = new ApiClient(second.fastify);
    elsewhere.cookie = loggedOut.client.cookie;
    await elsewhere.ok('userLogout');
    expect((await loggedOut.client.call('userGetLogin')).code).toBe(40001);
    const admin = new ApiClient(second.fastify);
    await admin.ok('userLogin', { body: ADMIN });
    await admin.ok('userBan', { query: { id: banned.id } });
    expect((await banned.client.call('userGetLogin')).code).toBe(40001);
  });

  it('answers 40001 to a session revoked, or a user banned, by SQL outside the app', async () => {
    const revoked = await app().newUser();
    const banned = await app().newUser();
    for (const { client } of [revoked, banned]) await warm(client);
    await outside("update sessions set revoked_at = ?, revoke_reason = 'logout' where user_id = ?", [
      Date.now(),
      revoked.id,
    ]);
    expect((await revoked.client.call('userGetLogin')).code).toBe(40001);
    await outside("update users set status = 'banned' where id = ?", [banned.id]);
    expect((await banned.client.call('userGetLogin')).code).toBe(40001);
  });

  it('answers a user name changed by SQL outside the app', async () => {
    const { client, id } = await app().newUser();
    await warm(client);
    await outside('update users set user_name = ? where id = ?', ['改名之后', id]);
    expect((await client.ok('userGetLogin')).userName).toBe('改名之后');
  });
});
