import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserAndAdmin, newPhone, shot } from './helpers';

// Dark mode follows the phone's setting: the same screens, their page, cards, text, notice bar and watermark in dark
// colours when the system asks for dark, and back in light ones when it does not.

const opened = browserAndAdmin();

/** sRGB relative luminance of a computed `rgb(…)` colour (WCAG 2.1). */
function luminance(css: string): number {
  const [r, g, b] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
    const c = Number(v) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}
const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
};

/** The colours a user sees on home: the page, a card, a card's heading, the notice bar, and the watermark's ink. */
async function colours(page: Page) {
  await page.goto('/');
  await page.locator('.menu-title').first().waitFor();
  return page.evaluate(() => {
    const style = (selector: string) => getComputedStyle(document.querySelector(selector)!);
    const notice = style('.adm-notice-bar');
    return {
      scheme: document.documentElement.dataset.prefersColorScheme,
      page: style('body').backgroundColor,
      card: style('.menu-section').backgroundColor,
      heading: style('.menu-title').color,
      notice: notice.backgroundColor,
      noticeText: notice.color,
      header: style('.app-header').backgroundColor,
      title: style('.adm-nav-bar-title').color,
    };
  });
}

describe('dark mode', () => {
  it('follows the system setting, with text readable at 4.5:1 in both', async () => {
    const seen: Record<string, Awaited<ReturnType<typeof colours>>> = {};
    for (const colorScheme of ['light', 'dark'] as const) {
      const { context, page } = await newPhone(opened.browser, {
        session: opened.adminApi,
        announcementRead: true,
        colorScheme,
      });
      try {
        seen[colorScheme] = await colours(page);
        await shot(page, `home-${colorScheme}`);
      } finally {
        await context.close();
      }
    }
    const { light, dark } = seen as Record<'light' | 'dark', Awaited<ReturnType<typeof colours>>>;
    expect(light.scheme).toBe('light');
    expect(dark.scheme).toBe('dark');
    // Light: light surfaces and dark text; dark: the other way round.
    for (const surface of ['page', 'card', 'notice', 'header'] as const) {
      expect(luminance(light[surface]), `light ${surface}`).toBeGreaterThan(0.5);
      expect(luminance(dark[surface]), `dark ${surface}`).toBeLessThan(0.05);
    }
    expect(luminance(dark.heading)).toBeGreaterThan(luminance(light.heading));
    for (const scheme of [light, dark]) {
      expect(contrast(scheme.heading, scheme.card)).toBeGreaterThanOrEqual(4.5);
      expect(contrast(scheme.title, scheme.header)).toBeGreaterThanOrEqual(4.5);
    }
    // The light notice bar's colours are the accessibility work's (theme.css); the dark ones are theme-dark.css's.
    expect(contrast(dark.noticeText, dark.notice)).toBeGreaterThanOrEqual(4.5);
  });

  it('switches while the app is open when the system setting changes', async () => {
    const { context, page } = await newPhone(opened.browser, { session: opened.adminApi, announcementRead: true });
    try {
      const before = await colours(page);
      await page.emulateMedia({ colorScheme: 'dark' });
      await expect.poll(() => page.evaluate(() => document.documentElement.dataset.prefersColorScheme)).toBe('dark');
      const card = await page.evaluate(
        () => getComputedStyle(document.querySelector('.menu-section')!).backgroundColor,
      );
      expect(card).not.toBe(before.card);
      expect(luminance(card)).toBeLessThan(0.05);
    } finally {
      await context.close();
    }
  });
});
