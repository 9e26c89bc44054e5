import { describe, expect, it } from 'vitest';
import { expectAccessible } from './a11y-checks';
import { browserAndAdmin, dialog, newPhone, openScreen, overlaysSettled, shot, toast } from './helpers';

// 批量发放额度 (issue 35, "no dead ends") in Chromium at 390×844, light and dark: a CSV with errors is answered by a list
// of its bad lines under the field (the first 100, the total, 复制全部), not by a toast; the page is photographed
// (test-results/e2e/quota-csv-*.png) to be looked at.
const opened = browserAndAdmin();

/** A file with one of each kind of mistake, then 150 accounts that do not exist: more problems than the page lists. */
const BAD_CSV = [
  'userAccount,amount',
  'zhangsan,10',
  '',
  '张三,5',
  'lisi_01,0',
  'wangwu_02,3',
  'wangwu_02,4',
  'an_account_name_far_too_long_to_be_real,1',
  'zhaoliu_03',
  ...Array.from({ length: 150 }, (_, i) => `ghost_${i},1`),
].join('\n');

describe('批量发放额度 with a bad CSV', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    it(`lists the file's problems under it, the first 100 with the total, no toast (${colorScheme})`, async () => {
      const { page, context } = await newPhone(opened.browser, {
        session: opened.adminApi,
        announcementRead: true,
        colorScheme,
      });
      try {
        await openScreen(page, '/tasks/quota', '批量发放额度');
        // Before any upload: the columns in words, the one-line-per-account rule, the header-only template.
        await page.getByText('每个账号只能出现一次').waitFor();
        await page.getByRole('link', { name: '下载模板' }).waitFor();
        await shot(page, `quota-csv-form-${colorScheme}`);
        await expectAccessible(page);

        await page
          .locator('input[type=file]')
          .setInputFiles({ name: 'grants.csv', mimeType: 'text/csv', buffer: Buffer.from(BAD_CSV) });
        await page.getByLabel('原因').fill('活动奖励');
        await page.getByRole('button', { name: '提交' }).click();
        // A grant to many users is asked first, with how many accounts the file names.
        const question = dialog(page).filter({ hasText: /确定给 \d+ 个账号发放/ });
        await question.waitFor();
        await overlaysSettled(page);
        await shot(page, `quota-csv-confirm-${colorScheme}`);
        await question.getByRole('button', { name: '开始发放' }).click();

        const list = page.getByRole('region', { name: '文件中的错误' });
        await list.waitFor();
        const total = 158;
        expect(await list.getByRole('alert').textContent()).toBe(
          `CSV 有 ${total} 处错误，任务未开始，请按下方列表改正后重新上传`,
        );
        expect(await list.textContent()).toContain(`共 ${total} 处错误，下面列出前 100 处`);
        expect(await list.locator('tbody tr').count()).toBe(100);
        expect(await list.locator('tbody tr').first().locator('td').allTextContents()).toEqual([
          '第 2 行',
          'zhangsan',
          '账号不存在或已注销',
        ]);
        expect(await toast(page, /处错误/).count()).toBe(0);

        // Readable on the phone: nothing wider than the screen, the long list in a box that scrolls on its own,
        // brought into sight above the button just tapped.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        const box = list.locator('.form-problems-scroll');
        const { scrollHeight, clientHeight } = await box.evaluate((el) => ({
          scrollHeight: el.scrollHeight,
          clientHeight: el.clientHeight,
        }));
        expect(scrollHeight).toBeGreaterThan(clientHeight);
        expect(clientHeight).toBeLessThanOrEqual(400);
        await page.waitForTimeout(500);
        const where = (await list.boundingBox())!;
        expect(where.y).toBeGreaterThanOrEqual(0);
        expect(where.y).toBeLessThan(844);
        expect(where.x + where.width).toBeLessThanOrEqual(390);
        await shot(page, `quota-csv-problems-${colorScheme}`);
        // WCAG 2.1 AA with the list shown (the route-by-route suite sees the form before any upload only).
        await expectAccessible(page);
        // Further down the box: a long account broken inside its column, the table's header still on top.
        await box.evaluate((el) => el.scrollBy(0, 240));
        await shot(page, `quota-csv-problems-scrolled-${colorScheme}`);
      } finally {
        await context.close();
      }
    });
  }
});
