import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PASSWORD,
  answerDialog,
  dialog,
  keyed,
  launchBrowser,
  loginAdmin,
  loginApi,
  newPhone,
  overlaysSettled,
  openScreen as open,
  pathOf,
  rowAction,
  sandboxPayment,
  shot,
  siteInformation,
  toast,
  uniqueAccount,
  url,
  type ApiSession,
  type TestUser,
} from './helpers';

// Coins moving through the screens: a user buys a package in /mall and the admin confirms the payment in
// /order_management; a transfer through /transferCoin; a redeem code used on my page. The users are made by the
// admin (userAdd), which the per-address registration limit does not count.

let browser: Browser;
let adminApi: ApiSession;
let buyer: TestUser & { api: ApiSession };
let payee: TestUser & { api: ApiSession };

async function addUser(prefix: string): Promise<TestUser & { api: ApiSession }> {
  const userAccount = uniqueAccount(prefix);
  const id = await adminApi.ok('userAdd', { body: { userAccount, userPassword: PASSWORD } });
  return { id: Number(id), userAccount, userPassword: PASSWORD, api: await loginApi(userAccount, PASSWORD) };
}

const balanceOf = async (session: ApiSession) => (await session.ok('userGetLogin')).coin;

beforeAll(async () => {
  browser = await launchBrowser();
  adminApi = await loginAdmin();
  buyer = await addUser('buyer');
  payee = await addUser('payee');
});
afterAll(async () => {
  await browser?.close();
});

/** The value shown beside 积分余额 on my page. */
const shownBalance = (page: Page) =>
  page.locator('.adm-list-item', { hasText: '积分余额' }).locator('.adm-list-item-content-extra');

describe('buying a package', () => {
  const name = `套餐${Date.now().toString(36).slice(-4)}`;
  // Paid offline (no payment channel on): the admin confirms it. Online payment is tests/e2e/payment.test.ts.
  beforeAll(() => sandboxPayment(adminApi, false));
  afterAll(() => sandboxPayment(adminApi, true));

  it('the admin adds a package in /add_mall, the user buys it, the admin confirms the payment and the coins arrive', async () => {
    const admin = await newPhone(browser, { session: adminApi, announcementRead: true });
    const user = await newPhone(browser, { session: buyer.api, announcementRead: true });
    try {
      // The admin adds it through the generated form: the price is typed in yuan and sent in fen.
      await open(admin.page, '/mall_management', '商城管理');
      await admin.page.getByRole('button', { name: '添加套餐' }).click();
      await admin.page.waitForURL((u) => u.pathname === '/add_mall');
      await admin.page.getByLabel('套餐名称').fill(name);
      await admin.page.getByLabel('价格（元）').fill('9.9');
      await admin.page.getByLabel('到账积分').fill('120');
      await admin.page.getByLabel('排序值（小的在前）').fill('0');
      await shot(admin.page, 'add-mall');
      await admin.page.getByRole('button', { name: '提交' }).click();
      await admin.page.waitForURL((u) => u.pathname === '/mall_management');
      await admin.page.locator('.adm-list-item', { hasText: `${name} · ¥9.90` }).waitFor();
      await shot(admin.page, 'mall-management');
      const added = (await adminApi.ok('mallListPage', { body: { current: 1, pageSize: 100, searchText: name } }))
        .records[0]!;
      expect(added).toMatchObject({ coinName: name, amount: 990, addCoin: 120, status: 1 });

      // The user's first visit to /mall shows how to pay, once.
      const before = await balanceOf(buyer.api);
      const { pointsNotification } = await siteInformation();
      await open(user.page, '/mall', '积分商城');
      await dialog(user.page).filter({ hasText: '购买须知' }).waitFor();
      await overlaysSettled(user.page);
      expect(await dialog(user.page).locator('.adm-dialog-content').textContent()).toContain(pointsNotification);
      await shot(user.page, 'mall-notice');
      await answerDialog(user.page, '购买须知');
      const tile = user.page.locator('.mall-item', { hasText: name });
      await expect.poll(() => tile.textContent()).toContain('¥9.90');
      expect(await tile.textContent()).toContain('120 积分');
      await shot(user.page, 'mall');

      // Tap, confirm, and the order is placed: its number and how to pay.
      await tile.click();
      await answerDialog(user.page, /确定购买/);
      await dialog(user.page).filter({ hasText: '订单已提交' }).waitFor();
      await overlaysSettled(user.page);
      const submitted = (await dialog(user.page).textContent()) ?? '';
      expect(submitted).toContain(pointsNotification);
      expect(submitted).toMatch(/订单号：\S/);
      await shot(user.page, 'mall-order-submitted');
      await answerDialog(user.page, '订单已提交');

      // Back on /mall in the same session: the notice does not open by itself again.
      await user.page.reload();
      await user.page.locator('.mall-item', { hasText: name }).waitFor();
      await user.page.waitForLoadState('networkidle');
      expect(await dialog(user.page).count()).toBe(0);

      await user.page.getByRole('link', { name: '我的订单' }).click();
      await user.page.waitForURL((u) => u.pathname === '/my_orders');
      await user.page.locator('.adm-list-item', { hasText: name }).filter({ hasText: '待付款' }).waitFor();

      // The admin finds it by the buyer's account and confirms the payment.
      await open(admin.page, `/order_management?searchText=${buyer.userAccount}`, '订单管理');
      await admin.page
        .locator('.adm-list-item', { hasText: buyer.userAccount })
        .filter({ hasText: '待付款' })
        .waitFor();
      await shot(admin.page, 'order-management');
      await rowAction(admin.page, buyer.userAccount, '确认收款');
      await answerDialog(admin.page, /确认已通过线下方式收到/);
      await toast(admin.page, '已确认收款').waitFor();
      await admin.page
        .locator('.adm-list-item', { hasText: buyer.userAccount })
        .filter({ hasText: '已到账' })
        .waitFor();

      // The user's balance and statement show the coins, once.
      expect(await balanceOf(buyer.api)).toBe(before + 120);
      await open(user.page, '/about', '我的');
      await expect.poll(() => shownBalance(user.page).textContent()).toBe(String(before + 120));
      await open(user.page, '/coin_detail', '积分明细');
      const entry = user.page.locator('.adm-list-item', { hasText: '购买套餐' });
      await entry.first().waitFor();
      expect(await entry.count()).toBe(1);
      expect(await entry.first().textContent()).toContain('+120');
      await open(user.page, '/my_orders', '我的订单');
      await user.page.locator('.adm-list-item', { hasText: name }).filter({ hasText: '已到账' }).waitFor();
      expect(pathOf(user.page)).toBe('/my_orders');
    } finally {
      await admin.context.close();
      await user.context.close();
    }
  });
});

describe('a transfer between two users', () => {
  it('moves the coins from the payer to the payee through /transferCoin', async () => {
    await keyed(adminApi, 'userAddCoin', { userAccount: buyer.userAccount, coin: 100, description: 'e2e 转账准备' });
    const payerBefore = await balanceOf(buyer.api);
    const payeeBefore = await balanceOf(payee.api);
    const { context, page } = await newPhone(browser, { session: buyer.api, announcementRead: true });
    try {
      await open(page, '/transferCoin', '积分转账');
      await page.getByPlaceholder('对方的账号').fill(payee.userAccount);
      await page.getByRole('button', { name: '查询' }).click();
      await page.getByText(/收款人：/).waitFor();
      await page.getByPlaceholder('整数').fill('30');
      await page.getByRole('button', { name: '转账' }).click();
      await answerDialog(page, new RegExp(`转 30 积分`));
      await toast(page, '已转出 30 积分').waitFor();
      expect(await balanceOf(buyer.api)).toBe(payerBefore - 30);
      expect(await balanceOf(payee.api)).toBe(payeeBefore + 30);
    } finally {
      await context.close();
    }
  });
});

describe('redeem codes', () => {
  it('the admin generates a batch in /redeem_generate and gets its codes and CSV', async () => {
    const { context, page } = await newPhone(browser, { session: adminApi, announcementRead: true });
    try {
      await open(page, '/redeem_generate', '生成兑换码');
      await page.getByLabel('兑换积分').fill('10');
      await page.getByLabel('数量').fill('3');
      await page.locator('.adm-selector-item', { hasText: '30 天' }).click();
      await page.getByText(/到期$/).waitFor();
      await page.getByLabel('备注').fill('e2e 活动');
      await shot(page, 'redeem-generate');
      await page.getByRole('button', { name: '生成兑换码' }).click();
      await page.getByText('已生成 3 个兑换码').waitFor();
      const codes = await page.locator('.redeem-codes li').allTextContents();
      expect(codes).toHaveLength(3);
      for (const code of codes) expect(code).toMatch(/^[A-Za-z0-9]{12}$/);
      await toast(page, '兑换码已生成').waitFor();
      await toast(page, '兑换码已生成').waitFor({ state: 'hidden' });
      await shot(page, 'redeem-generated');

      // The CSV link is a plain link to the export, which holds the same codes.
      const href = (await page.getByRole('link', { name: '下载 CSV' }).getAttribute('href'))!;
      expect(href).toMatch(/^\/api\/redeem\/export\?batchId=B\d{6}[2-9A-HJKMNP-Z]{6}$/);
      const csv = await (await fetch(url(href), { headers: { cookie: `sid=${adminApi.sid}` } })).text();
      for (const code of codes) expect(csv).toContain(code);

      await page.getByRole('button', { name: '查看全部兑换码' }).click();
      await page.waitForURL((u) => u.pathname === '/redeem_management');
      await page.locator('.adm-list-item', { hasText: codes[0]! }).filter({ hasText: '未使用' }).waitFor();
      await shot(page, 'redeem-management');
    } finally {
      await context.close();
    }
  });

  it('a code works once on my page and is refused the second time', async () => {
    const batch = await keyed(adminApi, 'redeemGenerate', {
      count: 1,
      coin: 25,
      expiresAt: Date.now() + 7 * 86_400_000,
      note: 'e2e',
    });
    const code = batch.codes[0]!;
    const before = await balanceOf(payee.api);
    const { context, page } = await newPhone(browser, { session: payee.api, announcementRead: true });
    try {
      await open(page, '/about', '我的');
      await expect.poll(() => shownBalance(page).textContent()).toBe(String(before));
      const input = page.getByPlaceholder('12 位兑换码');
      await input.fill(code);
      await page.getByRole('button', { name: '兑换', exact: true }).click();
      await toast(page, `兑换成功，当前余额 ${before + 25}`).waitFor();
      await expect.poll(() => shownBalance(page).textContent()).toBe(String(before + 25));
      expect(await input.inputValue()).toBe('');
      await shot(page, 'about-redeemed');

      // The same code again: refused, nothing moves.
      await input.fill(code);
      await page.getByRole('button', { name: '兑换', exact: true }).click();
      await page.locator('.adm-toast-main').filter({ hasNotText: '兑换成功' }).waitFor();
      expect(await balanceOf(payee.api)).toBe(before + 25);
      expect(await shownBalance(page).textContent()).toBe(String(before + 25));
      const entries = await payee.api.ok('coinEntries', { query: { current: 1, pageSize: 50, kind: 'redeem' } });
      expect(entries.records.map((e) => e.amount)).toEqual([25]);
    } finally {
      await context.close();
    }
  });
});
