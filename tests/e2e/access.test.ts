import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screens } from '../../screens.config';
import {
  launchBrowser,
  type ApiSession,
  newPhone,
  newSignedInUser,
  pathOf,
  shot,
  uniqueAccount,
  PASSWORD,
} from './helpers';

// Who may open what: a visitor is sent to /login from every signed-in screen; a user registers (and is signed in),
// walks to my page and logs out; deep links open the right screen inside the frame, and their back arrow goes up.

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe('a visitor', () => {
  it('lands on /login from every signed-in route of screens.config.ts', async () => {
    const signedIn = screens.filter((s) => s.access !== 'public');
    expect(signedIn.length).toBeGreaterThan(20);
    const { context, page } = await newPhone(browser);
    try {
      for (const screen of signedIn) {
        await page.goto(screen.path);
        await page
          .waitForURL((u) => u.pathname === '/login', { timeout: 10_000 })
          .catch(() => {
            throw new Error(`${screen.path} stayed on ${page.url()} instead of going to /login`);
          });
        // The login screen itself, and the way back to where the visitor wanted to go.
        expect.soft(new URL(page.url()).searchParams.get('redirect'), screen.path).toBe(screen.path);
        await page.locator('#field-userAccount').waitFor();
      }
      await shot(page, 'visitor-login');
      // A first visit to / in a fresh browser: /login, without a 请先登录 toast (nothing ended; nobody was signed in).
      const fresh = await newPhone(browser);
      try {
        await fresh.page.goto('/');
        await fresh.page.waitForURL((u) => u.pathname === '/login');
        await fresh.page.locator('#field-userAccount').waitFor();
        await fresh.page.waitForTimeout(500);
        expect(await fresh.page.locator('.adm-toast-main').count()).toBe(0);
      } finally {
        await fresh.context.close();
      }
    } finally {
      await context.close();
    }
  });
});

describe('a new user', () => {
  it('registers, logs in, reaches home and my page, and logs out with 退出', async () => {
    const { context, page } = await newPhone(browser, { announcementRead: true });
    const account = uniqueAccount('reg');
    try {
      await page.goto('/register');
      await page.locator('#field-userAccount').fill(account);
      await page.locator('#field-userPassword').fill(PASSWORD);
      await page.locator('#field-checkPassword').fill(PASSWORD);
      // Consent is the user's own tick: unticked, 注册 says why under the box and registers nobody.
      expect(await page.locator('#field-agreed').isChecked()).toBe(false);
      await page.getByRole('button', { name: '注册', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: '请先阅读并勾选同意《用户协议》和《隐私政策》' }).waitFor();
      expect(pathOf(page)).toBe('/register');
      await shot(page, 'register-unticked');
      // The texts open from the form and lead back to it.
      await page.getByRole('link', { name: '《用户协议》' }).click();
      await page.waitForURL((u) => u.pathname === '/terms');
      await page.getByRole('heading', { name: '用户协议', level: 2 }).waitFor();
      await page.getByText('注销账号', { exact: false }).first().waitFor();
      await shot(page, 'terms');
      await page.goBack();
      await page.waitForURL((u) => u.pathname === '/register');
      if (!(await page.locator('#field-userAccount').inputValue())) {
        await page.locator('#field-userAccount').fill(account);
        await page.locator('#field-userPassword').fill(PASSWORD);
        await page.locator('#field-checkPassword').fill(PASSWORD);
      }
      await page.locator('#field-agreed').check();
      await shot(page, 'register-filled');
      await page.getByRole('button', { name: '注册', exact: true }).click();

      // Registered and signed in at once: home, no second trip through /login.
      await page.waitForURL((u) => u.pathname === '/');
      await page.locator('.adm-toast-main', { hasText: '注册成功，已为你登录' }).waitFor();

      // Home: its title, no back arrow, the tab bar.
      await page.waitForURL((u) => u.pathname === '/');
      await expect.poll(() => page.locator('.adm-nav-bar-title').textContent()).toBe('首页');
      expect(await page.locator('.adm-nav-bar-back-arrow').count()).toBe(0);
      await page.locator('.app-tabbar').waitFor();
      await shot(page, 'home');

      // My page through the tab bar: title, account, back arrow and 退出 on the right.
      await page.locator('.app-tabbar').getByText('我的', { exact: true }).click();
      await page.waitForURL((u) => u.pathname === '/about');
      await expect.poll(() => page.locator('.adm-nav-bar-title').textContent()).toBe('我的');
      await page.locator('.home-hero', { hasText: account }).waitFor();
      await page.locator('.adm-nav-bar-back-arrow').waitFor();
      await page.locator('.adm-toast-main').waitFor({ state: 'detached' }); // the sign-up toast, for a clean picture
      await shot(page, 'about');

      await page.getByRole('button', { name: '退出', exact: true }).click();
      await page.waitForURL((u) => u.pathname === '/login');
      await page.locator('#field-userAccount').waitFor();

      // The session is gone on the server too: my page sends to /login again, even on a fresh load.
      await page.goto('/about');
      await page.waitForURL((u) => u.pathname === '/login');
      expect(pathOf(page)).toBe('/login');
    } finally {
      await context.close();
    }
  });
});

describe('deep links (signed in)', () => {
  let api: ApiSession;
  beforeAll(async () => {
    ({ api } = await newSignedInUser('deep'));
  });

  it('opens /gxy/update directly, with its title and its settings form', async () => {
    const { context, page } = await newPhone(browser, { session: api, announcementRead: true });
    try {
      await page.goto('/gxy/update');
      // A new user has no service yet: the page opens one (开通).
      await expect.poll(() => page.locator('.adm-nav-bar-title').textContent()).toBe('开通工学云服务');
      // The settings form, or (the platform off shelf in this run) the words that it is not open.
      await page
        .getByText(/^签到时间$|^该平台暂未开放$/)
        .first()
        .waitFor();
      expect(pathOf(page)).toBe('/gxy/update');
      // A deep link has no history of its own: the back arrow goes up to the platform's page, not home.
      await page.locator('.adm-nav-bar-back-arrow').click();
      await page.waitForURL((u) => u.pathname === '/gxy');
      await expect.poll(() => page.locator('.adm-nav-bar-title').textContent()).toBe('工学云');
    } finally {
      await context.close();
    }
  });

  it('shows the not-found screen inside the frame for an unknown path', async () => {
    const { context, page } = await newPhone(browser, { session: api, announcementRead: true });
    try {
      await page.goto('/no/such/page');
      await expect.poll(() => page.locator('.adm-nav-bar-title').textContent()).toBe('页面不存在');
      await page.locator('.adm-error-block', { hasText: '链接可能已失效，请返回首页。' }).waitFor();
      // Inside the frame: header and watermark; no tab bar (an error page shows only itself and its 返回首页).
      await page.locator('.adm-water-mark').waitFor({ state: 'attached' });
      expect(await page.locator('.app-tabbar').count()).toBe(0);
      expect(pathOf(page)).toBe('/no/such/page');
      await shot(page, 'not-found');
      await page.getByRole('button', { name: '返回首页' }).click();
      await page.waitForURL((u) => u.pathname === '/');
    } finally {
      await context.close();
    }
  });
});
