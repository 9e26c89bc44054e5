import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  browserAndAdmin,
  newPhone,
  newSignedInUser,
  openScreen,
  overlaysSettled,
  pathOf,
  shot,
  type ApiSession,
} from './helpers';

// Free quota end to end: the admin grants it from /clockVip on a phone, and the user's next run on a priced
// platform is paid by it (coins unchanged), by the real scheduler of the production server. Also the AI
// configuration screen and the AI 润色 buttons on /system, as an admin sees them.

const env = browserAndAdmin();

const key = () => ({ 'Idempotency-Key': randomUUID() });

/** Waits (polling the API) until the run has an outcome. */
async function outcomeOf(api: ApiSession, runId: number) {
  for (let i = 0; i < 100; i++) {
    const page = await api.ok('runMy', { body: { current: 1, pageSize: 10 } });
    const run = page.records.find((r) => r.id === runId);
    if (run && !['due', 'running'].includes(run.state)) return run;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`run ${runId} did not finish`);
}

describe('free quota', () => {
  it('granted from /clockVip, pays the user’s next run: no coins move', async () => {
    // A kind no other e2e file puts on shelf: platform.test.ts shelves its 工学云 and expects /gxy to say it is closed.
    const platformId = await env.adminApi.ok('platformAdd', {
      body: { kind: 'xxy', name: '额度测试平台', price: 5, billingUnit: 'per_run', retryLimit: 0, status: 1 },
    });
    const { user, api } = await newSignedInUser('quota');
    await env.adminApi.ok('userAddCoin', {
      body: { userAccount: user.userAccount, coin: 20, description: '测试' },
      headers: key(),
    });

    const { context, page } = await newPhone(env.browser, { session: env.adminApi, announcementRead: true });
    try {
      await openScreen(page, '/clockVip', '免费额度管理');
      await page.getByRole('button', { name: '发放额度' }).click();
      await page.waitForURL((u) => u.pathname === '/add_quota');
      await page.getByLabel('账号').fill(user.userAccount);
      // The form starts on 按次 (a second tap would clear it).
      await page.getByLabel('数量').fill('3');
      // The platform is picked by its name, never typed as an id.
      await page.locator('.adm-selector-item', { hasText: '额度测试平台' }).click();
      await page.getByText('30 天').click();
      await page.getByLabel('原因').fill('新用户体验');
      await shot(page, 'add-quota-form');
      await page.getByRole('button', { name: '提交' }).click();
      await page.waitForURL((u) => u.pathname === '/clockVip');
      await page.getByText(`${user.userAccount} · 剩余 3/3 次`).waitFor();
      await page.getByText(/^额度测试平台 · 新用户体验/).waitFor();
      await overlaysSettled(page);
      await shot(page, 'clockVip-list');
    } finally {
      await context.close();
    }

    const saved = await api.ok('serviceSave', {
      body: { platformId, settings: { days: [1, 2, 3, 4, 5, 6, 7], checkInTime: '08:30', notify: 'inbox' } },
    });
    await api.ok('serviceStart', { body: { id: saved.id }, headers: key() });
    const queued = await api.ok('serviceRunNow', { body: { id: saved.id }, headers: key() });
    const run = await outcomeOf(api, queued.id);
    expect([run.state, run.charged]).toEqual(['succeeded', 0]);
    expect((await api.ok('userGetLogin')).coin).toBe(20);
    expect(await api.ok('quotaMy', { query: { platformId } })).toEqual({ runs: 2, days: 0 });
  });
});

describe('AI configuration', () => {
  it('shows the form with the key masked, and test connection says what is missing', async () => {
    const { context, page } = await newPhone(env.browser, { session: env.adminApi, announcementRead: true });
    try {
      await openScreen(page, '/ai/config', 'AI 配置');
      const keyInput = page.getByLabel(/API Key/);
      expect(await keyInput.getAttribute('type')).toBe('password');
      await shot(page, 'ai-config');
      await page.getByRole('button', { name: /测试连接/ }).click();
      const dialog = page.locator('.adm-dialog .adm-dialog-body');
      await expect.poll(() => dialog.locator('.adm-dialog-content').textContent()).toBe('尚未设置 API Key');
      await overlaysSettled(page);
      await shot(page, 'ai-config-test');
      expect(pathOf(page)).toBe('/ai/config');

      await openScreen(page, '/system', '系统管理');
      await page.getByRole('button', { name: 'AI 润色' }).first().waitFor();
      await shot(page, 'system-ai-polish');
    } finally {
      await context.close();
    }
  });
});
