import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platforms, screens } from '../../screens.config';
import { messages as t } from '../../src/web/i18n/zh-CN';
import { signedInMessages as w } from '../../src/web/i18n/zh-CN-signed-in';
import {
  launchBrowser,
  loginAdmin,
  newPhone,
  newSignedInUser,
  pathOf,
  shot,
  siteInformation,
  type ApiSession,
} from './helpers';

// The frame around the screens: the account watermark, the document title, the font and the scrolling notice bar.

let browser: Browser;
let user: { context: BrowserContext; page: Page };
let admin: { context: BrowserContext; page: Page };
let userApi: ApiSession;

beforeAll(async () => {
  browser = await launchBrowser();
  ({ api: userApi } = await newSignedInUser('shell'));
  user = await newPhone(browser, { session: userApi, announcementRead: true });
  admin = await newPhone(browser, { session: await loginAdmin(), announcementRead: true });
});
afterAll(async () => {
  await browser?.close();
});

/** The title a path shows this test's user, who has no platform service: a platform's edit page says 开通…. */
const titleOf = (path: string) => {
  const screen = screens.find((s) => s.path === path);
  if (!screen) throw new Error(`no screen ${path}`);
  const platform = platforms.find((p) => path === `/${p.code}/update`);
  return platform ? w.screens.platformSetUp(platform.title) : screen.title;
};

/** Opens a path and waits until the frame shows that screen's title (a frame screen) or the form (login, register). */
async function open(page: Page, path: string) {
  await page.goto(path);
  const screen = screens.find((s) => s.path === path);
  if (screen?.chrome === 'bare') await page.locator('#field-userAccount').waitFor();
  else
    await expect
      .poll(() => page.locator('.adm-nav-bar-title').textContent())
      .toBe(screen ? titleOf(path) : t.shell.notFound);
  expect(pathOf(page)).toBe(path);
}

describe('the watermark', () => {
  it('shows the account on home, my page and (for the admin) user management', async () => {
    for (const [who, path] of [
      [user, '/'],
      [user, '/about'],
      [admin, '/user_management'],
    ] as const) {
      await open(who.page, path);
      const mark = who.page.locator('.adm-water-mark');
      await mark.waitFor({ state: 'attached' });
      // A full-page layer drawn from the account name, above the content and letting taps through.
      const style = await mark.evaluate((el) => {
        const s = getComputedStyle(el);
        return { position: s.position, pointerEvents: s.pointerEvents, image: s.backgroundImage };
      });
      expect(style, path).toMatchObject({ position: 'fixed', pointerEvents: 'none' });
      expect(style.image, path).toMatch(/^url\("data:image\/png;base64,/);
    }
    await shot(admin.page, 'user-management');
  });

  it('is absent on /register, even for a signed-in user, who is sent on from /login', async () => {
    await open(user.page, '/register');
    await user.page.locator('.app-tabbar, .adm-nav-bar').first().waitFor({ state: 'detached' });
    expect(await user.page.locator('.adm-water-mark').count()).toBe(0);
    // A signed-in user has no use for the login form: /login sends them home (issue 11, bug 9).
    await user.page.goto('/login');
    await expect.poll(() => pathOf(user.page)).toBe('/');
  });
});

describe('the document title', () => {
  it("is '<site name> - <page title>' on the frame's screens and on login", async () => {
    const site = await siteInformation();
    const siteName = site.websiteName || '积分商城';
    expect(siteName).toBe('积分商城'); // the default record of a fresh database
    for (const path of ['/', '/about', '/mall', '/clockInfo', '/gxy/update', '/register']) {
      await open(user.page, path);
      await expect.poll(() => user.page.title(), { message: path }).toBe(`${siteName} - ${titleOf(path)}`);
    }
    // /login as a visitor sees it (a signed-in user is sent on).
    const visitor = await newPhone(browser);
    try {
      await open(visitor.page, '/login');
      await expect.poll(() => visitor.page.title()).toBe(`${siteName} - ${titleOf('/login')}`);
    } finally {
      await visitor.context.close();
    }
    await open(admin.page, '/system');
    await expect.poll(() => admin.page.title()).toBe(`${siteName} - 系统管理`);
    await open(user.page, '/no/such/page');
    await expect.poll(() => user.page.title()).toBe(`${siteName} - ${t.shell.notFound}`);
  });
});

describe('the font', () => {
  it("is the app's one stack on every page, with or without antd-mobile's global stylesheet loaded", async () => {
    const bodyFont = (page: Page) => page.evaluate(() => getComputedStyle(document.body).fontFamily);
    const visitor = await newPhone(browser);
    try {
      await open(visitor.page, '/login');
      const stack = await bodyFont(visitor.page);
      // A face this app's phones and servers have for Chinese, named rather than left to per-character fallback.
      expect(stack).toContain('"Noto Sans CJK SC"');
      for (const path of ['/', '/mall', '/clockInfo']) {
        await open(user.page, path);
        // antd-mobile's stylesheet is on these pages (it sets body's font to its own default stack).
        expect(await user.page.locator('.adm-tab-bar').count(), path).toBe(1);
        expect(await bodyFont(user.page), path).toBe(stack);
      }
    } finally {
      await visitor.context.close();
    }
  });
});

describe('the notice bar', () => {
  const noticeText = (page: Page) => page.locator('.adm-notice-bar .adm-notice-bar-content-inner');

  it('says the server failed on /500, whoever opens it', async () => {
    for (const page of [user.page, admin.page]) {
      await open(page, '/500');
      await expect.poll(() => noticeText(page).textContent()).toBe(w.notice.serverError);
    }
    // A visitor too: /500 needs no session.
    const visitor = await newPhone(browser);
    try {
      await open(visitor.page, '/500');
      await expect.poll(() => noticeText(visitor.page).textContent()).toBe('服务器异常，请联系管理员');
      // An error page shows only itself: no tab bar (its tabs would lead a visitor to the sign-in page), no 公告.
      expect(await visitor.page.locator('.app-tabbar').count()).toBe(0);
      expect(await visitor.page.getByRole('dialog').count()).toBe(0);
      await shot(visitor.page, 'server-error');
    } finally {
      await visitor.context.close();
    }
  });

  it('explains swiping on /mall_management and /platform_management', async () => {
    await open(admin.page, '/mall_management');
    await expect.poll(() => noticeText(admin.page).textContent()).toBe(w.notice.mallManagement);
    await open(admin.page, '/platform_management');
    await expect.poll(() => noticeText(admin.page).textContent()).toBe(w.notice.platformManagement);
    expect(w.notice.platformManagement).toContain('不能删除');
    await shot(admin.page, 'platform-management');
    // Longer than the phone is wide, so it must scroll (after the bar's 2 s pause) for its end to be read.
    const [textWidth, barWidth] = await noticeText(admin.page).evaluate((el) => [
      el.scrollWidth,
      el.parentElement!.clientWidth,
    ]);
    expect(textWidth).toBeGreaterThan(barWidth);
    await expect
      .poll(() => noticeText(admin.page).evaluate((el) => new DOMMatrix(getComputedStyle(el).transform).m41), {
        timeout: 10_000,
      })
      .toBeLessThan(-10);
  });

  it("shows the site's noticeBar on a normal page", async () => {
    const { noticeBar } = await siteInformation();
    expect(noticeBar).not.toBe('');
    for (const path of ['/', '/about', '/mall']) {
      await open(user.page, path);
      await expect.poll(() => noticeText(user.page).textContent(), { message: path }).toBe(noticeBar);
    }
    await open(admin.page, '/user_management');
    await expect.poll(() => noticeText(admin.page).textContent()).toBe(noticeBar);
  });
});

describe('the announcement bubble', () => {
  it('never keeps content under it: the end of a page scrolls clear of it (the calendar’s last week)', async () => {
    const { page } = user;
    await open(page, '/clockInfo');
    await page.locator('.composed-calendar').waitFor();
    const bubble = page.locator('.adm-floating-bubble-button');
    await bubble.waitFor();
    // Scrolled to the end, the last thing the page shows ends above the bubble. Asked again until it holds, scrolling
    // each time: the screen's parts arrive one by one and each makes the page longer (a single look raced them in CI).
    const overlap = async () => {
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      const bubbleTop = (await bubble.boundingBox())!.y;
      const lastBottom = await page.evaluate(() => {
        const main = document.querySelector('.app-main')!;
        const boxes = [...main.querySelectorAll('*')].map((e) => e.getBoundingClientRect()).filter((r) => r.height > 0);
        return Math.max(...boxes.map((r) => r.bottom));
      });
      return lastBottom - bubbleTop;
    };
    await expect.poll(overlap, { timeout: 10_000 }).toBeLessThanOrEqual(0);
  });
});
