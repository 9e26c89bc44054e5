import { copyFileSync, mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserAndAdmin, newPhone, newSignedInUser, openScreen, overlaysSettled, shot } from './helpers';

// The inbox and the batch tasks on a phone: an admin's broadcast reaches a user's /notice with the unread badge on
// the my-page tab; a batch started from /tasks shows its progress bar moving to done. Screenshots are copied to
// SHOTS_DIR when it is set (reviewers look at them; they are not kept in the repository).

const env = browserAndAdmin();

async function keep(page: Page, name: string) {
  const path = await shot(page, name);
  const dir = process.env.SHOTS_DIR;
  if (dir) {
    mkdirSync(dir, { recursive: true });
    copyFileSync(path, `${dir}/${name}.png`);
  }
}

async function taskDone(id: number) {
  for (let i = 0; i < 100; i++) {
    if ((await env.adminApi.ok('taskGet', { query: { id } })).state === 'done') return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`task ${id} did not finish`);
}

describe('the inbox', () => {
  it("a broadcast appears in the user's /notice with the unread badge; opening it marks it read", async () => {
    const { api } = await newSignedInUser('inbox');
    const task = await env.adminApi.ok('noticeBroadcast', {
      body: { title: '系统维护通知', body: '今晚 23:00 至 23:30 系统维护，期间服务暂停。', role: 'all' },
    });
    await taskDone(task.id);
    const { context, page } = await newPhone(env.browser, { session: api, announcementRead: true });
    try {
      await openScreen(page, '/about', '我的');
      const badge = page.locator('.app-tabbar .adm-badge-content');
      await expect.poll(() => badge.textContent()).toBe('1');
      await openScreen(page, '/notice', '消息通知');
      const row = page.locator('.list-row-highlight', { hasText: '系统维护通知' });
      await row.waitFor();
      await keep(page, 'notice');
      await row.click();
      await page.locator('.adm-dialog-content', { hasText: '今晚 23:00' }).waitFor();
      await overlaysSettled(page);
      await keep(page, 'notice-open');
      await page.getByRole('button', { name: '确定' }).click();
      await expect.poll(() => page.locator('.list-row-highlight').count()).toBe(0);
      await expect.poll(() => badge.count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});

describe('batch tasks', () => {
  it('a batch started from /tasks shows its progress bar moving to done; its detail shows the record', async () => {
    const { context, page } = await newPhone(env.browser, { session: env.adminApi, announcementRead: true });
    try {
      await openScreen(page, '/tasks', '批量任务');
      await page.getByRole('button', { name: '导出全部积分明细' }).click();
      await page.getByRole('button', { name: '确定' }).click();
      const first = page.locator('.adm-list-item').first();
      await first.getByText('导出全部用户积分明细').waitFor();
      await expect.poll(() => first.getByText('已完成').count(), { timeout: 20_000 }).toBe(1);
      const bar = first.getByRole('progressbar');
      expect(await bar.getAttribute('aria-valuenow')).toBe(await bar.getAttribute('aria-valuemax'));
      await page.locator('.adm-toast-main').waitFor({ state: 'detached' });
      await keep(page, 'tasks');
      // A finished task has nothing but its detail to offer: the tap opens it, without a sheet on the way.
      await first.click();
      await page.locator('.adm-nav-bar-title', { hasText: '任务详情' }).waitFor();
      expect(await page.locator('.adm-action-sheet').count()).toBe(0);
      await page.getByText('下载导出文件').waitFor();
      await page.getByText('没有失败的条目').waitFor();
      await keep(page, 'task-detail');
    } finally {
      await context.close();
    }
  });
});
