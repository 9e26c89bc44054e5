import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';
import type { OperationId, RequestBody, RequestQuery, ResponseData } from '../../src/api/operations';
import { OPERATIONS } from '../../src/api/generated/operations.gen';

// What every e2e test needs: the running server's address, the API as a signed-in user or the admin (with the
// session cookie kept like a browser keeps it), Debian's Chromium as a phone, and screenshots under test-results/e2e.

export const baseUrl = (): string => inject('baseUrl');
export const url = (path: string): string => new URL(path, baseUrl()).href;

export const ADMIN_ACCOUNT = 'admin';
export const adminPassword = (): string => inject('adminPassword');

// ---------------------------------------------------------------------------------------------------------------- API

export interface Envelope<T> {
  status: number;
  code: number;
  message: string;
  data: T;
}

type Init<K extends OperationId> = {
  query?: RequestQuery<K>;
  body?: RequestBody<K>;
  /** Extra headers, e.g. the Idempotency-Key of an operation that moves coins or quota. */
  headers?: Record<string, string>;
};

/** The API by operationId, keeping the `sid` cookie between calls; every call carries `X-Requested-With`. */
export class ApiSession {
  sid: string | undefined;

  async call<K extends OperationId>(operationId: K, init: Init<K> = {}): Promise<Envelope<ResponseData<K>>> {
    const { method, path } = OPERATIONS[operationId];
    const target = new URL(path, baseUrl());
    for (const [k, v] of Object.entries(init.query ?? {})) {
      if (v !== undefined) target.searchParams.append(k, String(v));
    }
    const headers: Record<string, string> = { ...init.headers, 'X-Requested-With': 'XMLHttpRequest' };
    if (this.sid) headers.cookie = `sid=${this.sid}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(target, {
      method: method.toUpperCase(),
      headers,
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      if (pair.startsWith('sid=')) this.sid = pair.slice(4) || undefined;
    }
    const json = (await response.json()) as Omit<Envelope<ResponseData<K>>, 'status'>;
    return { status: response.status, ...json };
  }

  /** Calls and insists on success (code 0), answering the envelope's data. */
  async ok<K extends OperationId>(operationId: K, init: Init<K> = {}): Promise<ResponseData<K>> {
    const result = await this.call(operationId, init);
    if (result.code !== 0) throw new Error(`${operationId} failed: ${result.status} ${result.code} ${result.message}`);
    return result.data;
  }
}

/** A coin-moving call as the app makes it: with an Idempotency-Key (the shared ApiSession sends none). */
export async function keyed<K extends OperationId>(
  session: ApiSession,
  operationId: K,
  body: RequestBody<K>,
): Promise<ResponseData<K>> {
  const { method, path } = OPERATIONS[operationId];
  const response = await fetch(url(path), {
    method: method.toUpperCase(),
    headers: {
      'X-Requested-With': 'XMLHttpRequest',
      'content-type': 'application/json',
      'Idempotency-Key': crypto.randomUUID(),
      cookie: `sid=${session.sid}`,
    },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { code: number; message: string; data: ResponseData<K> };
  if (json.code !== 0) throw new Error(`${operationId} failed: ${response.status} ${json.code} ${json.message}`);
  return json.data;
}

export interface TestUser {
  id: number;
  userAccount: string;
  userPassword: string;
}

let counter = 0;
/** A fresh account name: 4–16 letters, digits or underscores. */
export function uniqueAccount(prefix = 'e2e'): string {
  counter++;
  return `${prefix}_${Date.now().toString(36).slice(-5)}${counter.toString(36)}${Math.floor(Math.random() * 36 ** 2).toString(36)}`.slice(
    0,
    16,
  );
}

export const PASSWORD = 'E2ePassw0rd!';

/**
 * A new ordinary user, created by the admin through the API. Not by registration: the server allows 10 registrations
 * per address an hour and every e2e user comes from 127.0.0.1, so the suite keeps its registrations for the tests of
 * the register screen itself.
 */
export async function registerUser(prefix = 'e2e'): Promise<TestUser> {
  const userAccount = uniqueAccount(prefix);
  const admin = await loginAdmin();
  const id = await admin.ok('userAdd', { body: { userAccount, userPassword: PASSWORD } });
  // An account an admin made has agreed to nothing: its user agrees once (loginApi), then leaves no session behind.
  await (await loginApi(userAccount, PASSWORD)).ok('userLogout');
  return { id, userAccount, userPassword: PASSWORD };
}

/**
 * Signs in through the API. A user who has not agreed to the site's current 用户协议 and 隐私政策 (an account an admin
 * made, or one older than a change of them) agrees here, as it would on its first page (the policy test asks it
 * through the screen instead); an admin is never asked.
 */
export async function loginApi(userAccount: string, userPassword: string): Promise<ApiSession> {
  const session = new ApiSession();
  const me = await session.ok('userLogin', { body: { userAccount, userPassword } });
  if (!session.sid) throw new Error(`logging in ${userAccount} set no session cookie`);
  if ('policyAccepted' in me && me.userRole !== 'admin') {
    const { policyVersion } = await siteInformation();
    if (me.policyAccepted < policyVersion) await session.ok('policyAccept', { body: { version: policyVersion } });
  }
  return session;
}

/** A new user, registered and logged in through the API. */
export async function newSignedInUser(prefix = 'e2e'): Promise<{ user: TestUser; api: ApiSession }> {
  const user = await registerUser(prefix);
  return { user, api: await loginApi(user.userAccount, user.userPassword) };
}

export const loginAdmin = (): Promise<ApiSession> => loginApi(ADMIN_ACCOUNT, adminPassword());

export async function siteInformation() {
  return new ApiSession().ok('basicInformationGet', { query: { id: 1 } });
}

/**
 * Switches the built-in sandbox payment channel on or off. It is on by default (the e2e server's PUBLIC_ORIGIN is
 * localhost), so the mall offers online payment; a test of the offline purchase (an admin confirms the payment)
 * switches it off for itself and back on after.
 */
export async function sandboxPayment(admin: ApiSession, on: boolean): Promise<void> {
  const { records } = await admin.ok('payChannelListPage', { body: { current: 1, pageSize: 100 } });
  const sandbox = records.find((c) => c.kind === 'sandbox');
  if (!sandbox) throw new Error('the server has no sandbox payment channel');
  await admin.ok('payChannelUpdate', { body: { id: sandbox.id, methods: sandbox.methods, enabled: on ? 1 : 0 } });
}

// ------------------------------------------------------------------------------------------------------------ Browser

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** A test file's browser and the admin's API session, opened before its tests; the browser is closed after them. */
export function browserAndAdmin(): { readonly browser: Browser; readonly adminApi: ApiSession } {
  const opened = {} as { browser: Browser; adminApi: ApiSession };
  beforeAll(async () => {
    opened.browser = await launchBrowser();
    opened.adminApi = await loginAdmin();
  });
  afterAll(async () => {
    await opened.browser?.close();
  });
  return opened;
}

export interface ContextOptions {
  /** Signs the context in with this API session's cookie. */
  session?: ApiSession;
  /**
   * Marks the announcement read for this browser session (sessionStorage `dialog`), so the dialog the app opens by
   * itself once per session does not cover what a test taps. The announcement tests leave it unset.
   */
  announcementRead?: boolean;
  /** Marks the mall's 购买须知 read as well (flag `mallRead`), for tests that only pass through 积分商城. */
  mallNoticeRead?: boolean;
  /** The phone's time zone (the browser's own by default); the site's is Asia/Shanghai. */
  timezoneId?: string;
  /** The system's light or dark setting (light by default). */
  colorScheme?: 'light' | 'dark';
  /** A server of the test's own (its origin) instead of the suite's shared one. */
  base?: string;
}

/** A phone: 390×844, touch, zh-CN; optionally signed in, or on a server of the test's own (`base`). */
export async function newPhone(
  browser: Browser,
  options: ContextOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const base = options.base ?? baseUrl();
  const context = await browser.newContext({
    baseURL: base,
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    locale: 'zh-CN',
    ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
    colorScheme: options.colorScheme ?? 'light',
  });
  if (options.session?.sid) {
    await context.addCookies([{ name: 'sid', value: options.session.sid, url: base, httpOnly: true, sameSite: 'Lax' }]);
  }
  if (options.announcementRead || options.mallNoticeRead) {
    await context.addInitScript(
      ({ isRead, mallRead }) => {
        const saved = JSON.parse(window.sessionStorage.getItem('dialog') ?? '{}') as Record<string, unknown>;
        window.sessionStorage.setItem(
          'dialog',
          JSON.stringify({
            isRead: false,
            mallRead: false,
            ...saved,
            ...(isRead ? { isRead } : {}),
            ...(mallRead ? { mallRead } : {}),
          }),
        );
      },
      { isRead: options.announcementRead === true, mallRead: options.mallNoticeRead === true },
    );
  }
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  return { context, page };
}

/** Logs in through the login screen and waits until the app has left it. */
export async function loginThroughUi(page: Page, userAccount: string, userPassword: string): Promise<void> {
  if (page.url() === 'about:blank' || pathOf(page) !== '/login') await page.goto('/login');
  await page.locator('#field-userAccount').fill(userAccount);
  await page.locator('#field-userPassword').fill(userPassword);
  await page.getByRole('button', { name: '登录', exact: true }).click();
  await page.waitForURL((u) => u.pathname !== '/login');
}

/** The path of the page's URL (without query). */
export const pathOf = (page: Page): string => new URL(page.url()).pathname;

/** A finger drag through the DevTools protocol (the floating bubble listens to touch events on a touch screen). */
export async function touchDrag(
  page: Page,
  from: { x: number; y: number },
  to: { x: number; y: number },
  steps = 12,
): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const point = (x: number, y: number) => [
      { x: Math.round(x), y: Math.round(y), id: 1, radiusX: 1, radiusY: 1, force: 1 },
    ];
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: point(from.x, from.y) });
    for (let i = 1; i <= steps; i++) {
      const x = from.x + ((to.x - from.x) * i) / steps;
      const y = from.y + ((to.y - from.y) * i) / steps;
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: point(x, y) });
    }
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  } finally {
    await cdp.detach();
  }
}

/**
 * Waits until the open overlays (dialog, action sheet, their masks) have finished animating in: antd-mobile animates
 * them with springs, not CSS, so a tap or a screenshot right after they appear meets them half-faded.
 */
export async function overlaysSettled(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const shown = (el: HTMLElement) => el.style.display !== 'none';
    // Both refuse taps (pointer-events: none) until fully in; the dialog's and the masks' opacity rises to 1.
    const bodies = [...document.querySelectorAll<HTMLElement>('.adm-center-popup-wrap, .adm-popup-body')].filter(shown);
    const faders = [...document.querySelectorAll<HTMLElement>('.adm-center-popup-wrap, .adm-mask')].filter(shown);
    return (
      bodies.every((el) => el.style.pointerEvents !== 'none') &&
      faders.every((el) => getComputedStyle(el).opacity === '1')
    );
  });
}

/** Where screenshots go: test-results/e2e, or E2E_SHOT_DIR (to look at them outside the repository). */
export const SHOT_DIR = process.env.E2E_SHOT_DIR ?? resolve(import.meta.dirname, '../../test-results/e2e');

/** Saves a screenshot of the viewport as <SHOT_DIR>/<name>.png (gitignored) and answers its path. */
export async function shot(page: Page, name: string): Promise<string> {
  mkdirSync(SHOT_DIR, { recursive: true });
  const path = resolve(SHOT_DIR, `${name}.png`);
  await page.screenshot({ path, animations: 'disabled', caret: 'hide' });
  return path;
}

export const dialog = (page: Page) => page.locator('.adm-dialog .adm-dialog-body');
export const toast = (page: Page, text: string | RegExp) => page.locator('.adm-toast-main', { hasText: text });

export async function openScreen(page: Page, path: string, title: string | RegExp) {
  await page.goto(path);
  await page.locator('.adm-nav-bar-title', { hasText: title }).waitFor();
}

/** Waits for the dialog showing `text`, then taps its 确定 (the confirm's OK, or the alert's only button). */
export async function answerDialog(page: Page, text: string | RegExp) {
  const shown = dialog(page).filter({ hasText: text });
  await shown.waitFor();
  await overlaysSettled(page);
  await shown.getByRole('button', { name: '确定' }).click();
  await shown.waitFor({ state: 'detached' });
}

/** Taps a list row, then an action of the sheet it opens. */
export async function rowAction(page: Page, row: string, action: string) {
  await page.locator('.adm-list-item', { hasText: row }).first().click();
  await page.locator('.adm-action-sheet').waitFor();
  await overlaysSettled(page);
  await page.locator('.adm-action-sheet-button-item', { hasText: action }).click();
}
