import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './a11y-checks';
import {
  browserAndAdmin,
  loginApi,
  newPhone,
  openScreen,
  overlaysSettled,
  PASSWORD,
  pathOf,
  rowAction,
  sandboxPayment,
  shot,
  uniqueAccount,
  type ApiSession,
} from './helpers';

// Buying coins online on a 390×844 phone, through the sandbox payment channel built into the product (its cashier is
// /cashier, 模拟收银台): a method picked in /mall, the cashier, the channel's signed notification over loopback, and
// the result page (/pay_result) that shows 支付成功 and the new balance as the payment settles, without a reload; a
// notification lost on purpose that 重新查询 finds through the channel's order query; a failed payment, the unpaid
// order answered again from /mall, 去支付 from 我的订单, and a cancelled order's 订单已关闭.

const env = browserAndAdmin();
/** Well under the result page's own timer (5 s without the event stream): only the event can be this quick. */
const SOON = { timeout: 4000, interval: 100 };

let buyer: { userAccount: string; api: ApiSession };
const stamp = Date.now().toString(36).slice(-4);
const PACKAGE = { name: `在线套餐${stamp}`, amount: 990, addCoin: 120 };

beforeAll(async () => {
  // On by default at a localhost PUBLIC_ORIGIN; said here, since another file may have switched it.
  await sandboxPayment(env.adminApi, true);
  await env.adminApi.ok('mallAdd', {
    body: { coinName: PACKAGE.name, amount: PACKAGE.amount, addCoin: PACKAGE.addCoin, status: 1, sort: 0 },
  });
  const userAccount = uniqueAccount('payer');
  await env.adminApi.ok('userAdd', { body: { userAccount, userPassword: PASSWORD } });
  buyer = { userAccount, api: await loginApi(userAccount, PASSWORD) };
});

const balance = async () => (await buyer.api.ok('userGetLogin')).coin;
const phone = () =>
  newPhone(env.browser, {
    session: buyer.api,
    announcementRead: true,
    mallNoticeRead: true,
    timezoneId: 'Asia/Shanghai',
  });

/** Marks the page, so a reload (which would also show fresh figures) is caught. */
const markPage = (page: Page) => page.evaluate(() => ((window as unknown as { __kept: boolean }).__kept = true));
const stillSamePage = (page: Page) => page.evaluate(() => (window as unknown as { __kept?: boolean }).__kept === true);

/** From /mall: the package tapped, a method picked, and the phone on the cashier's page; answers the order number. */
async function toCashier(page: Page, method: string, shotName?: string): Promise<string> {
  await openScreen(page, '/mall', '积分商城');
  await page.locator('.mall-item', { hasText: PACKAGE.name }).click();
  const dialog = page.getByRole('dialog', { name: `购买「${PACKAGE.name}」` });
  await dialog.getByRole('radio', { name: method }).check();
  await overlaysSettled(page);
  if (shotName) await shot(page, shotName);
  await dialog.getByRole('button', { name: '去付款 ¥9.90' }).click();
  await page.waitForURL((u) => u.pathname === '/cashier');
  await page.locator('.cashier-amount', { hasText: '¥9.90' }).waitFor();
  return new URL(page.url()).searchParams.get('out_trade_no')!;
}

/** The result page of an order, opened on its own (as the cashier's return_url would open it). */
async function resultPage(context: BrowserContext, orderNo: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`/pay_result?out_trade_no=${orderNo}`);
  await page.locator('.adm-nav-bar-title', { hasText: '支付结果' }).waitFor();
  return page;
}

const heading = (page: Page, text: string) => page.locator('.adm-result-title', { hasText: text });

describe('paying online through the cashier', () => {
  it('buys a package: method, cashier, 支付成功 and the new balance, without a reload', async () => {
    const before = await balance();
    const { context, page } = await phone();
    try {
      const orderNo = await toCashier(page, '微信支付', 'pay-mall-methods');
      // The cashier names what is paid and says that no money moves.
      const cashier = page.locator('main');
      expect(await cashier.textContent()).toContain('这是模拟收银台，不会扣除真实的钱。');
      expect(await cashier.textContent()).toContain(PACKAGE.name);
      expect(await cashier.textContent()).toContain('微信支付');
      expect(await cashier.textContent()).toContain(orderNo);
      expect(await page.locator('.app-tabbar').count()).toBe(0);
      await shot(page, 'pay-cashier');
      await expectAccessible(page);
      await page.locator('.cashier-notify summary').click();
      await shot(page, 'pay-cashier-notify');
      await page.locator('.cashier-notify summary').click();

      // A second tab waits on the order's result page before anything is paid.
      const waiting = await resultPage(context, orderNo);
      await heading(waiting, '等待支付结果').waitFor();
      await markPage(waiting);
      await shot(waiting, 'pay-result-waiting');
      await expectAccessible(waiting);

      await page.getByRole('button', { name: '确认付款' }).click();
      await page.waitForURL((u) => u.pathname === '/pay_result');
      await heading(page, '支付成功').waitFor();
      const shown = `当前余额 ${before + PACKAGE.addCoin} 积分`;
      await page.getByText(shown).waitFor();
      expect(await page.locator('main').textContent()).toContain(`${PACKAGE.addCoin} 积分已到账`);
      await shot(page, 'pay-result-paid');
      await expectAccessible(page);
      expect(await balance()).toBe(before + PACKAGE.addCoin);

      // The waiting tab heard the order settle: 支付成功 and the new balance, on the same page.
      await expect.poll(() => heading(waiting, '支付成功').count(), SOON).toBe(1);
      await expect.poll(() => waiting.getByText(shown).count(), SOON).toBe(1);
      expect(await stillSamePage(waiting)).toBe(true);
      await waiting.close();

      // Back in the app: the mall shows the balance, 我的订单 the order paid with its method.
      await page.getByRole('button', { name: '返回商城' }).click();
      await page.waitForURL((u) => u.pathname === '/mall');
      await expect.poll(() => page.locator('.mall-bar strong').textContent()).toBe(String(before + PACKAGE.addCoin));
      await page.getByRole('link', { name: '我的订单' }).click();
      const row = page.locator('.adm-list-item', { hasText: orderNo });
      await row.filter({ hasText: '已到账' }).waitFor();
      expect(await row.textContent()).toContain('微信支付');
    } finally {
      await context.close();
    }
  });

  it('不发通知: nothing arrives by itself, and 重新查询 finds the payment through the channel', async () => {
    const before = await balance();
    const { context, page } = await phone();
    try {
      const orderNo = await toCashier(page, '支付宝');
      const waiting = await resultPage(context, orderNo);
      await heading(waiting, '等待支付结果').waitFor();
      await markPage(waiting);
      // The page asks by itself too (on a timer while its event stream connects, once more when it has): on a slow
      // host that would find the payment before 重新查询 does. Until the button is tapped, its own checks are answered
      // with the order as it stands now, unpaid; the button's check goes through.
      const unpaid = await waiting.evaluate(async (no) => {
        const answer = await fetch('/api/order/check', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'X-Requested-With': 'XMLHttpRequest' },
          body: JSON.stringify({ orderNo: no }),
        });
        return (await answer.json()) as unknown;
      }, orderNo);
      // Held for every page of the phone: the cashier's tab goes on to /pay_result after paying, and that page asks
      // too. (Aborting its navigation is not enough: the service worker fetches pages itself, out of a route's reach.)
      let held = true;
      await context.route('**/api/order/check', (route) => (held ? route.fulfill({ json: unpaid }) : route.continue()));

      // Paid, the notification lost on purpose, and the payer never comes back from the cashier.
      await page.locator('.cashier-notify summary').click();
      await page.getByRole('radio', { name: '不发通知（由站点查单补上）' }).check();
      const acted = page.waitForResponse((r) => r.url().includes('/api/pay/sandbox/act'));
      await page.getByRole('button', { name: '确认付款' }).click();
      expect((await acted).status()).toBe(200);
      await page.close();

      // No notification, no event: the order is still unpaid on the site. (And the server asks the gateways about an
      // order at most once every 5 s: the check above had it ask, so 重新查询 comes after that.)
      await waiting.waitForTimeout(5200);
      expect(await heading(waiting, '等待支付结果').count()).toBe(1);
      expect(await balance()).toBe(before);

      held = false;
      await waiting.getByRole('button', { name: '重新查询' }).click();
      await heading(waiting, '支付成功').waitFor();
      await waiting.getByText(`当前余额 ${before + PACKAGE.addCoin} 积分`).waitFor();
      expect(await stillSamePage(waiting)).toBe(true);
      expect(await balance()).toBe(before + PACKAGE.addCoin);
      await shot(waiting, 'pay-result-rechecked');
    } finally {
      await context.close();
    }
  });

  it('a failed payment waits; the mall answers the same order; 去支付 from 我的订单; cancelled, 订单已关闭', async () => {
    const { context, page } = await phone();
    try {
      const orderNo = await toCashier(page, '支付宝');
      await page.getByRole('button', { name: '付款失败' }).click();
      await page.waitForURL((u) => u.pathname === '/pay_result');
      await heading(page, '等待支付结果').waitFor();
      await page.getByRole('button', { name: '重新付款' }).waitFor();
      await shot(page, 'pay-result-failed');

      // Tapping the package again answers the unpaid order there, and says so before the cashier.
      await openScreen(page, '/mall', '积分商城');
      await page.locator('.mall-item', { hasText: PACKAGE.name }).click();
      const dialog = page.getByRole('dialog', { name: `购买「${PACKAGE.name}」` });
      await dialog.getByRole('radio', { name: 'QQ 钱包' }).check();
      await dialog.getByRole('button', { name: '去付款 ¥9.90' }).click();
      await dialog
        .getByRole('status')
        .filter({ hasText: `你已有这个套餐的待付款订单（${orderNo}）` })
        .waitFor();
      await shot(page, 'pay-mall-reused');
      await page.waitForURL((u) => u.pathname === '/cashier');
      expect(new URL(page.url()).searchParams.get('out_trade_no')).toBe(orderNo);
      await page.locator('.cashier-facts', { hasText: 'QQ 钱包' }).waitFor();

      // 我的订单: the method and until when it can be paid; 去支付 picks a method again.
      await openScreen(page, '/my_orders', '我的订单');
      const row = page.locator('.adm-list-item', { hasText: orderNo });
      await row.filter({ hasText: '待付款' }).waitFor();
      expect(await row.textContent()).toMatch(/QQ 钱包 · \d{4}-\d{2}-\d{2} \d{2}:\d{2} 前付款/);
      await shot(page, 'pay-my-orders');
      await rowAction(page, orderNo, '去支付');
      const again = page.getByRole('dialog', { name: `支付订单「${PACKAGE.name}」` });
      await again.getByRole('radio', { name: '微信支付' }).check();
      await overlaysSettled(page);
      await shot(page, 'pay-my-orders-choose');
      await expectAccessible(page);
      await again.getByRole('button', { name: '去付款' }).click();
      await page.waitForURL((u) => u.pathname === '/cashier');
      await page.locator('.cashier-facts', { hasText: '微信支付' }).waitFor();
      expect(new URL(page.url()).searchParams.get('out_trade_no')).toBe(orderNo);

      // Cancelled from 我的订单: its result page says 订单已关闭 and offers 重新下单.
      await openScreen(page, '/my_orders', '我的订单');
      await rowAction(page, orderNo, '取消订单');
      await page.getByRole('dialog').getByRole('button', { name: '取消订单' }).click();
      await page.locator('.adm-list-item', { hasText: orderNo }).filter({ hasText: '已取消' }).waitFor();
      await page.goto(`/pay_result?out_trade_no=${orderNo}`);
      await heading(page, '订单已关闭').waitFor();
      await shot(page, 'pay-result-closed');
      await expectAccessible(page);
      await page.getByRole('button', { name: '重新下单' }).click();
      await page.waitForURL((u) => u.pathname === '/mall');
      expect(pathOf(page)).toBe('/mall');
    } finally {
      await context.close();
    }
  });

  it('a cashier address without its signed parameters says what to do, for visitors too', async () => {
    const { context, page } = await newPhone(env.browser);
    try {
      await page.goto('/cashier?out_trade_no=261126K7P2MQXA');
      await page.getByText('付款链接不完整').waitFor();
      await page.getByRole('link', { name: '回到商城重新下单' }).waitFor();
      await shot(page, 'pay-cashier-bad-link');
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });
});
