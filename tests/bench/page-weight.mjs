// `npm run bench` (after `npm run build`): what a phone receives before /login and / are usable, as the production
// server sends it (brotli when the browser asks for it), and Lighthouse's mobile performance score for both pages,
// PAGE_WEIGHT_RUNS times each (default 3, interleaved), with the median and the range. Figures are printed and added
// to dist/bench/results.json; goals are reported, never enforced (exit non-zero only when the server or the browser
// cannot start).
//
//   goal: /login ≤ 110 KB as received (bodies, every request until the network is idle) · Lighthouse ≥ 95 (median) on
//   /login and on / signed in
//
// PAGE_WEIGHT_RUNS=0 measures the bytes only (a quick check while trimming the bundle).
// PAGE_WEIGHT_LHR_DIR=<dir> keeps each run's full Lighthouse report there (<page>-<run>.json), to read its long tasks,
// bootup time and LCP breakdown.
// BENCH_COMPARE=<dir> (as run.mjs takes it: a copy of the repository with another build in its dist/, e.g. main's)
// serves that build too and runs Lighthouse on both, alternating run by run, then prints each run's difference (this
// build − the other): on a shared machine the same build's score moves by ten points within an hour, so only a
// difference taken in the same minutes says whether a change helped.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import {
  ROOT,
  addCleanup,
  freePort,
  installSignalHandlers,
  setting,
  startAppServer,
  stopChild,
  writeResults,
} from './lib.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? process.env.CHROME_PATH ?? '/usr/bin/chromium';
const ADMIN = { userAccount: 'admin', userPassword: 'BenchAdmin-Passw0rd' };
// Issue 19: with the design card's openapi-fetch and react-hook-form in it (they are requirements, not options).
const LOGIN_BUDGET = 110 * 1024;
const LIGHTHOUSE_GOAL = 95;
// The same flags as the e2e tests (tests/e2e/helpers.ts).
const CHROME_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const RUNS = setting('PAGE_WEIGHT_RUNS', 3, 0, 15, { integer: true, quick: 1 });
const LHR_DIR = process.env.PAGE_WEIGHT_LHR_DIR || null;
const COMPARE = process.env.BENCH_COMPARE || null;

/** The app built in `root` (this repository, or BENCH_COMPARE's copy), on a database of its own. */
async function startServer(root = ROOT) {
  const [mainJs, webRoot] = [join(root, 'dist/server/main.js'), join(root, 'dist/web')];
  if (!existsSync(mainJs) || !existsSync(join(webRoot, 'index.html'))) {
    throw new Error(`${root}: run \`npm run build\` there first`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-web-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  addCleanup(removeDir); // on a signal
  try {
    const app = await startAppServer({
      label: root === ROOT ? 'web' : 'web-compare',
      databaseUrl: `sqlite:${join(dir, 'app.db')}`,
      adminPassword: ADMIN.userPassword,
      forwardStdout: false,
      mainJs,
      env: { WEB_ROOT: webRoot },
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

/** Vite's manifest (dist/web/.vite/manifest.json): which source a hashed file was built from, for the listing. */
function builtFrom() {
  const file = join(ROOT, 'dist/web/.vite/manifest.json');
  if (!existsSync(file)) return new Map();
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  const names = new Map();
  for (const [key, entry] of Object.entries(manifest)) {
    names.set(`/${entry.file}`, entry.src ?? entry.name ?? key);
    for (const css of entry.css ?? []) if (!names.has(`/${css}`)) names.set(`/${css}`, `css of ${entry.src ?? key}`);
  }
  return names;
}

/**
 * Every response a fresh phone receives for `url` until `ready` holds and the network is idle, as Chromium counted
 * it on the wire (Network.loadingFinished: headers + body; the body alone is that minus the response headers).
 */
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
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const requests = new Map();
  // The extra-info event (the raw header block) may come before or after responseReceived.
  const headerBytes = new Map();
  cdp.on('Network.responseReceived', ({ requestId, type, response }) => {
    if (response.url.startsWith('data:')) return;
    requests.set(requestId, {
      url: new URL(response.url).pathname,
      type: type.toLowerCase(),
      status: response.status,
      encoding: response.headers['content-encoding'] ?? 'identity',
      cacheControl: response.headers['cache-control'] ?? '',
      wire: 0,
    });
  });
  cdp.on('Network.responseReceivedExtraInfo', ({ requestId, headersText, headers }) => {
    const size = headersText?.length ?? Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 17);
    headerBytes.set(requestId, size);
  });
  cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
    const entry = requests.get(requestId);
    if (entry) entry.wire = encodedDataLength;
  });
  await page.goto(url);
  await ready(page);
  await page.waitForLoadState('networkidle');
  await context.close();
  const files = [...requests].map(([id, r]) => ({ ...r, body: Math.max(0, r.wire - (headerBytes.get(id) ?? 0)) }));
  const sum = (list, key) => list.reduce((n, f) => n + f[key], 0);
  const byEncoding = {};
  for (const f of files) {
    byEncoding[f.encoding] ??= { files: 0, body: 0 };
    byEncoding[f.encoding].files++;
    byEncoding[f.encoding].body += f.body;
  }
  return { files, count: files.length, body: sum(files, 'body'), wire: sum(files, 'wire'), byEncoding };
}

/** Both pages of one server: /login until its form is there, / signed in until its entries are. */
async function weighPages(browser, base, cookie) {
  return {
    login: await pageWeight(browser, `${base}/login`, null, (p) => p.locator('button[type=submit]').waitFor()),
    home: await pageWeight(browser, `${base}/`, cookie, (p) => p.getByText('平台服务').first().waitFor()),
  };
}

/** What the same static files cost a client that accepts only gzip, and one that accepts nothing (no compression). */
async function otherEncodings(base, files) {
  let gzip = 0;
  let identity = 0;
  for (const f of files.filter((x) => x.type === 'script' || x.type === 'stylesheet' || x.type === 'document')) {
    const asked = await fetch(base + f.url, { headers: { 'accept-encoding': 'gzip' } });
    const body = Buffer.from(await asked.arrayBuffer()); // fetch decodes; recompress at the build's level to count
    identity += body.length;
    gzip += asked.headers.get('content-encoding') === 'gzip' ? gzipSync(body, { level: 9 }).length : body.length;
  }
  return { gzip, identity };
}

async function lighthouseRun(url, cookie, reportName) {
  let lighthouse, launcher;
  try {
    lighthouse = (await import('lighthouse')).default;
    launcher = await import('chrome-launcher');
  } catch {
    return { skipped: 'lighthouse is not installed' };
  }
  // Its debugging port from the bench's range too (lib.mjs freePort, BENCH_PORTS).
  const chrome = await launcher.launch({
    chromePath: CHROMIUM,
    chromeFlags: ['--headless=new', ...CHROME_FLAGS],
    port: await freePort(),
  });
  try {
    const result = await lighthouse(url, {
      port: chrome.port,
      onlyCategories: ['performance'],
      logLevel: 'error',
      output: 'json',
      ...(cookie ? { extraHeaders: { Cookie: cookie } } : {}),
    });
    const lhr = result.lhr;
    // A run Chrome's tracing lost (NO_NAVSTART, seen on a loaded machine) has no metrics: not a score of 0, a failed run.
    if (lhr.runtimeError) return { skipped: `lighthouse run failed: ${lhr.runtimeError.code}` };
    if (LHR_DIR) {
      mkdirSync(LHR_DIR, { recursive: true });
      writeFileSync(join(LHR_DIR, `${reportName}.json`), JSON.stringify(lhr));
    }
    const metric = (id) => Math.round(lhr.audits[id]?.numericValue ?? NaN);
    return {
      score: Math.round((lhr.categories.performance.score ?? 0) * 100),
      fcpMs: metric('first-contentful-paint'),
      lcpMs: metric('largest-contentful-paint'),
      tbtMs: metric('total-blocking-time'),
      cls: Number((lhr.audits['cumulative-layout-shift']?.numericValue ?? NaN).toFixed(3)),
      siMs: metric('speed-index'),
      // Lighthouse's own measure of this machine's CPU at the time (a quiet laptop is about 1500–2500): on a shared
      // machine a low figure explains a high TBT better than the page does.
      benchmarkIndex: Math.round(lhr.environment?.benchmarkIndex ?? NaN),
      lcpElement: lhr.audits['largest-contentful-paint-element']?.details?.items?.[0]?.items?.[0]?.node?.snippet,
    };
  } catch (error) {
    return { skipped: `lighthouse could not run: ${error.message}` };
  } finally {
    await chrome.kill();
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Median and range of each metric over the runs that completed. */
function summarise(runs) {
  const done = runs.filter((r) => !r.skipped);
  if (done.length === 0) return { skipped: runs[0]?.skipped ?? 'no runs', runs };
  const out = { runs };
  for (const key of ['score', 'fcpMs', 'lcpMs', 'tbtMs', 'siMs', 'cls', 'benchmarkIndex']) {
    const values = done.map((r) => r[key]);
    out[key] = { median: median(values), min: Math.min(...values), max: Math.max(...values) };
  }
  return out;
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

function printWeight(name, w, names, budget) {
  const encodings = Object.entries(w.byEncoding)
    .map(([enc, e]) => `${enc} ${kb(e.body)} in ${e.files}`)
    .join(' · ');
  const verdict = budget ? `  budget ${kb(budget)}: ${w.body <= budget ? 'OK' : `OVER by ${kb(w.body - budget)}`}` : '';
  console.log(`  ${name.padEnd(7)} ${kb(w.body)} received in ${w.count} files (${encodings})${verdict}`);
  console.log(
    `          + ${kb(w.wire - w.body)} of response headers (HTTP/1.1; a proxy speaking HTTP/2 compresses them)` +
      ` · a gzip-only client: ${kb(w.other.gzip)} · no compression: ${kb(w.other.identity)} (document, JS, CSS)`,
  );
  for (const f of [...w.files].sort((a, b) => b.body - a.body)) {
    const source = names.get(f.url);
    console.log(
      `          ${kb(f.body).padStart(9)}  ${f.encoding.padEnd(8)} ${f.type.padEnd(10)} ${f.url}${source ? `  ← ${source}` : ''}`,
    );
  }
  const uncompressed = w.files.filter(
    (f) => ['script', 'stylesheet', 'document'].includes(f.type) && f.encoding === 'identity' && f.body > 1024,
  );
  if (uncompressed.length) console.log(`          ⚠ sent uncompressed: ${uncompressed.map((f) => f.url).join(', ')}`);
}

/** Each run's difference (this build − the compared one) of a metric, over the pairs where both runs completed. */
function pairedDifference(runs, compareRuns, key) {
  const differences = runs.flatMap((run, i) => {
    const other = compareRuns[i];
    return run.skipped || !other || other.skipped ? [] : [run[key] - other[key]];
  });
  if (differences.length === 0) return null;
  return {
    median: median(differences),
    min: Math.min(...differences),
    max: Math.max(...differences),
    pairs: differences.length,
  };
}

function printDifference(name, runs, compareRuns) {
  const signed = (n) => (n > 0 ? `+${n}` : `${n}`);
  const parts = [
    ['score', ''],
    ['lcpMs', ' ms'],
    ['tbtMs', ' ms'],
    ['fcpMs', ' ms'],
  ].flatMap(([key, unit]) => {
    const d = pairedDifference(runs, compareRuns, key);
    return d
      ? [`${key.replace(/Ms$/, '').toUpperCase()} ${signed(d.median)}${unit} (${signed(d.min)}…${signed(d.max)})`]
      : [];
  });
  const pairs = pairedDifference(runs, compareRuns, 'score')?.pairs ?? 0;
  console.log(
    `  ${name.padEnd(6)} this − compare, run by run (${pairs} pairs): ${parts.join('  ') || 'no pair completed'}`,
  );
}

function printLighthouse(name, s) {
  if (s.skipped) return console.log(`  ${name}: skipped (${s.skipped})`);
  const r = (m, unit = '') => `${m.median}${unit} (${m.min}–${m.max})`;
  // Issue 19's goal holds for both pages.
  const verdict = `  goal ≥ ${LIGHTHOUSE_GOAL}: ${s.score.median >= LIGHTHOUSE_GOAL ? 'OK' : 'MISSED'}`;
  const failed = s.runs.filter((run) => run.skipped);
  const leftOut = failed.length > 0 ? `  (${failed.length} failed run(s) left out: ${failed[0].skipped})` : '';
  console.log(
    `  ${name.padEnd(6)} score ${r(s.score)}  FCP ${r(s.fcpMs, ' ms')}  LCP ${r(s.lcpMs, ' ms')}  TBT ${r(s.tbtMs, ' ms')}` +
      `  SI ${r(s.siMs, ' ms')}  CLS ${s.cls.median}  CPU benchmarkIndex ${r(s.benchmarkIndex)}${verdict}${leftOut}`,
  );
  const lcp = s.runs.find((run) => run.lcpElement)?.lcpElement;
  if (lcp) console.log(`         LCP element: ${lcp}`);
}

async function main() {
  installSignalHandlers();
  const server = await startServer();
  let compare = null;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROME_FLAGS });
  try {
    compare = COMPARE ? await startServer(COMPARE) : null;
    const cookie = await adminCookie(server.url);
    const compareCookie = compare ? await adminCookie(compare.url) : null;
    const { login, home } = await weighPages(browser, server.url, cookie);
    const compareWeight = compare && (await weighPages(browser, compare.url, compareCookie));
    await browser.close();
    login.other = await otherEncodings(server.url, login.files);
    home.other = await otherEncodings(server.url, home.files);

    console.log('\nPage weight: bodies as received by a fresh phone (390×844) until the page is usable and idle');
    const names = builtFrom();
    printWeight('/login', login, names, LOGIN_BUDGET);
    printWeight('/', home, names);
    if (compareWeight) {
      console.log(
        `  compare (${COMPARE}): /login ${kb(compareWeight.login.body)} in ${compareWeight.login.count} files,` +
          ` / ${kb(compareWeight.home.body)} in ${compareWeight.home.count} files`,
      );
    }

    // Interleaved, so a burst of load from other processes spreads over both pages (and both builds, whose order
    // alternates run by run) instead of one.
    const runs = { login: [], home: [] };
    const compareRuns = { login: [], home: [] };
    for (let i = 0; i < RUNS; i++) {
      const builds = [
        { base: server.url, cookie, into: runs, suffix: '' },
        ...(compare ? [{ base: compare.url, cookie: compareCookie, into: compareRuns, suffix: '-compare' }] : []),
      ];
      if (i % 2 === 1) builds.reverse();
      for (const page of ['login', 'home']) {
        for (const build of builds) {
          const url = `${build.base}${page === 'login' ? '/login' : '/'}`;
          const report = `${page}-${i + 1}${build.suffix}`;
          build.into[page].push(await lighthouseRun(url, page === 'login' ? null : build.cookie, report));
        }
      }
    }
    const lighthouse = { login: summarise(runs.login), home: summarise(runs.home) };
    const compareLighthouse = compare && { login: summarise(compareRuns.login), home: summarise(compareRuns.home) };
    if (RUNS > 0) {
      console.log(
        `Lighthouse mobile performance (simulated slow 4G, 4× CPU), median (range) of ${RUNS} runs;` +
          ` load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores`,
      );
      printLighthouse('login', lighthouse.login);
      printLighthouse('home', lighthouse.home);
      if (compareLighthouse) {
        console.log(`The compared build (${COMPARE}), in the same minutes:`);
        printLighthouse('login', compareLighthouse.login);
        printLighthouse('home', compareLighthouse.home);
        printDifference('login', runs.login, compareRuns.login);
        printDifference('home', runs.home, compareRuns.home);
      }
    }

    const strip = (w) => ({
      ...w,
      files: w.files.map(({ url, type, encoding, body, wire, cacheControl }) => ({
        url,
        type,
        encoding,
        body,
        wire,
        cacheControl,
      })),
    });
    writeResults({
      pageWeight: { login: strip(login), home: strip(home), loginBudget: LOGIN_BUDGET },
      ...(RUNS > 0 ? { lighthouse } : {}),
      ...(compare
        ? {
            pageWeightCompare: {
              build: COMPARE,
              pageWeight: { login: strip(compareWeight.login), home: strip(compareWeight.home) },
              ...(RUNS > 0 ? { lighthouse: compareLighthouse } : {}),
            },
          }
        : {}),
    });
  } finally {
    await browser.close().catch(() => undefined);
    await server.stop();
    await compare?.stop();
  }
}

main().catch((error) => {
  console.error(`page-weight bench failed: ${error.message}`);
  process.exit(1);
});
