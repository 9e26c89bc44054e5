import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  browserAndAdmin,
  newPhone,
  newSignedInUser,
  openScreen,
  overlaysSettled,
  pathOf,
  shot,
  siteInformation,
  toast,
} from './helpers';

// What the admin does reaches the users: a session ended on the server (ban, password reset) sends the user's phone to
// /login at once, through its event stream, with the reason; the notice bar set in /system shows on users' phones; a
// ban from /user_management.

const env = browserAndAdmin();

/** Resolves once the page's event stream is open (its answer's headers arrived: the server holds it from then on). */
const streamOpened = (page: Page) =>
  page.waitForResponse((r) => new URL(r.url()).pathname === '/api/events' && r.status() === 200);

describe('a session ended on the server mid-use', () => {
  it('banned: the phone shows the sign-in page with the reason at once, without a tap', async () => {
    const { user, api } = await newSignedInUser('ban');
    const { context, page } = await newPhone(env.browser, { session: api, announcementRead: true });
    try {
      const streaming = streamOpened(page);
      await openScreen(page, '/mall', '积分商城');
      await streaming;
      await env.adminApi.ok('userBan', { query: { id: user.id } });

      // The stream's last event says why; the phone does not wait for its next request.
      await toast(page, '账号已被封禁，请联系管理员').waitFor();
      await page.waitForURL((u) => u.pathname === '/login');
      expect(new URL(page.url()).searchParams.get('redirect')).toBe('/mall');
      await page.locator('#field-userAccount').waitFor();
      await overlaysSettled(page);
      await shot(page, 'session-ended-banned');

      // The session cookie is no good any more: a fresh load of a signed-in screen goes to /login as well.
      await page.goto('/mall');
      await page.waitForURL((u) => u.pathname === '/login');
    } finally {
      await context.close();
    }
  });

  it('password reset by the admin: the phone shows the sign-in page with the reason, and signs in again to where it was', async () => {
    const { user, api } = await newSignedInUser('reset');
    const { context, page } = await newPhone(env.browser, { session: api, announcementRead: true });
    try {
      const streaming = streamOpened(page);
      await openScreen(page, '/mall', '积分商城');
      await streaming;
      const newPassword = 'Reset3d-Passw0rd';
      await env.adminApi.ok('userBossUpdatePassword', { body: { id: user.id, newPassword } });

      await toast(page, '密码已修改，请重新登录').waitFor();
      await page.waitForURL((u) => u.pathname === '/login');
      // Nothing the signed-in screen had open (the mall's 购买须知) stays over the sign-in page.
      await expect.poll(() => page.locator('.adm-dialog').count()).toBe(0);
      await shot(page, 'session-ended-password-reset');

      // Signing in again with the new password returns the user to where they were.
      await page.locator('#field-userAccount').fill(user.userAccount);
      await page.locator('#field-userPassword').fill(newPassword);
      await page.getByRole('button', { name: '登录', exact: true }).click();
      await page.waitForURL((u) => u.pathname === '/mall');
      await page.locator('.adm-nav-bar-title', { hasText: '积分商城' }).waitFor();
    } finally {
      await context.close();
    }
  });
});

describe('the admin', () => {
  it('changes the notice bar in /system and a user sees the new text', async () => {
    const original = (await siteInformation()).noticeBar;
    const text = `系统维护通知 ${Date.now().toString(36)}`;
    const admin = await newPhone(env.browser, { session: env.adminApi, announcementRead: true });
    try {
      await openScreen(admin.page, '/system', '系统管理');
      const field = admin.page.getByLabel('滚动通知', { exact: true });
      await expect.poll(() => field.inputValue()).toBe(original); // the form shows the record as it is
      await field.fill(text);
      await shot(admin.page, 'system-form');
      await admin.page.getByRole('button', { name: '提交', exact: true }).click();
      await toast(admin.page, '保存成功').waitFor();
      expect((await siteInformation()).noticeBar).toBe(text);

      // A user on another phone: the notice bar scrolls the new text.
      const { api } = await newSignedInUser('bar');
      const user = await newPhone(env.browser, { session: api, announcementRead: true });
      try {
        await openScreen(user.page, '/', '首页');
        await expect.poll(() => user.page.locator('.adm-notice-bar-content-inner').textContent()).toBe(text);
        await shot(user.page, 'notice-bar-changed');
      } finally {
        await user.context.close();
      }
    } finally {
      await admin.context.close();
      await env.adminApi.ok('basicInformationUpdate', { body: { id: 1, noticeBar: original } });
    }
  });

  it('bans a user from /user_management: search, tap the row, 封禁, confirm; the user is signed out', async () => {
    const { user, api } = await newSignedInUser('victim');
    const victim = await newPhone(env.browser, { session: api, announcementRead: true });
    const admin = await newPhone(env.browser, { session: env.adminApi, announcementRead: true });
    try {
      await openScreen(victim.page, '/', '首页');

      const { page } = admin;
      await openScreen(page, '/user_management', '用户管理');
      await page.locator('.adm-search-bar input').fill(user.userAccount);
      await page.locator('.adm-search-bar input').press('Enter');
      await page.waitForURL((u) => u.searchParams.get('searchText') === user.userAccount);
      await page.locator('.list-total', { hasText: '共 1 条' }).waitFor();
      const row = page.locator('.adm-list-item', { hasText: `（${user.userAccount}）` });
      expect(await row.locator('.adm-list-item-content-extra').textContent()).toBe('');

      await row.click();
      const sheet = page.locator('.adm-action-sheet');
      await sheet.waitFor();
      await overlaysSettled(page);
      await shot(page, 'user-actions');
      await sheet.locator('.adm-action-sheet-button-item', { hasText: /^封禁$/ }).click();

      const confirm = page.locator('.adm-dialog .adm-dialog-body');
      await confirm.waitFor();
      await overlaysSettled(page);
      expect(await confirm.locator('.adm-dialog-content').textContent()).toBe(
        `确定封禁 ${user.userAccount}（${user.userAccount}） 吗？封禁后立即下线。`,
      );
      await shot(page, 'ban-confirm');
      await confirm.getByRole('button', { name: '确定', exact: true }).click();

      await toast(page, '操作成功').waitFor();
      await expect.poll(() => row.locator('.adm-list-item-content-extra').textContent()).toBe('已封禁');
      await confirm.waitFor({ state: 'detached' });
      await shot(page, 'user-banned');

      // The banned user's phone is on /login by itself (封禁后立即下线), with no tap of its own.
      await victim.page.waitForURL((u) => u.pathname === '/login');
      expect(pathOf(victim.page)).toBe('/login');
    } finally {
      await victim.context.close();
      await admin.context.close();
    }
  });
});
