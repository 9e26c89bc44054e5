import { copyFileSync, mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInMessages as w } from '../../src/web/i18n/zh-CN-signed-in';
import {
  PASSWORD,
  answerDialog,
  keyed,
  launchBrowser,
  loginAdmin,
  loginApi,
  newPhone,
  openScreen,
  pathOf,
  rowAction,
  shot,
  toast,
  uniqueAccount,
  type ApiSession,
  type TestUser,
} from './helpers';

// A platform service end to end on a phone: the admin prices the seeded 工学云 and puts it on shelf; a user finds it
// on /clockInfo, fills its settings, starts the service, runs it now, watches the run succeed (the scheduler in the
// test server executes it on the sandbox platform) and finds the charge on /coin_detail; the admin shelves it again
// and the user's page says it is not open.

const PRICE = 3;
/** Where the screenshots looked at in review go (outside the repository). */
const REVIEW_DIR = '/work/shots';

let browser: Browser;
let adminApi: ApiSession;
let user: TestUser & { api: ApiSession };
let platformId: number;

async function review(page: Page, name: string) {
  const path = await shot(page, name);
  mkdirSync(REVIEW_DIR, { recursive: true });
  copyFileSync(path, `${REVIEW_DIR}/${name}.png`);
}

beforeAll(async () => {
  browser = await launchBrowser();
  adminApi = await loginAdmin();
  const userAccount = uniqueAccount('svc');
  const id = Number(await adminApi.ok('userAdd', { body: { userAccount, userPassword: PASSWORD } }));
  await keyed(adminApi, 'userAddCoin', { userAccount, coin: 20, description: 'e2e 平台服务' });
  user = { id, userAccount, userPassword: PASSWORD, api: await loginApi(userAccount, PASSWORD) };
  const page = await adminApi.ok('platformListPage', { body: { kind: 'gxy', current: 1, pageSize: 10 } });
  platformId = page.records[0]!.id;
});
afterAll(async () => {
  await browser?.close();
});

describe('a platform service, from the admin to a succeeded run', () => {
  it('the admin prices the platform and puts it on shelf', async () => {
    const { page, context } = await newPhone(browser, { session: adminApi, announcementRead: true });
    try {
      await openScreen(page, `/update_platform?id=${platformId}`, '修改平台');
      await page.locator('#root_price').fill(String(PRICE));
      await page.getByRole('button', { name: '提交' }).click();
      await toast(page, '保存成功').waitFor();

      await openScreen(page, '/platform_management', '平台管理');
      const row = page.locator('.adm-list-item', { hasText: `工学云 · ${PRICE} 积分 / 每次执行` });
      await row.filter({ hasText: '未上架' }).waitFor();
      await rowAction(page, `${PRICE} 积分 / 每次执行`, '上架');
      await toast(page, '已上架').waitFor();
      await row.filter({ hasText: '已上架' }).waitFor();
      await toast(page, '已上架').waitFor({ state: 'detached' });
      await page.locator('.adm-action-sheet').waitFor({ state: 'hidden' });
      await review(page, 'platform_management');

      // A new platform's kind is picked from the declared kinds, by name.
      await page.getByRole('button', { name: '添加平台' }).click();
      await page.locator('.adm-nav-bar-title', { hasText: '添加平台' }).waitFor();
      await page.locator('.adm-selector-item', { hasText: '智慧职教' }).waitFor();
      await review(page, 'add_platform');
    } finally {
      await context.close();
    }
  });

  it('a user sets the service up from /clockInfo, runs it now and pays for the run', async () => {
    // A phone in the site's time zone, so the next run reads as the 08:00 just set.
    const { page, context } = await newPhone(browser, {
      session: user.api,
      announcementRead: true,
      timezoneId: 'Asia/Shanghai',
    });
    try {
      await openScreen(page, '/clockInfo', '账号信息');
      await page.getByText('还没有开通任何平台服务').waitFor();
      await review(page, 'clockInfo-empty');
      await page.locator('.composed-card', { hasText: '工学云' }).click();
      await page.waitForURL((u) => u.pathname === '/gxy');
      await page.getByText('还没有设置，请先填写设置再启动服务。').waitFor();
      await review(page, 'gxy-new');

      await page.getByRole('button', { name: '去设置' }).click();
      await page.waitForURL((u) => u.pathname === '/gxy/update');
      await page.locator('.adm-nav-bar-title', { hasText: '开通工学云服务' }).waitFor();
      for (const day of ['星期一', '星期二', '星期三', '星期四', '星期五', '星期六', '星期日'])
        await page.locator('.adm-selector-item', { hasText: day }).click();
      // The time on a wheel: it opens on 08:00, a usual start, and 确定 takes it (no typing).
      await page.locator('#root_checkInTime').click();
      const wheel = page.locator('.adm-picker-popup');
      await wheel.locator('.adm-picker-view-column').first().waitFor();
      await wheel.getByText('确定').click();
      await page.locator('#root_checkInTime', { hasText: '08:00' }).waitFor();
      await page.locator('.adm-selector-item', { hasText: '站内消息' }).first().click();
      await review(page, 'gxy-update');
      await page.getByRole('button', { name: '提交' }).click();
      await toast(page, '设置已保存').waitFor();
      await page.waitForURL((u) => u.pathname === '/gxy');

      await page.getByRole('button', { name: '启动' }).click();
      await toast(page, '服务已启动').waitFor();
      await page.locator('.state-tag', { hasText: '运行中' }).waitFor();
      await page.locator('.adm-list-item', { hasText: '下次执行' }).filter({ hasText: '08:00' }).waitFor();

      await page.getByRole('button', { name: '立即执行' }).click();
      await answerDialog(page, /确定立即执行一次/);
      // The list looks again while the run is under way, and the counts above follow when it is done.
      const manual = page.locator('.adm-list-item', { hasText: '手动' });
      await manual.locator('.state-tag', { hasText: '成功' }).waitFor();
      await manual.getByText('平台已收到').waitFor();
      await page.locator('.adm-list-item', { hasText: '累计成功' }).filter({ hasText: '1' }).waitFor();
      await review(page, 'gxy');
      expect(pathOf(page)).toBe('/gxy');

      await openScreen(page, '/coin_detail', '积分明细');
      const charge = page.locator('.adm-list-item', { hasText: '服务扣费' });
      await charge.filter({ hasText: w.coins.signed(-PRICE) }).waitFor(); // the minus sign, as the screen writes it
      expect((await user.api.ok('userGetLogin')).coin).toBe(20 - PRICE);

      await openScreen(page, '/clockInfo', '账号信息');
      await page.locator('.composed-card', { hasText: '成功 1 次 · 失败 0 次' }).waitFor();
      await review(page, 'clockInfo');
      // A course platform no admin has put on shelf: its edit page says it is not open, as its page does, instead of
      // a form that would only answer 「请填写平台」 (course rows and their time wheels: tests/web/pickers-words).
      await openScreen(page, '/wk/update', '开通网课采集服务');
      await page.getByText('该平台暂未开放').waitFor();
      await review(page, 'wk-update');
    } finally {
      await context.close();
    }
  });

  it('the admin shelves the platform and the user is told it is not open', async () => {
    const admin = await newPhone(browser, { session: adminApi, announcementRead: true });
    try {
      await openScreen(admin.page, '/platform_management', '平台管理');
      await rowAction(admin.page, `${PRICE} 积分 / 每次执行`, '下架');
      await answerDialog(admin.page, /确定下架「工学云」吗/);
      await toast(admin.page, '已下架').waitFor();
      await admin.page.locator('.adm-list-item', { hasText: '工学云' }).filter({ hasText: '未上架' }).waitFor();
    } finally {
      await admin.context.close();
    }
    const { page, context } = await newPhone(browser, { session: user.api, announcementRead: true });
    try {
      await openScreen(page, '/gxy', '工学云');
      await page.getByText('该平台暂未开放').waitFor();
      await review(page, 'gxy-off-shelf');
      // Its edit page says the same before anything is typed, instead of a form that cannot be saved.
      // Off shelf, the overview answers no service to change: the title is the first setup's (开通…) once it is read.
      await openScreen(page, '/gxy/update', /^(修改工学云信息|开通工学云服务)$/);
      await page.getByText('该平台暂未开放').waitFor();
      expect(await page.getByRole('button', { name: '提交' }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
