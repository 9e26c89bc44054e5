import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  browserAndAdmin,
  keyed,
  newPhone,
  newSignedInUser,
  openScreen,
  overlaysSettled,
  pathOf,
  shot,
  type ApiSession,
} from './helpers';

// Issue 35 ("No dead ends") in Chromium at 390×844: each fixed screen is opened and photographed
// (test-results/e2e/dead-ends-*.png) to be looked at; the rules themselves are checked in tests/web/no-dead-ends.
const opened = browserAndAdmin();
let user: ApiSession;

beforeAll(async () => {
  ({ api: user } = await newSignedInUser('deadend'));
});

/** 每日执行 over a week with every kind of run each day, so all three series are drawn. */
async function fakeSeries(page: Page) {
  const days = Array.from({ length: 7 }, (_, i) => ({
    day: `2027-03-0${i + 1}`,
    revenue: 1990 * i,
    coinsIssued: 10 * i,
    coinsSpent: 5 * i,
    runsSucceeded: 3 + (i % 3),
    runsFailed: 1 + (i % 2),
    runsSkipped: 2,
    newUsers: i,
  }));
  await page.route('**/api/dashboard/series**', (route) =>
    route.fulfill({
      json: { status: 200, code: 0, message: 'ok', data: { days: 7, timeZone: 'Asia/Shanghai', series: days } },
    }),
  );
}

describe('no dead ends', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    it(`/dashboard draws 成功 green, 失败 red, 跳过 grey (${colorScheme})`, async () => {
      const { page, context } = await newPhone(opened.browser, {
        session: opened.adminApi,
        announcementRead: true,
        colorScheme,
      });
      try {
        await fakeSeries(page);
        await openScreen(page, '/dashboard', '数据看板');
        const chart = page.locator('[data-chart="每日执行"]');
        await chart.locator('canvas').waitFor();
        await chart.scrollIntoViewIfNeeded();
        await page.waitForTimeout(300);
        await shot(page, `dead-ends-dashboard-${colorScheme}`);
      } finally {
        await context.close();
      }
    });
  }

  it('tabs replace one another; 我的 goes back to 首页', async () => {
    // Passing through 积分商城: its 购买须知 (shown once per browser session when the site has one) is read already.
    const { page, context } = await newPhone(opened.browser, {
      session: user,
      announcementRead: true,
      mallNoticeRead: true,
    });
    try {
      await page.goto('/');
      await page.locator('.app-tabbar').waitFor();
      const depth = await page.evaluate(() => history.length);
      for (const tab of ['积分商城', '信息中台', '我的'])
        await page.locator('.app-tabbar').getByText(tab, { exact: true }).click();
      await page.waitForURL((u) => u.pathname === '/about');
      expect(await page.evaluate(() => history.length)).toBe(depth);
      await shot(page, 'dead-ends-tab-about');
      await page.getByRole('button', { name: '返回' }).click();
      await page.waitForURL((u) => u.pathname === '/');
      expect(pathOf(page)).toBe('/');
    } finally {
      await context.close();
    }
  });

  it('/my_orders asks [再想想][取消订单]', async () => {
    const packageId = await opened.adminApi.ok('mallAdd', {
      body: { coinName: '断路套餐', amount: 990, addCoin: 10, status: 1, sort: 0 },
    });
    await keyed(user, 'orderSubmit', { packageId });
    const { page, context } = await newPhone(opened.browser, { session: user, announcementRead: true });
    try {
      await openScreen(page, '/my_orders', '我的订单');
      await page.locator('.adm-list-item', { hasText: '断路套餐' }).first().click();
      await page.locator('.app-action-menu').getByText('取消订单').click();
      const ask = page.locator('.adm-dialog', { hasText: '确定取消订单' });
      await ask.getByRole('button', { name: '再想想' }).waitFor();
      await overlaysSettled(page);
      await shot(page, 'dead-ends-my-orders-cancel');
      await ask.getByRole('button', { name: '再想想' }).click();
    } finally {
      await context.close();
    }
  });

  it('/add_mall says 请输入正确的金额; /subordinate has 返回首页; a first platform setup says 开通 and 请选择', async () => {
    const admin = await newPhone(opened.browser, { session: opened.adminApi, announcementRead: true });
    try {
      await openScreen(admin.page, '/add_mall', '添加积分套餐');
      await admin.page.getByLabel('价格（元）').fill('abc');
      await admin.page.getByRole('button', { name: '提交' }).click();
      await admin.page.getByText('请输入正确的金额').waitFor();
      await shot(admin.page, 'dead-ends-add-mall');
    } finally {
      await admin.context.close();
    }
    const { page, context } = await newPhone(opened.browser, { session: user, announcementRead: true });
    try {
      await openScreen(page, '/subordinate', '代理');
      await page.getByRole('button', { name: '返回首页' }).waitFor();
      await shot(page, 'dead-ends-subordinate');
      // A clock-in platform on shelf that no other file uses, so its edit page shows the form.
      await opened.adminApi.ok('platformAdd', {
        body: { kind: 'sxzs', name: '断路实习', price: 1, billingUnit: 'per_run', retryLimit: 0, status: 1 },
      });
      await openScreen(page, '/sxzs/update', '开通云实习助手服务');
      await page.getByRole('button', { name: '提交' }).click();
      await page.locator('#root_days__error', { hasText: '请选择打卡日' }).waitFor();
      await page.locator('#root_checkInTime__error', { hasText: '请选择签到时间' }).waitFor();
      expect(await page.getByText(/请填写/).count()).toBe(0);
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot(page, 'dead-ends-gxy-update');
    } finally {
      await context.close();
    }
  });
});
