import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { OPERATIONS } from '../../src/api/generated/operations.gen';
import type { OperationId } from '../../src/api/operations';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { kill, startServer, type Server } from '../helpers/server-process';
import { ADMIN } from '../helpers/test-app';
import { expectAccessible } from './a11y-checks';
import { launchBrowser, newPhone, overlaysSettled, pathOf, shot } from './helpers';

// ADMIN_2FA=required on a fresh install (a server of its own: the suite's shared one runs `optional`): the seeded
// admin is sent to enrol at its first sign-in, enrols by reading the key off the page and computing a code with
// otpauth, then signs in again with a code and with a recovery code. The server and these codes share the real clock.

const codeAt = (key: string, timestamp: number) =>
  new TOTP({ secret: Secret.fromBase32(key), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp });

let db: TestDatabase;
let server: Server;
let browser: Browser;

beforeAll(async () => {
  db = await createTestDatabase('sqlite');
  server = await startServer(db, 'e2e-two-factor-secret-e2e-two-factor-secret', { ADMIN_2FA: 'required' });
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  if (server) await kill(server.child, 'SIGTERM');
  await db?.drop();
});

const phone = () => newPhone(browser, { base: server.base, announcementRead: true });

/** The API of this test's server by operationId, keeping the `sid` cookie; answers the data of a success. */
function apiOf() {
  let sid: string | undefined;
  const ok = async (operationId: OperationId, body?: unknown): Promise<any> => {
    const { method, path } = OPERATIONS[operationId];
    const response = await fetch(new URL(path, server.base), {
      method: method.toUpperCase(),
      headers: {
        'X-Requested-With': 'XMLHttpRequest',
        ...(sid ? { cookie: `sid=${sid}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      if (pair.startsWith('sid=')) sid = pair.slice(4) || undefined;
    }
    const json = (await response.json()) as { code: number; message: string; data: unknown };
    if (json.code !== 0) throw new Error(`${operationId}: ${json.code} ${json.message}`);
    return json.data;
  };
  return { ok, sid: () => sid };
}

async function password(page: Page) {
  await page.goto('/login');
  await page.locator('#field-userAccount').fill(ADMIN.userAccount);
  await page.locator('#field-userPassword').fill(ADMIN.userPassword);
  await page.getByRole('button', { name: '登录', exact: true }).click();
}

describe('two-factor sign-in for the seeded admin (ADMIN_2FA=required)', () => {
  let key = '';
  let recoveryCodes: string[] = [];

  it('is asked to enrol at its first sign-in, and enrols from the QR code page', async () => {
    const { context, page } = await phone();
    try {
      await password(page);
      await page.waitForURL((u) => u.pathname === '/two_factor');
      // Another screen is refused until enrolled: the guard sends it back.
      await page.goto('/user_management');
      await page.waitForURL((u) => u.pathname === '/two_factor');
      await page.getByText('管理员必须开启两步验证').waitFor();

      await page.getByRole('button', { name: '开始设置' }).click();
      await page.locator('img.two-factor-qr').waitFor();
      // Shown in groups of four; an authenticator takes it without the spaces.
      key = ((await page.getByTestId('two-factor-key').textContent()) ?? '').replace(/\s/g, '');
      expect(key).toMatch(/^[A-Z2-7]{32}$/);
      await overlaysSettled(page);
      await shot(page, 'two-factor-enrol');
      await expectAccessible(page);

      await page.locator('#two-factor-code').fill(codeAt(key, Date.now()));
      await page.getByRole('button', { name: '确认开启' }).click();
      const list = page.getByTestId('recovery-codes');
      await list.waitFor();
      recoveryCodes = (await list.locator('li').allTextContents()).map((c) => c.trim());
      expect(recoveryCodes).toHaveLength(10);
      await overlaysSettled(page);
      await shot(page, 'two-factor-recovery-codes');
      await expectAccessible(page);

      await page.getByRole('button', { name: '我已保存' }).click();
      await page.waitForURL((u) => u.pathname === '/');
      await page.goto('/user_management');
      await page.waitForURL((u) => u.pathname === '/user_management');
    } finally {
      await context.close();
    }
  });

  it('signs in again with a code on the second screen', async () => {
    const { context, page } = await phone();
    try {
      await password(page);
      await page.getByText('两步验证', { exact: true }).first().waitFor();
      expect(pathOf(page)).toBe('/login');
      await overlaysSettled(page);
      await shot(page, 'two-factor-second-step');
      await expectAccessible(page);
      // The enrolment took this step's code; the next step's is within the drift the server allows.
      await page.locator('#field-code').fill(codeAt(key, Date.now() + 30_000));
      await page.getByRole('button', { name: '验证并登录' }).click();
      await page.waitForURL((u) => u.pathname === '/');
    } finally {
      await context.close();
    }
  });

  it('signs in with a recovery code, which works once', async () => {
    const { context, page } = await phone();
    try {
      await password(page);
      await page.locator('#field-code').fill(recoveryCodes[0]!);
      await page.getByRole('button', { name: '验证并登录' }).click();
      await page.waitForURL((u) => u.pathname === '/');
      await page.goto('/two_factor');
      await page.getByText('剩余恢复码 9 个').waitFor();
      await overlaysSettled(page);
      await shot(page, 'two-factor-on');
      await expectAccessible(page);
    } finally {
      await context.close();
    }
    const again = await phone();
    try {
      await password(again.page);
      await again.page.locator('#field-code').fill(recoveryCodes[0]!);
      await again.page.getByRole('button', { name: '验证并登录' }).click();
      await again.page.locator('.adm-toast-main', { hasText: '验证码错误' }).waitFor();
      expect(pathOf(again.page)).toBe('/login');
    } finally {
      await again.context.close();
    }
  });

  it('resets a user’s 2FA from 用户详情 (the admin signed in with a recovery code)', async () => {
    const admin = apiOf();
    const challenge = await admin.ok('userLogin', ADMIN);
    await admin.ok('userLoginSecondStep', { challenge: challenge.challenge, code: recoveryCodes[1] });
    const userAccount = `tfa_${Date.now().toString(36).slice(-6)}`;
    const id = await admin.ok('userAdd', { userAccount, userPassword: ADMIN.userPassword });
    const user = apiOf();
    await user.ok('userLogin', { userAccount, userPassword: ADMIN.userPassword });
    const { key: userKey } = await user.ok('twoFactorSetup');
    await user.ok('twoFactorEnable', { code: codeAt(userKey, Date.now()) });

    const { context, page } = await phone();
    try {
      await context.addCookies([
        { name: 'sid', value: admin.sid()!, url: server.base, httpOnly: true, sameSite: 'Lax' },
      ]);
      await page.goto(`/user_detail?id=${id}`);
      await page.locator('.adm-list-item', { hasText: '两步验证' }).getByText('已开启').waitFor();
      await page.getByRole('button', { name: '重置两步验证' }).click();
      const confirm = page.locator('.adm-dialog .adm-dialog-body');
      await confirm.waitFor();
      await overlaysSettled(page);
      await shot(page, 'two-factor-reset-confirm');
      await confirm.getByRole('button', { name: '确定', exact: true }).click();
      await page.locator('.adm-toast-main', { hasText: '两步验证已重置' }).waitFor();
      // The user signs in with its password alone, and its inbox tells it.
      const again = apiOf();
      expect((await again.ok('userLogin', { userAccount, userPassword: ADMIN.userPassword })).twoFactor).toBe(false);
      const inbox = await again.ok('noticeMy', { current: 1, pageSize: 10 });
      expect(inbox.records.map((n: { kind: string }) => n.kind)).toContain('two_factor_reset');
    } finally {
      await context.close();
    }
  });
});
