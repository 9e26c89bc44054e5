import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/operations';
import {
  browserAndAdmin,
  keyed,
  loginApi,
  newPhone,
  openScreen,
  PASSWORD,
  uniqueAccount,
  type ApiSession,
} from './helpers';

// The admin dashboard draws its charts from data this file seeds (coins, a paid order, runs on two platforms of
// kinds no other e2e file touches), and the clock-in calendar marks today as a success day on one platform and a
// failed-only day on the other. Screenshots, light and dark, go to /tmp/shots-dash/ to be looked at.
const SHOTS = process.env.DASH_SHOT_DIR ?? '/tmp/shots-dash';
const opened = browserAndAdmin();
let user: { userAccount: string; api: ApiSession };
const platformIds: Record<'xyb' | 'zxjy', number> = { xyb: 0, zxjy: 0 };

async function save(page: Page, name: string, fullPage = false) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage, animations: 'disabled', caret: 'hide' });
}

/** The site's today (Asia/Shanghai), as the server counts days. */
const siteToday = () =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone: 'Asia/Shanghai',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(Date.now());

async function runOnce(kind: 'xyb' | 'zxjy', mode: Schemas['SandboxMode']) {
  const { adminApi } = opened;
  platformIds[kind] = await adminApi.ok('platformAdd', {
    body: { kind, name: `看板${kind}`, price: 1, billingUnit: 'per_run', retryLimit: 0, status: 1 },
  });
  const settings = { days: [1, 2, 3, 4, 5, 6, 7], checkInTime: '08:30', notify: 'inbox' };
  const saved = await user.api.ok('serviceSave', { body: { platformId: platformIds[kind], settings } });
  await adminApi.ok('serviceSandbox', { body: { id: saved.id, mode } });
  await keyed(user.api, 'serviceStart', { id: saved.id });
  await keyed(user.api, 'serviceRunNow', { id: saved.id });
  // The scheduler of the test server executes it within a second or so (set up in beforeAll, so no expect.poll).
  const want = mode === 'ok' ? 'succeeded' : 'failed';
  for (let tries = 0; ; tries++) {
    const page = await user.api.ok('runMy', { body: { serviceId: saved.id } });
    // A permanent failure of a charged run ends refunded: failed, with the coin given back.
    const states = page.records
      .filter((r) => r.trigger === 'manual')
      .map((r) => (r.state === 'refunded' ? 'failed' : r.state));
    if (states.length === 1 && states[0] === want) return;
    if (tries > 60) throw new Error(`the run on ${kind} ended ${states.join(',')}, not ${want}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

beforeAll(async () => {
  const { adminApi } = opened;
  const userAccount = uniqueAccount('dash');
  await adminApi.ok('userAdd', { body: { userAccount, userPassword: PASSWORD } });
  await keyed(adminApi, 'userAddCoin', { userAccount, coin: 50, description: 'e2e 看板' });
  user = { userAccount, api: await loginApi(userAccount, PASSWORD) };
  const packageId = await adminApi.ok('mallAdd', {
    body: { coinName: '看板套餐', amount: 1990, addCoin: 100, status: 1, sort: 0 },
  });
  const order = await keyed(user.api, 'orderSubmit', { packageId });
  await keyed(adminApi, 'orderConfirm', { id: order.id });
  await runOnce('xyb', 'ok');
  await runOnce('zxjy', 'permanent');
}, 60_000);

describe('the admin dashboard', () => {
  it('shows the figures and draws the charts; a tap shows the day; dark mode stays readable', async () => {
    const { page, context } = await newPhone(opened.browser, { session: opened.adminApi, announcementRead: true });
    try {
      // First entry of the admin group on home.
      await page.goto('/');
      await page.getByText('数据看板').first().waitFor();

      await openScreen(page, '/dashboard', '数据看板');
      // Other browser tests share this server and confirm orders too: today's revenue includes this test's ¥19.90 and
      // the card shows exactly what the operation answers.
      const { orders } = await opened.adminApi.ok('dashboardSummary');
      expect(orders.revenueToday).toBeGreaterThanOrEqual(1990);
      const revenueToday = `¥${(orders.revenueToday / 100).toFixed(2)}`;
      await page.locator('.stat-card', { hasText: '今日收入' }).getByText(revenueToday, { exact: true }).waitFor();
      await page.locator('.stat-card', { hasText: '账本核对' }).getByText('发放 − 扣除 = 持有').waitFor();
      // Four charts, each drawn on a canvas once the lazily loaded chart chunk is in.
      const charts = page.locator('.chart-card');
      await expect.poll(() => charts.count()).toBe(4);
      for (const title of ['每日收入（元）', '每日积分', '每日执行', '每日新用户']) {
        await page.locator(`.chart-card[data-chart="${title}"] canvas`).waitFor();
      }
      await save(page, 'dashboard-light', true);

      // A tap on today's bar (the right-most day) lists today's figures under the chart.
      const revenue = page.locator('.chart-card[data-chart="每日收入（元）"]');
      // Touch taps take viewport coordinates: the chart is scrolled into view first.
      await revenue.locator('.chart-canvas').scrollIntoViewIfNeeded();
      const box = (await revenue.locator('.chart-canvas').boundingBox())!;
      await page.touchscreen.tap(box.x + box.width - 20, box.y + box.height / 2);
      await revenue.getByText(`${siteToday()} 的数字`).waitFor();
      // Today's row of the series, as the operation answers it (other browser tests add runs and orders today too).
      const { series } = await opened.adminApi.ok('dashboardSeries', { query: { days: 7 } });
      const today = series.find((d) => d.day === siteToday())!;
      expect(today.runsSucceeded).toBeGreaterThanOrEqual(1);
      expect(today.runsFailed).toBeGreaterThanOrEqual(1);
      await revenue.getByText(`收入 ${revenueToday}`).waitFor();
      const runs = page.locator('.chart-card[data-chart="每日执行"]');
      await runs.locator('.chart-canvas').scrollIntoViewIfNeeded();
      const runsBox = (await runs.locator('.chart-canvas').boundingBox())!;
      await page.touchscreen.tap(runsBox.x + runsBox.width - 20, runsBox.y + runsBox.height / 2);
      await runs.getByText(`成功 ${today.runsSucceeded}`).waitFor();
      await runs.getByText(`失败 ${today.runsFailed}`).waitFor();
      await revenue.scrollIntoViewIfNeeded();
      await save(page, 'dashboard-tapped');

      await page.locator('.adm-selector-item', { hasText: '近 90 天' }).click();
      await page.locator('.chart-card[data-chart="每日收入（元）"] canvas').waitFor();

      await page.emulateMedia({ colorScheme: 'dark' });
      await page.reload();
      await page.locator('.chart-card[data-chart="每日执行"] canvas').waitFor();
      await save(page, 'dashboard-dark', true);
    } finally {
      await context.close();
    }
  });

  it('is closed to a user', async () => {
    const r = await user.api.call('dashboardSummary');
    expect([r.status, r.code]).toEqual([403, 40101]);
  });
});

describe('the clock-in calendar', () => {
  it('marks today ✓ where a run succeeded and ✕ where the only run failed; a tapped day lists its runs', async () => {
    const { page, context } = await newPhone(opened.browser, {
      session: user.api,
      announcementRead: true,
      timezoneId: 'Asia/Shanghai',
    });
    const today = siteToday();
    try {
      await openScreen(page, '/xyb', '校友邦');
      const mark = page.locator(`.calendar-mark[data-day="${today}"]`);
      await expect.poll(() => mark.textContent()).toBe('✓');
      await mark.click();
      await page.getByText(`${today} 的执行`).waitFor();
      await page.locator('.composed-calendar .adm-list-item .state-tag', { hasText: '成功' }).first().waitFor();
      await page.locator('.composed-calendar').scrollIntoViewIfNeeded();
      await save(page, 'calendar-xyb');

      await openScreen(page, '/zxjy', '职校家园');
      await expect.poll(() => page.locator(`.calendar-mark[data-day="${today}"]`).textContent()).toBe('✕');
      await page.locator('.composed-calendar').scrollIntoViewIfNeeded();
      await save(page, 'calendar-zxjy');

      // All platforms together: a day with a success anywhere is a success day.
      await openScreen(page, '/clockInfo', '账号信息');
      await expect.poll(() => page.locator(`.calendar-mark[data-day="${today}"]`).textContent()).toBe('✓');
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.locator('.composed-calendar').scrollIntoViewIfNeeded();
      await save(page, 'calendar-clockInfo-dark');

      // The previous month: nothing marked this month's way.
      await page.getByRole('button', { name: '上个月' }).click();
      await expect.poll(() => page.locator(`.calendar-mark[data-day="${today}"]`).count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
