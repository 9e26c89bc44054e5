// `npm run bench` (after `npm run build`): what a phone downloads before /login and / are usable, and Lighthouse's
// mobile performance score for both. Figures are printed and added to dist/bench/results.json; goals are reported,
// never enforced (exit non-zero only when the server or the browser cannot start).
//
//   goal: JS + CSS before /login is usable ≤ 120 KB gzip · Lighthouse mobile performance ≥ 95
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ADMIN = { userAccount: 'admin', userPassword: 'BenchAdmin-Passw0rd' };
const LOGIN_BUDGET = 120 * 1024;
const LIGHTHOUSE_GOAL = 95;
const CHROME_FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

const freePort = () =>
  new Promise((done, fail) => {
    const s = createServer().once('error', fail).listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => done(port));
    });
  });

async function startServer() {
  if (!existsSync(join(ROOT, 'dist/server/main.js')) || !existsSync(join(ROOT, 'dist/web/index.html'))) {
    throw new Error('run `npm run build` first');
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-web-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/server/main.js'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dir, 'app.db')}`, SESSION_SECRET_FILE: join(dir, 'secret'), ADMIN_ACCOUNT: ADMIN.userAccount, ADMIN_PASSWORD: ADMIN.userPassword, LOG_LEVEL: 'warn' },
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error('the server exited at start');
    if (await fetch(`${url}/api/basicInformation/get?id=1`).then((r) => r.ok, () => false)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const stop = () => {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  return { url, stop };
}

async function adminCookie(url) {
  const r = await fetch(`${url}/api/user/login`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-requested-with': 'bench' }, body: JSON.stringify(ADMIN) });
  const cookie = r.headers.get('set-cookie')?.split(';')[0];
  if (!cookie) throw new Error('admin login failed');
  return cookie;
}

/** Gzip bytes of every script and stylesheet fetched until `ready` resolves (what "usable" means for that page). */
async function pageWeight(browser, url, cookie, ready) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'zh-CN' });
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
  const server = await startServer();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROME_FLAGS });
  try {
    const cookie = await adminCookie(server.url);
    const login = await pageWeight(browser, `${server.url}/login`, null, (p) => p.locator('button[type=submit]').waitFor());
    const home = await pageWeight(browser, `${server.url}/`, cookie, (p) => p.getByText('平台服务').waitFor());
    await browser.close();
    const lighthouse = {
      login: await lighthouseScore(`${server.url}/login`, null),
      home: await lighthouseScore(`${server.url}/`, cookie),
    };

    console.log('\nPage weight (gzip, JS + CSS fetched before the page is usable, 390×844)');
    console.log(`  /login  JS ${kb(login.js)}  CSS ${kb(login.css)}  total ${kb(login.total)}  (${login.files} files)  goal ≤ ${kb(LOGIN_BUDGET)}: ${login.total <= LOGIN_BUDGET ? 'met' : 'MISSED'}`);
    console.log(`  /       JS ${kb(home.js)}  CSS ${kb(home.css)}  total ${kb(home.total)}  (${home.files} files)`);
    console.log('Lighthouse mobile performance');
    for (const [name, r] of Object.entries(lighthouse)) {
      console.log(r.skipped ? `  ${name}: skipped (${r.skipped})` : `  ${name}: ${r.score}  (FCP ${r.fcpMs} ms, LCP ${r.lcpMs} ms, TBT ${r.tbtMs} ms, CLS ${r.cls?.toFixed(3)})  goal ≥ ${LIGHTHOUSE_GOAL}: ${r.score >= LIGHTHOUSE_GOAL ? 'met' : 'MISSED'}`);
    }

    const out = join(ROOT, 'dist/bench/results.json');
    mkdirSync(dirname(out), { recursive: true });
    const previous = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : {};
    writeFileSync(out, JSON.stringify({ ...previous, pageWeight: { login, home, loginBudget: LOGIN_BUDGET }, lighthouse }, null, 2));
  } finally {
    await browser.close().catch(() => undefined);
    server.stop();
  }
}

main().catch((error) => {
  console.error(`page-weight bench failed: ${error.message}`);
  process.exit(1);
});
