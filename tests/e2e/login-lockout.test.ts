import { describe, expect, it } from 'vitest';
import {
  ApiSession,
  browserAndAdmin,
  loginThroughUi,
  newPhone,
  overlaysSettled,
  pathOf,
  registerUser,
  shot,
  toast,
} from './helpers';

// Password guessing with device cookies (OWASP) in Chromium: the owner's phone signed in once, so it holds the
// account's device cookie; a stranger who knows the account name fails the password and locks the account for
// unknown browsers, yet the owner signs in from its phone with the right password.

const opened = browserAndAdmin();

const WRONG = 'Wrong-passw0rd';
const YEAR_S = 365 * 24 * 60 * 60;

describe('陌生设备登录锁定', () => {
  it('a stranger’s wrong passwords lock unknown browsers out, never the owner’s known phone', async () => {
    const user = await registerUser('lock');
    const owner = await newPhone(opened.browser, { announcementRead: true });
    const stranger = await newPhone(opened.browser, { announcementRead: true });
    try {
      // The owner signs in once: the phone keeps the account's device cookie (for the login operations only).
      await loginThroughUi(owner.page, user.userAccount, user.userPassword);
      const device = (await owner.context.cookies()).find((c) => c.name === `did_${user.id}`);
      expect(device).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/api/user/login' });
      expect(device!.expires - Date.now() / 1000).toBeGreaterThan(YEAR_S - 60);
      // ... and signs out with 退出 on 我的.
      await owner.page.goto('/about');
      await owner.page.getByRole('button', { name: '退出', exact: true }).click();
      await owner.page.waitForURL((u) => u.pathname === '/login');

      // A stranger: five wrong passwords from a client with no device cookie ...
      for (let i = 0; i < 5; i++) {
        const r = await new ApiSession().call('userLogin', {
          body: { userAccount: user.userAccount, userPassword: WRONG },
        });
        expect([r.code, r.message]).toEqual([40000, '账号或密码错误']);
      }
      // ... then at /login in its own browser: locked, even with the right password, and told why.
      await stranger.page.goto('/login');
      await stranger.page.locator('#field-userAccount').fill(user.userAccount);
      await stranger.page.locator('#field-userPassword').fill(user.userPassword);
      await stranger.page.getByRole('button', { name: '登录', exact: true }).click();
      await toast(stranger.page, '该账号在陌生设备上登录失败次数过多，已暂时锁定陌生设备登录').waitFor();
      await overlaysSettled(stranger.page);
      await shot(stranger.page, 'login-lockout-stranger');
      expect(pathOf(stranger.page)).toBe('/login');
      expect((await stranger.context.cookies()).map((c) => c.name)).not.toContain('sid');

      // The owner, on its known phone, signs in with the right password and lands signed in.
      await loginThroughUi(owner.page, user.userAccount, user.userPassword);
      expect(pathOf(owner.page)).toBe('/');
      await owner.page.locator('.app-tabbar').getByText('我的', { exact: true }).click();
      await owner.page.locator('.home-hero', { hasText: user.userAccount }).waitFor();
      await owner.page.locator('.adm-toast-main').waitFor({ state: 'detached' });
      await shot(owner.page, 'login-lockout-owner');
    } finally {
      await owner.context.close();
      await stranger.context.close();
    }
  });
});
