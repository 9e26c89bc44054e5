// `npm run bench` (after `npm run build`): what a phone downloads before /login and / are usable, and Lighthouse's
// mobile performance score for both. Figures are printed and added to dist/bench/results.json; goals are reported,
// never enforced (exit non-zero only when the server or the browser cannot start).
//
//   goal: JS + CSS before /login is usable ≤ 120 KB gzip · Lighthouse mobile performance ≥ 95
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { ROOT, addCleanup, installSignalHandlers, startAppServer, stopChild, writeResults } from './lib.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ADMIN = { userAccount: 'admin', userPassword: 'BenchAdmin-Passw0rd' };
const LOGIN_BUDGET = 120 * 1024;
const LIGHTHOUSE_GOAL = 95;
const CHROME_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

async function startServer() {
  if (!existsSync(join(ROOT, 'dist/server/main.js')) || !existsSync(join(ROOT, 'dist/web/index.html'))) {
    throw new Error('run `npm run build` first');
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-web-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  addCleanup(removeDir); // on a signal
  try {
    const app = await startAppServer({
      label: 'web',
      databaseUrl: `sqlite:${join(dir, 'app.db')}`,
      adminPassword: ADMIN.userPassword,
      forwardStdout: false,
    });
    const stop = async () => {
      await stopChild(app.child);
      removeDir();
    };
    return { url: app.base, stop };
  } catch (error) {
    removeDir();
    throw error;
  }
}

async function adminCookie(url) {
  const r = await fetch(`${url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-requested-with': 'bench' },
    body: JSON.stringify(ADMIN),
  });
  const cookie = r.headers.get('set-cookie')?.split(';')[0];
  if (!cookie) throw new Error('admin login failed');
  return cookie;
}

/** Gzip bytes of every script and stylesheet fetched until `ready` resolves (what "usable" means for that page). */
async function pageWeight(browser, url, cookie, ready) {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    locale: 'zh-CN',
  });
  if (cookie) {
    const [name, value] = cookie.split('=');
    await context.addCookies([{ name, value, url }]);
  }
  const page = await context.newPage();
  const files = [];
  page.on('response', async (response) => {
    const type = response.request().resourceType();
    if (type !== 'script' && type !== 'stylesheet') return;
    files.push(
      response.body().then(
        (body) => ({ type, url: response.url(), raw: body.length, gzip: gzipSync(body, { level: 9 }).length }),
        () => ({ type, url: response.url(), raw: 0, gzip: 0 }), // a response still streaming when the page closed
      ),
    );
  });
  await page.goto(url);
  await ready(page);
  const settled = await Promise.all(files);
  await context.close();
  const sum = (type) => settled.filter((f) => !type || f.type === type).reduce((n, f) => n + f.gzip, 0);
  return { js: sum('script'), css: sum('stylesheet'), total: sum(), files: settled.length };
}

async function lighthouseScore(url, cookie) {
  let lighthouse, launcher;
  try {
    lighthouse = (await import('lighthouse')).default;
    launcher = await import('chrome-launcher');
  } catch {
    return { skipped: 'lighthouse is not installed' };
  }
  const chrome = await launcher.launch({ chromePath: CHROMIUM, chromeFlags: ['--headless=new', ...CHROME_FLAGS] });
  try {
    const result = await lighthouse(url, {
      port: chrome.port,
      onlyCategories: ['performance'],
      logLevel: 'error',
      output: 'json',
      ...(cookie ? { extraHeaders: { Cookie: cookie } } : {}),
    });
    const lhr = result.lhr;
    const metric = (id) => Math.round(lhr.audits[id]?.numericValue ?? NaN);
    return {
      score: Math.round((lhr.categories.performance.score ?? 0) * 100),
      fcpMs: metric('first-contentful-paint'),
      lcpMs: metric('largest-contentful-paint'),
      tbtMs: metric('total-blocking-time'),
      cls: lhr.audits['cumulative-layout-shift']?.numericValue,
    };
  } catch (error) {
    return { skipped: `lighthouse could not run: ${error.message}` };
  } finally {
    await chrome.kill();
  }
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

async function main() {
  installSignalHandlers();
  const server = await startServer();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROME_FLAGS });
  try {
    const cookie = await adminCookie(server.url);
    const login = await pageWeight(browser, `${server.url}/login`, null, (p) =>
      p.locator('button[type=submit]').waitFor(),
    );
    const home = await pageWeight(browser, `${server.url}/`, cookie, (p) => p.getByText('平台服务').waitFor());
    await browser.close();
    const lighthouse = {
      login: await lighthouseScore(`${server.url}/login`, null),
      home: await lighthouseScore(`${server.url}/`, cookie),
    };

    console.log('\nPage weight (gzip, JS + CSS fetched before the page is usable, 390×844)');
    console.log(
      `  /login  JS ${kb(login.js)}  CSS ${kb(login.css)}  total ${kb(login.total)}  (${login.files} files)  goal ≤ ${kb(LOGIN_BUDGET)}: ${login.total <= LOGIN_BUDGET ? 'met' : 'MISSED'}`,
    );
    console.log(`  /       JS ${kb(home.js)}  CSS ${kb(home.css)}  total ${kb(home.total)}  (${home.files} files)`);
    console.log('Lighthouse mobile performance');
    for (const [name, r] of Object.entries(lighthouse)) {
      console.log(
        r.skipped
          ? `  ${name}: skipped (${r.skipped})`
          : `  ${name}: ${r.score}  (FCP ${r.fcpMs} ms, LCP ${r.lcpMs} ms, TBT ${r.tbtMs} ms, CLS ${r.cls?.toFixed(3)})  goal ≥ ${LIGHTHOUSE_GOAL}: ${r.score >= LIGHTHOUSE_GOAL ? 'met' : 'MISSED'}`,
      );
    }

    writeResults({ pageWeight: { login, home, loginBudget: LOGIN_BUDGET }, lighthouse });
  } finally {
    await browser.close().catch(() => undefined);
    await server.stop();
  }
}

main().catch((error) => {
  console.error(`page-weight bench failed: ${error.message}`);
  process.exit(1);
});
