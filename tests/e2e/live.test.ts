import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserAndAdmin, keyed, newPhone, newSignedInUser, openScreen, shot } from './helpers';

// Screens that move by themselves: the unread badge and a platform page change on a phone without a reload or a
// navigation, because the server's event stream tells them to read again (no screen here polls that fast: without
// the stream, the badge would wait a minute and the page twenty seconds).

const env = browserAndAdmin();
/** Well under the fallback polls (60 s for the badge, 20 s for a page): only the event stream can be this quick. */
const SOON = { timeout: 8000, interval: 100 };

/** Marks the page, so a reload (which would also show fresh figures) is caught. */
const markPage = (page: Page) => page.evaluate(() => ((window as any).__notReloaded = true));
const stillSamePage = (page: Page) => page.evaluate(() => (window as any).__notReloaded === true);

describe('live updates on a phone', () => {
  it('the unread badge moves when coins arrive from another user, without a reload', async () => {
    const receiver = await newSignedInUser('live');
    const payer = await newSignedInUser('livepay');
    await keyed(env.adminApi, 'userAddCoin', {
      userAccount: payer.user.userAccount,
      coin: 10,
      description: 'e2e 实时',
    });
    const { context, page } = await newPhone(env.browser, { session: receiver.api, announcementRead: true });
    try {
      await openScreen(page, '/about', '我的');
      const badge = page.locator('.app-tabbar .adm-badge-content');
      await expect.poll(() => page.evaluate(() => document.readyState)).toBe('complete');
      expect(await badge.count()).toBe(0);
      await markPage(page);
      await keyed(payer.api, 'userTransferCoin', { userAccount: receiver.user.userAccount, coin: 3 });
      await expect.poll(() => badge.textContent(), SOON).toBe('1');
      expect(await stillSamePage(page)).toBe(true);
      await shot(page, 'live-badge');
    } finally {
      await context.close();
    }
  });

  it('a platform page shows a run started elsewhere and its success, without a reload', async () => {
    const listed = await env.adminApi.ok('platformListPage', { body: { kind: 'xyb', current: 1, pageSize: 10 } });
    const platform = listed.records[0]!;
    await env.adminApi.ok('platformUpdate', { body: { id: platform.id, price: 1, status: 1 } });
    try {
      const { user, api } = await newSignedInUser('liverun');
      await keyed(env.adminApi, 'userAddCoin', { userAccount: user.userAccount, coin: 10, description: 'e2e 实时' });
      const settings = { days: [1, 2, 3, 4, 5], checkInTime: '08:30', notify: 'inbox' } as const;
      const service = await api.ok('serviceSave', { body: { platformId: platform.id, settings } });
      await keyed(api, 'serviceStart', { id: service.id });
      const { context, page } = await newPhone(env.browser, {
        session: api,
        announcementRead: true,
        timezoneId: 'Asia/Shanghai',
      });
      try {
        await openScreen(page, '/xyb', platform.name);
        await page.locator('.state-tag', { hasText: '运行中' }).waitFor();
        const total = page.locator('.adm-list-item', { hasText: '累计成功' });
        await total.filter({ hasText: '0' }).waitFor();
        await markPage(page);
        // Run now from another device (the API): this page did nothing to look again.
        await keyed(api, 'serviceRunNow', { id: service.id });
        await expect.poll(() => total.filter({ hasText: '1' }).count(), SOON).toBe(1);
        await page
          .locator('.adm-list-item', { hasText: '手动' })
          .locator('.state-tag', { hasText: '成功' })
          .waitFor(SOON);
        expect(await stillSamePage(page)).toBe(true);
        await shot(page, 'live-platform');
      } finally {
        await context.close();
      }
    } finally {
      await env.adminApi.ok('platformUpdate', { body: { id: platform.id, status: 0 } });
    }
  });
});
