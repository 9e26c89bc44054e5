import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  launchBrowser,
  loginThroughUi,
  newPhone,
  overlaysSettled,
  newSignedInUser,
  shot,
  siteInformation,
  touchDrag,
  type ApiSession,
  type TestUser,
} from './helpers';

// The announcement: the draggable chat bubble that opens it, and the dialog the app opens by itself once per browser
// session (sessionStorage `dialog`, flag isRead).

let browser: Browser;
let user: TestUser;
let api: ApiSession;
let announcement: { title: string; content: string };

beforeAll(async () => {
  browser = await launchBrowser();
  ({ user, api } = await newSignedInUser('notice'));
  const site = await siteInformation();
  announcement = { title: site.noticeAnnouncementTitle, content: site.noticeAnnouncement };
  expect(announcement.title).not.toBe('');
  expect(announcement.content).not.toBe('');
});
afterAll(async () => {
  await browser?.close();
});

// The dialog's root is a zero-size wrapper around the fixed overlay and body: its body is what a user sees.
const dialog = (page: Page) => page.locator('.adm-dialog .adm-dialog-body');
const bubble = (page: Page) => page.locator('.adm-floating-bubble-button');

/** The dialog shows the announcement's title and content and one button, 确定. */
async function expectAnnouncement(page: Page) {
  await dialog(page).waitFor();
  await overlaysSettled(page);
  await expect.poll(() => dialog(page).locator('.adm-dialog-title').textContent()).toBe(announcement.title);
  expect(await dialog(page).locator('.adm-dialog-content').textContent()).toBe(announcement.content);
  const buttons = dialog(page).locator('button');
  expect(await buttons.count()).toBe(1);
  expect((await buttons.first().textContent())?.trim()).toBe('确定');
}

/** Counts every announcement dialog the page opens, from its first script on (survives reloads: an init script). */
async function countDialogs(page: Page) {
  await page.addInitScript(() => {
    const w = window as unknown as { __dialogs: number };
    w.__dialogs = 0;
    new MutationObserver((records) => {
      for (const r of records)
        for (const n of r.addedNodes)
          if (n instanceof HTMLElement && (n.matches('.adm-dialog') || n.querySelector('.adm-dialog'))) w.__dialogs++;
    }).observe(document, { childList: true, subtree: true });
  });
  return () => page.evaluate(() => (window as unknown as { __dialogs: number }).__dialogs);
}

/** The frame is up and idle: the bubble shows, and nothing is left to load (a dialog would need its chunk). */
async function settled(page: Page) {
  await bubble(page).waitFor();
  await page.waitForLoadState('networkidle');
}

describe('the floating bubble', () => {
  it('can be dragged, opens the announcement with one 确定 button, and closes on the overlay', async () => {
    const { context, page } = await newPhone(browser, { session: api, announcementRead: true });
    try {
      await page.goto('/');
      await settled(page);
      expect(await dialog(page).count()).toBe(0);

      // Drag it up by a finger: it follows, and (magnetic on x) settles against a side edge.
      const before = (await bubble(page).boundingBox())!;
      const centre = { x: before.x + before.width / 2, y: before.y + before.height / 2 };
      await touchDrag(page, centre, { x: centre.x - 120, y: centre.y - 300 });
      await expect.poll(async () => (await bubble(page).boundingBox())!.y).toBeLessThan(before.y - 250);
      // Wait for the snap to the edge to finish (two equal positions in a row), then check it stayed in the viewport.
      let last = '';
      await expect
        .poll(async () => {
          const box = JSON.stringify(await bubble(page).boundingBox());
          const same = box === last;
          last = box;
          return same;
        })
        .toBe(true);
      const after = (await bubble(page).boundingBox())!;
      expect(after.x).toBeGreaterThanOrEqual(0);
      expect(after.x + after.width).toBeLessThanOrEqual(390);
      expect(after.y).toBeGreaterThan(0);
      // A drag is not a tap: no dialog.
      expect(await dialog(page).count()).toBe(0);
      await shot(page, 'bubble-dragged');

      // A tap opens the announcement.
      await bubble(page).tap();
      await expectAnnouncement(page);
      await shot(page, 'announcement-dialog');

      // A tap on the overlay, away from the dialog, closes it.
      await page
        .locator('.adm-mask')
        .first()
        .click({ position: { x: 20, y: 20 } });
      await dialog(page).waitFor({ state: 'detached' });

      // And 确定 closes it too.
      await bubble(page).tap();
      await expectAnnouncement(page);
      await dialog(page).getByRole('button', { name: '确定' }).click();
      await dialog(page).waitFor({ state: 'detached' });
    } finally {
      await context.close();
    }
  });
});

describe('the announcement dialog', () => {
  it('opens by itself once per browser session', async () => {
    // A fresh session (no sessionStorage), signed in through the UI: home opens the announcement by itself.
    const { context, page } = await newPhone(browser);
    try {
      const dialogs = await countDialogs(page);
      await loginThroughUi(page, user.userAccount, user.userPassword);
      expect(new URL(page.url()).pathname).toBe('/');
      await expectAnnouncement(page);
      await dialog(page).getByRole('button', { name: '确定' }).click();
      await dialog(page).waitFor({ state: 'detached' });
      expect(await page.evaluate(() => JSON.parse(sessionStorage.getItem('dialog') ?? '{}'))).toMatchObject({
        isRead: true,
      });
      expect(await dialogs()).toBe(1);

      // Moving around the app: not again.
      await page.locator('.app-tabbar').getByText('我的', { exact: true }).click();
      await page.waitForURL((u) => u.pathname === '/about');
      await page.locator('.adm-nav-bar-title', { hasText: '我的' }).waitFor();
      await page.locator('.app-tabbar').getByText('首页', { exact: true }).click();
      await page.waitForURL((u) => u.pathname === '/');
      await settled(page);
      expect(await dialogs()).toBe(1);

      // Reloading (same tab, same browser session): not again either.
      await page.reload();
      await settled(page);
      expect(await dialogs()).toBe(0); // the counter restarted with the page, and saw no dialog
      // Another framed page (not /mall, whose purchase notice is a dialog of its own, once per session too).
      await page.goto('/clockInfo');
      await settled(page);
      expect(await dialogs()).toBe(0);
    } finally {
      await context.close();
    }

    // A new browser session (a new context, the same account still signed in): it opens again.
    const { context: second, page: again } = await newPhone(browser, { session: api });
    try {
      const dialogs = await countDialogs(again);
      await again.goto('/about');
      await expectAnnouncement(again);
      expect(await dialogs()).toBe(1);
      await again
        .locator('.adm-mask')
        .first()
        .click({ position: { x: 20, y: 20 } });
      await dialog(again).waitFor({ state: 'detached' });
    } finally {
      await second.close();
    }
  });
});
