// Screenshots of every route of the screen map at 390×844, light and dark, as the admin and as an ordinary user (and
// the public pages as a visitor), for a person to look at: not a test. Also writes contact sheets (six screens a
// sheet) beside them, quicker to look through.
//
//   npm run build && (start the server on a fresh database, with ADMIN_2FA=optional: the admin signs in with its
//   password alone) &&
//   SHOTS_BASE_URL=http://127.0.0.1:9701 ADMIN_PASSWORD=… npx tsx tools/screenshots.ts [out-dir] [path-filter]
//
// The out-dir defaults to /tmp/shots; screenshots never go into the repository. It adds one package to the mall and
// one order if the mall is empty, so those screens show a record.
import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { OPERATIONS } from '../src/api/generated/operations.gen';
import type { OperationId } from '../src/api/operations';
import { screens } from '../screens.config';

const BASE = process.env.SHOTS_BASE_URL ?? 'http://127.0.0.1:8080';
const OUT = resolve(process.argv[2] ?? '/tmp/shots');
const FILTER = process.argv[3] ?? '';
const ADMIN = process.env.ADMIN_ACCOUNT ?? 'admin';
const ADMIN_PASSWORD = process.env.ADMIN_PASSWORD ?? '';
const USER = { userAccount: 'shots_user', userPassword: 'ShotsPassw0rd!' };

async function call(
  operation: OperationId,
  body: unknown,
  sid?: string,
): Promise<{ code: number; data: unknown; sid?: string }> {
  const { method, path } = OPERATIONS[operation];
  const headers: Record<string, string> = { 'X-Requested-With': 'XMLHttpRequest' };
  if (sid) headers.cookie = `sid=${sid}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (OPERATIONS[operation].idempotent) headers['Idempotency-Key'] = crypto.randomUUID();
  const response = await fetch(new URL(path, BASE), {
    method: method.toUpperCase(),
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('sid='));
  const json = (await response.json()) as { code: number; data: unknown };
  return { ...json, ...(cookie ? { sid: cookie.slice(4).split(';')[0] } : {}) };
}

async function login(userAccount: string, userPassword: string): Promise<string> {
  const answer = await call('userLogin', { userAccount, userPassword });
  if (answer.code !== 0 || !answer.sid) throw new Error(`cannot log in ${userAccount} (code ${answer.code})`);
  return answer.sid;
}

/** Some records to show: a package on the mall and the user's order of it. */
async function seed(admin: string, user: string) {
  const mall = await call('mallList', undefined, user);
  if (Array.isArray(mall.data) && mall.data.length > 0) return;
  await call('mallAdd', { coinName: '体验套餐', amount: 990, addCoin: 100 }, admin);
  await call(
    'mallAdd',
    { coinName: '超值年卡套餐（每天不限次数使用全部平台服务）', amount: 19900, addCoin: 3000 },
    admin,
  );
  const packages = (await call('mallList', undefined, user)).data as { id: number }[];
  if (packages[0]) await call('orderSubmit', { packageId: packages[0].id }, user);
}

/** Query strings for routes that show one record. */
const QUERY: Record<string, string> = {
  '/user_detail': '?id=1',
  '/update_user': '?id=1',
  '/reset_password': '?id=1',
  '/update_platform': '?id=1',
  '/update_mall': '?id=1',
};

type Role = 'visitor' | 'user' | 'admin';

async function shoot(browser: Browser, role: Role, scheme: 'light' | 'dark', sid: string | undefined) {
  const context = await browser.newContext({
    baseURL: BASE,
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 1,
    isMobile: true,
    hasTouch: true,
    locale: 'zh-CN',
    colorScheme: scheme,
    serviceWorkers: 'block',
  });
  if (sid) await context.addCookies([{ name: 'sid', value: sid, url: BASE, httpOnly: true, sameSite: 'Lax' }]);
  // The announcement opens by itself once per browser session; mark it read so it does not cover every page.
  await context.addInitScript(() => {
    window.sessionStorage.setItem('dialog', JSON.stringify({ isRead: true, mallRead: true }));
  });
  const page = await context.newPage();
  const files: string[] = [];
  const routes = screens.filter((s) =>
    role === 'visitor' ? s.access === 'public' : s.access !== 'public' && s.access.includes(role),
  );
  for (const screen of routes) {
    if (FILTER && !screen.path.includes(FILTER)) continue;
    const path = screen.path + (QUERY[screen.path] ?? '');
    await page.goto(path);
    // Until no spinner or skeleton is left (or 5 s), then a moment for animations.
    await page
      .waitForFunction(() => !document.querySelector('.app-loading, .adm-skeleton, .app-navigating'), undefined, {
        timeout: 5000,
      })
      .catch(() => undefined);
    await page.waitForTimeout(400);
    const name = `${scheme}-${role}-${screen.path.replace(/\//g, '_') || '_'}.png`;
    const file = resolve(OUT, name);
    await page.screenshot({ path: file, animations: 'disabled', caret: 'hide' });
    files.push(file);
  }
  await context.close();
  return files;
}

/** Six screenshots a sheet, three by two, with their names, to look through quickly. */
async function sheets(browser: Browser, files: string[], prefix: string) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 1780 }, deviceScaleFactor: 1 });
  for (let i = 0; i < files.length; i += 6) {
    const tiles = files
      .slice(i, i + 6)
      .map(
        (f) =>
          `<figure style="margin:0"><img src="data:image/png;base64,${readFileSync(f).toString('base64')}" ` +
          `style="width:390px;height:844px;border:1px solid #888">` +
          `<figcaption style="font:12px sans-serif">${f.split('/').pop()}</figcaption></figure>`,
      )
      .join('');
    await page.setContent(
      `<body style="margin:4px;display:grid;grid-template-columns:repeat(3,390px);gap:6px">${tiles}</body>`,
    );
    await page.waitForLoadState('load');
    await page.screenshot({ path: resolve(OUT, 'sheets', `${prefix}-${String(i / 6 + 1).padStart(2, '0')}.png`) });
  }
  await page.close();
}

mkdirSync(resolve(OUT, 'sheets'), { recursive: true });
const adminSid = await login(ADMIN, ADMIN_PASSWORD);
await call('userAdd', USER, adminSid); // already there on a second run: fine
const userSid = await login(USER.userAccount, USER.userPassword);
await seed(adminSid, userSid);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  for (const scheme of ['light', 'dark'] as const) {
    const files = [
      ...(await shoot(browser, 'visitor', scheme, undefined)),
      ...(await shoot(browser, 'user', scheme, userSid)),
      ...(await shoot(browser, 'admin', scheme, adminSid)),
    ];
    await sheets(browser, files, scheme);
    console.log(`${scheme}: ${files.length} screenshots`);
  }
} finally {
  await browser.close();
}
console.log(`written to ${OUT} (contact sheets in ${OUT}/sheets)`);
