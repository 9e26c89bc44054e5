import { describe, expect, it } from 'vitest';
import {
  answerDialog,
  browserAndAdmin,
  loginThroughUi,
  newPhone,
  newSignedInUser,
  openScreen,
  overlaysSettled,
  pathOf,
  rowAction,
  shot,
  toast,
} from './helpers';

// 我的 → 登录设备 in Chromium: a user signed in on two phones sees both, this one marked, and ends the other; the
// other phone's next step finds itself signed out.

const opened = browserAndAdmin();

describe('登录设备', () => {
  it('lists my sessions and ends the other phone’s', async () => {
    const { user, api } = await newSignedInUser('dev');
    const here = await newPhone(opened.browser, { session: api, announcementRead: true });
    const there = await newPhone(opened.browser, { announcementRead: true });
    try {
      await loginThroughUi(there.page, user.userAccount, user.userPassword);

      await openScreen(here.page, '/sessions', '登录设备');
      const rows = here.page.locator('.adm-list-item');
      await rows.nth(1).waitFor();
      expect(await rows.count()).toBe(2);
      await here.page.getByText('当前设备').waitFor();
      await overlaysSettled(here.page);
      await shot(here.page, 'login-devices');

      // The other one is the browser that signed in through the page: Chrome, named by its User-Agent.
      const other = (await rows.allTextContents()).find((text) => !text.includes('当前设备'))!;
      expect(other).toMatch(/Chrome/);
      await rowAction(here.page, other.split('·')[0]!.trim(), '退出该设备');
      await answerDialog(here.page, '确定让');
      await toast(here.page, '已退出该设备').waitFor();
      await here.page.waitForFunction(() => document.querySelectorAll('.adm-list-item').length === 1);

      // The other phone is signed out at its next step.
      await there.page.goto('/transferCoin');
      await there.page.waitForURL((u) => u.pathname === '/login');
      expect(pathOf(there.page)).toBe('/login');
    } finally {
      await here.context.close();
      await there.context.close();
    }
  });
});
