import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { freePort } from '../helpers/ports';
import { kill, startServer, type Server } from '../helpers/server-process';
import { ADMIN } from '../helpers/test-app';
import { expectAccessible } from './a11y-checks';
import { answerDialog, launchBrowser, newPhone, overlaysSettled, pathOf, rowAction, shot, toast } from './helpers';

// Passkeys end to end in Chromium, with its virtual authenticator (CDP WebAuthn.addVirtualAuthenticator) standing in
// for the phone's: added from 我的 → 通行密钥, used on the login page's 使用通行密钥登录, refused when a copy of it
// signs with a counter that went backwards, and refused once removed. A server of its own: passkeys are bound to
// PUBLIC_ORIGIN, here http://localhost:<port> (WebAuthn has no relying party on an IP address).

let db: TestDatabase;
let server: Server;
let origin: string;
let browser: Browser;

beforeAll(async () => {
  db = await createTestDatabase('sqlite');
  const port = await freePort();
  origin = `http://localhost:${port}`;
  server = await startServer(db, 'e2e-passkeys-secret-e2e-passkeys-secret', {
    PORT: String(port),
    PUBLIC_ORIGIN: origin,
  });
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  if (server) await kill(server.child, 'SIGTERM');
  await db?.drop();
});

interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  privateKey: string;
  userHandle?: string;
  signCount: number;
}

/** A phone at the site's own origin, with a virtual platform authenticator that verifies its user. */
async function phone(): Promise<{ context: BrowserContext; page: Page; cdp: CDPSession; authenticatorId: string }> {
  const { context, page } = await newPhone(browser, { base: origin, announcementRead: true });
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const authenticatorId = await addAuthenticator(cdp);
  return { context, page, cdp, authenticatorId };
}

async function addAuthenticator(cdp: CDPSession): Promise<string> {
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return authenticatorId;
}

async function signInWithPassword(page: Page) {
  await page.goto('/login');
  await page.locator('#field-userAccount').fill(ADMIN.userAccount);
  await page.locator('#field-userPassword').fill(ADMIN.userPassword);
  await page.getByRole('button', { name: '登录', exact: true }).click();
  await page.waitForURL((u) => u.pathname !== '/login');
}

async function signInWithPasskey(page: Page) {
  await page.context().clearCookies();
  await page.goto('/login');
  await page.getByRole('button', { name: '使用通行密钥登录' }).click();
}

describe('passkeys in Chromium (virtual authenticator)', () => {
  it('are added from 我的 → 通行密钥, sign in without a password, refuse a cloned counter and stop working once removed', async () => {
    const { context, page, cdp, authenticatorId } = await phone();
    try {
      await signInWithPassword(page);
      await page.goto('/passkeys');
      await page.getByText('还没有通行密钥').waitFor();
      await shot(page, 'passkeys-empty');
      await expectAccessible(page);

      await page.getByText('添加通行密钥').first().click();
      await page.waitForURL((u) => u.pathname === '/passkey_add');
      await page.getByLabel('名称').fill('测试手机');
      await overlaysSettled(page);
      await shot(page, 'passkey-add');
      await expectAccessible(page);
      await page.getByRole('button', { name: '在本设备上创建' }).click();
      await toast(page, '通行密钥已添加').waitFor();
      await page.waitForURL((u) => u.pathname === '/passkeys');
      await page.locator('.adm-list-item', { hasText: '测试手机' }).getByText('还没有用它登录过').waitFor();
      await shot(page, 'passkeys-one');
      await expectAccessible(page);
      const [made] = (await cdp.send('WebAuthn.getCredentials', { authenticatorId }))
        .credentials as VirtualCredential[];
      expect(made).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });

      // Signed out, the login page's passkey button signs in: no account, no password, no code.
      await signInWithPasskey(page);
      await page.waitForURL((u) => u.pathname === '/');
      await page.goto('/passkeys');
      await page
        .locator('.adm-list-item', { hasText: '测试手机' })
        .getByText(/最近使用/)
        .waitFor();
      const [used] = (await cdp.send('WebAuthn.getCredentials', { authenticatorId }))
        .credentials as VirtualCredential[];
      expect(used!.signCount).toBeGreaterThan(0);

      // A copy of the credential on another authenticator, its counter behind the server's: refused.
      await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
      const clone = await addAuthenticator(cdp);
      await cdp.send('WebAuthn.addCredential', { authenticatorId: clone, credential: { ...used!, signCount: 0 } });
      await signInWithPasskey(page);
      await toast(page, '可能被复制过').waitFor();
      expect(pathOf(page)).toBe('/login');
      await shot(page, 'passkey-cloned-refused');

      // The genuine one (its counter ahead) still signs in; removed from 通行密钥, it no longer does.
      await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: clone });
      const genuine = await addAuthenticator(cdp);
      await cdp.send('WebAuthn.addCredential', {
        authenticatorId: genuine,
        credential: { ...used!, signCount: used!.signCount + 10 },
      });
      await signInWithPasskey(page);
      await page.waitForURL((u) => u.pathname === '/');
      await page.goto('/passkeys');
      await rowAction(page, '测试手机', '移除');
      await answerDialog(page, '确定移除「测试手机」吗');
      await toast(page, '通行密钥已移除').waitFor();
      await page.getByText('还没有通行密钥').waitFor();

      await signInWithPasskey(page);
      await toast(page, '已被移除').waitFor();
      expect(pathOf(page)).toBe('/login');
      await overlaysSettled(page);
      await shot(page, 'passkey-login-refused');
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });
});
