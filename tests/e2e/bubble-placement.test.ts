import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { browserAndAdmin, keyed, newPhone, newSignedInUser, shot, type ApiSession } from './helpers';

// The announcement bubble at rest covers nothing a user must read or tap: on a phone (390×844) it lies over no text
// and no control of the page, on a page as it opens and scrolled anywhere, in light and dark.

const opened = browserAndAdmin();
let userApi: ApiSession;

beforeAll(async () => {
  const { user, api } = await newSignedInUser('bubble');
  userApi = api;
  // 免费额度管理 lists grants, each with its state (可用) at the right end of its row.
  for (const amount of [1, 2, 3, 4, 5, 6, 7, 8, 9])
    await keyed(opened.adminApi, 'quotaGrant', { userAccount: user.userAccount, unit: 'runs', amount, reason: '测试' });
});

const bubble = (page: Page) => page.locator('.adm-floating-bubble-button');

/** The page has come to rest: the bubble shows, and neither it nor the page's length changes any more. */
async function atRest(page: Page) {
  await bubble(page).waitFor();
  let last = '';
  await expect
    .poll(
      async () => {
        const now = JSON.stringify([
          await bubble(page).boundingBox(),
          await page.evaluate(() => document.body.scrollHeight),
        ]);
        const same = now === last;
        last = now;
        return same;
      },
      { interval: 250 },
    )
    .toBe(true);
}

/**
 * What lies under the bubble: on a 4 px grid over its box, the elements at each point (document.elementsFromPoint),
 * topmost first, without the bubble's own. Each is reported when it is a control or shows text at that point, until
 * the first one with an opaque background (what lies below that is hidden, e.g. content scrolled behind the tab bar).
 * Containers that are only background (the frame, the page's column) are neither and pass.
 */
function coveredUnderBubble(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const button = document.querySelector('.adm-floating-bubble-button')!;
    const own = button.closest('.adm-floating-bubble')!;
    const box = button.getBoundingClientRect();
    const CONTROL =
      'a, button, input, select, textarea, label, summary, [role=button], [role=link], [role=tab], [role=checkbox], ' +
      '[role=switch], [role=menuitem], [role=option], [tabindex]:not([tabindex="-1"]), [contenteditable=""], ' +
      '[contenteditable=true]';
    const pointer = (el: Element | null) => el !== null && getComputedStyle(el).cursor === 'pointer';
    /** The control an element is part of: a control by its tag or role, or what a pointer cursor is set on. */
    const controlOf = (el: Element): Element | null => {
      const tagged = el.closest(CONTROL);
      if (tagged) return tagged;
      let at: Element | null = pointer(el) ? el : null;
      while (at && pointer(at.parentElement)) at = at.parentElement;
      return at;
    };
    const textAt = (el: Element, x: number, y: number) =>
      [...el.childNodes].some((n) => {
        if (n.nodeType !== Node.TEXT_NODE || !n.textContent?.trim()) return false;
        const range = document.createRange();
        range.selectNodeContents(n);
        return [...range.getClientRects()].some((r) => x >= r.left && x <= r.right && y >= r.top && y <= r.bottom);
      });
    const opaque = (el: Element) => {
      const c = getComputedStyle(el).backgroundColor;
      const alpha = /rgba\([^)]*,\s*([\d.]+)\)/.exec(c);
      return c !== 'transparent' && (!alpha || Number(alpha[1]) === 1);
    };
    const describe = (el: Element) => {
      const cls = typeof el.className === 'string' ? el.className.split(/\s+/).filter(Boolean).slice(0, 2) : [];
      const text = (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 24);
      return `<${el.tagName.toLowerCase()}${cls.map((c) => `.${c}`).join('')}> “${text}”`;
    };
    const found = new Set<string>();
    for (let x = box.left + 1; x < box.right; x += 4) {
      for (let y = box.top + 1; y < box.bottom; y += 4) {
        for (const el of document.elementsFromPoint(x, y)) {
          if (own.contains(el)) continue;
          const control = controlOf(el);
          if (control) found.add(`control ${describe(control)}`);
          else if (textAt(el, x, y)) found.add(`text ${describe(el)}`);
          if (opaque(el)) break;
        }
      }
    }
    return [...found];
  });
}

/** Under the bubble as the page opens, then scrolled through to its end: what it covered anywhere on the way. */
async function coveredWhileScrolling(page: Page): Promise<string[]> {
  const covered = new Set(await coveredUnderBubble(page));
  const height = await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);
  for (let top = 120; top < height + 120; top += 120) {
    await page.evaluate((y) => window.scrollTo(0, y), Math.min(top, height));
    for (const c of await coveredUnderBubble(page)) covered.add(c);
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  return [...covered];
}

/** The routes looked at, each as whom, a text that shows once its content is in, and what to do there first. */
const ROUTES: { path: string; as: 'user' | 'admin'; ready: string; then?: (page: Page) => Promise<void> }[] = [
  { path: '/', as: 'user', ready: '首页' },
  // An admin's home has more tiles: 执行记录 among them.
  { path: '/', as: 'admin', ready: '执行记录' },
  { path: '/mall', as: 'user', ready: '积分商城' },
  { path: '/about', as: 'user', ready: '我的' },
  {
    path: '/two_factor',
    as: 'user',
    ready: '开始设置',
    // Setting it up: the QR code, the key to type in and the code's field make the page long.
    then: async (page) => {
      await page.getByRole('button', { name: '开始设置' }).click();
      await page.getByText('用验证器扫描二维码', { exact: false }).waitFor();
    },
  },
  { path: '/clockVip', as: 'admin', ready: '可用' },
];

describe('the announcement bubble at rest', () => {
  for (const scheme of ['light', 'dark'] as const) {
    for (const route of ROUTES) {
      it(`covers no text and no control on ${route.path} as ${route.as} (${scheme})`, async () => {
        const { context, page } = await newPhone(opened.browser, {
          session: route.as === 'admin' ? opened.adminApi : userApi,
          announcementRead: true,
          mallNoticeRead: true,
          colorScheme: scheme,
        });
        try {
          await page.goto(route.path);
          await page.getByText(route.ready, { exact: true }).first().waitFor();
          await route.then?.(page);
          await atRest(page);
          const box = (await bubble(page).boundingBox())!;
          // Still a thumb's target, and wholly on the screen.
          expect(Math.min(box.width, box.height)).toBeGreaterThanOrEqual(44);
          expect(box.x).toBeGreaterThanOrEqual(0);
          expect(box.x + box.width).toBeLessThanOrEqual(390);
          expect(box.y + box.height).toBeLessThanOrEqual(844);
          await shot(page, `bubble-${route.path.slice(1) || 'home'}-${route.as}-${scheme}`);
          expect(await coveredWhileScrolling(page)).toEqual([]);
        } finally {
          await context.close();
        }
      });
    }
  }
});
