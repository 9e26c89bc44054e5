import { describe, expect, it } from 'vitest';
import { ApiClient } from '../helpers/client.js';
import { PASSWORD, useTestApp, type TestApp } from '../helpers/test-app.js';

// 我的 → 登录设备: every session still in use, with the device it was signed in from; ending one or all others; an
// admin's view of a user's sessions (audited); a notice when a new browser signs in.

const ANDROID_CHROME =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
const IPHONE_SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const WINDOWS_EDGE =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0';

const app = useTestApp();

/** A browser signed in as the account, from `ip` with `userAgent`. */
async function signIn(t: TestApp, userAccount: string, userAgent: string, ip: string): Promise<ApiClient> {
  const c = t.client();
  await c.ok('userLogin', { body: { userAccount, userPassword: PASSWORD }, headers: { 'user-agent': userAgent }, ip });
  return c;
}

const newSignInNotices = async (c: ApiClient) =>
  (await c.ok('noticeMy', { body: { current: 1, pageSize: 50 } })).records.filter(
    (n: { kind: string }) => n.kind === 'new_sign_in',
  );

describe('登录设备', () => {
  it('lists my sessions still in use with browser, system, address and times; the current one is marked', async () => {
    const t = app();
    const { userAccount } = await t.newUser();
    const phone = await signIn(t, userAccount, ANDROID_CHROME, '203.0.113.7');
    t.clock.advance(60_000);
    const laptop = await signIn(t, userAccount, WINDOWS_EDGE, '198.51.100.20');

    const page = await phone.ok('sessionList');
    const byBrowser = new Map(page.records.map((s: { browser: string }) => [s.browser, s]));
    expect(byBrowser.get('Chrome 131')).toMatchObject({ system: 'Android 14', address: '203.0.113.7', current: true });
    expect(byBrowser.get('Microsoft Edge 131')).toMatchObject({
      system: 'Windows 10',
      address: '198.51.100.20',
      current: false,
    });
    // Most recently used first, and the laptop sees itself as current.
    expect((await laptop.ok('sessionList')).records[0]).toMatchObject({ browser: 'Microsoft Edge 131', current: true });
    expect(page.records.every((s: { id: string }) => /^[A-Za-z0-9_-]{16}$/.test(s.id))).toBe(true);
  });

  it('ends another device: its next request answers 40001 with a sentence, mine goes on', async () => {
    const t = app();
    const { userAccount } = await t.newUser();
    const phone = await signIn(t, userAccount, ANDROID_CHROME, '203.0.113.7');
    const laptop = await signIn(t, userAccount, WINDOWS_EDGE, '198.51.100.20');
    const laptopSession = (await phone.ok('sessionList')).records.find(
      (s: { browser: string }) => s.browser === 'Microsoft Edge 131',
    )!;

    expect((await phone.call('sessionEnd', { body: { id: laptopSession.id } })).code).toBe(0);
    const after = await laptop.call('userGetLogin');
    expect([after.status, after.code, after.message]).toEqual([401, 40001, '这台设备已被退出登录，请重新登录']);
    expect((await phone.call('userGetLogin')).code).toBe(0);
    // Gone from the list; ending it again (or one that never was) is 404, the current one is refused.
    const left = (await phone.ok('sessionList')).records;
    expect(left.map((s: { id: string }) => s.id)).not.toContain(laptopSession.id);
    expect((await phone.call('sessionEnd', { body: { id: laptopSession.id } })).code).toBe(40400);
    const current = left.find((s: { current: boolean }) => s.current);
    expect((await phone.call('sessionEnd', { body: { id: current.id } })).code).toBe(40000);
  });

  it('ends all other devices and keeps the current one', async () => {
    const t = app();
    const { userAccount } = await t.newUser();
    const devices = [
      await signIn(t, userAccount, ANDROID_CHROME, '203.0.113.7'),
      await signIn(t, userAccount, IPHONE_SAFARI, '203.0.113.8'),
      await signIn(t, userAccount, WINDOWS_EDGE, '198.51.100.20'),
    ];
    const before = (await devices[1]!.ok('sessionList')).total;
    expect(await devices[1]!.ok('sessionEndOthers')).toEqual({ ended: before - 1 });
    expect((await devices[0]!.call('userGetLogin')).code).toBe(40001);
    expect((await devices[2]!.call('userGetLogin')).code).toBe(40001);
    expect((await devices[1]!.call('userGetLogin')).code).toBe(0);
    expect((await devices[1]!.ok('sessionList')).records).toHaveLength(1);
  });

  it('another user can neither list nor end my sessions; an admin can, and the end is audited', async () => {
    const t = app();
    const me = await t.newUser();
    const other = await t.newUser();
    const phone = await signIn(t, me.userAccount, ANDROID_CHROME, '203.0.113.7');
    const mine = (await phone.ok('sessionList')).records.find((s: { current: boolean }) => s.current);

    expect((await other.client.call('sessionList', { query: { userId: me.id } })).code).toBe(40101);
    expect((await other.client.call('sessionEnd', { body: { id: mine.id, userId: me.id } })).code).toBe(40101);
    // Without userId the id is looked up among the caller's own sessions: not found, nothing ended.
    expect((await other.client.call('sessionEnd', { body: { id: mine.id } })).code).toBe(40400);
    expect((await phone.call('userGetLogin')).code).toBe(0);

    const admin = await t.admin();
    const listed = await admin.ok('sessionList', { query: { userId: me.id } });
    expect(listed.records.some((s: { id: string; current: boolean }) => s.id === mine.id && !s.current)).toBe(true);
    expect((await admin.call('sessionEnd', { body: { id: mine.id, userId: me.id } })).code).toBe(0);
    expect((await phone.call('userGetLogin')).code).toBe(40001);
    const audit = await t.built.context.db
      .selectFrom('auditLog')
      .selectAll()
      .where('action', '=', 'session.end')
      .where('targetId', '=', String(me.id))
      .execute();
    expect(audit).toHaveLength(1);
  });

  it('a sign-in from a browser not seen before leaves a notice; the same browser again, or the first ever, does not', async () => {
    const t = app();
    const { userAccount } = await t.newUser(); // registered and signed in by the test client (no User-Agent)
    const first = await signIn(t, userAccount, ANDROID_CHROME, '203.0.113.7');
    expect(await newSignInNotices(first)).toHaveLength(1); // a browser other than the test client's

    await signIn(t, userAccount, ANDROID_CHROME, '203.0.113.9');
    expect(await newSignInNotices(first)).toHaveLength(1); // the same browser: nothing new

    await signIn(t, userAccount, IPHONE_SAFARI, '198.51.100.20');
    const notices = await newSignInNotices(first);
    expect(notices).toHaveLength(2);
    expect(notices[0]).toMatchObject({ title: '新设备登录' });
    expect(notices[0].body).toContain('Safari 17 · iOS 17');
    expect(notices[0].body).toContain('198.51.100.20');
  });

  it("a user's first sign-in ever leaves no notice", async () => {
    const t = app();
    const admin = await t.admin();
    const userAccount = `fresh${Date.now().toString(36).slice(-6)}`;
    await admin.ok('userAdd', { body: { userAccount, userPassword: PASSWORD } });
    const phone = await signIn(t, userAccount, ANDROID_CHROME, '203.0.113.7');
    expect(await newSignInNotices(phone)).toHaveLength(0);
  });
});
