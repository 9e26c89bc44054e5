import { describe, expect, it } from 'vitest';
import { browserAndAdmin, newPhone, siteInformation, url } from './helpers';

// Install to home screen: the server answers the web app manifest and the service worker as a browser needs them,
// Chromium finds the app installable, the worker takes control, a page opened offline shows the offline page, and
// no API answer is ever kept in the worker's caches.

const opened = browserAndAdmin();

interface Manifest {
  name: string;
  short_name: string;
  lang: string;
  start_url: string;
  display: string;
  theme_color: string;
  icons: { src: string; sizes: string; type: string; purpose: string }[];
}

/** Width and height from a PNG's header (IHDR). */
const pngSize = (bytes: Buffer) => ({ width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) });

describe('the web app manifest', () => {
  it('is served as application/manifest+json with the site name, zh-CN, standalone and real PNG icons', async () => {
    const response = await fetch(url('/manifest.webmanifest'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/manifest\+json/);
    const manifest = (await response.json()) as Manifest;
    expect(manifest.name).toBe((await siteInformation()).websiteName);
    expect(manifest).toMatchObject({ lang: 'zh-CN', start_url: '/', display: 'standalone', theme_color: '#1260d0' });
    const wanted = [
      ['192x192', 'any'],
      ['512x512', 'any'],
      ['512x512', 'maskable'],
    ];
    for (const [sizes, purpose] of wanted) {
      const icon = manifest.icons.find((i) => i.sizes === sizes && i.purpose === purpose);
      expect(icon, `${sizes} ${purpose}`).toBeDefined();
      const png = await fetch(url(icon!.src));
      expect(png.headers.get('content-type')).toBe('image/png');
      const [width, height] = sizes!.split('x').map(Number);
      expect(pngSize(Buffer.from(await png.arrayBuffer()))).toEqual({ width, height });
    }
  });

  it('follows the site name an admin saves', async () => {
    const site = await siteInformation();
    await opened.adminApi.ok('basicInformationUpdate', { body: { id: site.id, websiteName: '测试商城PWA' } });
    try {
      const manifest = (await (await fetch(url('/manifest.webmanifest'))).json()) as Manifest;
      expect(manifest.name).toBe('测试商城PWA');
    } finally {
      await opened.adminApi.ok('basicInformationUpdate', { body: { id: site.id, websiteName: site.websiteName } });
    }
  });
});

describe('the service worker', () => {
  it('is served as JavaScript that the browser must always revalidate', async () => {
    const response = await fetch(url('/sw.js'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^(application|text)\/javascript/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
  });

  it('precaches the shell, but not the admin-only chart library or the per-form validators', async () => {
    // Workbox writes the precache list into sw.js (or the workbox file it imports) as {url, revision} entries.
    const worker = await (await fetch(url('/sw.js'))).text();
    const precached = [...worker.matchAll(/url:"([^"]+)"/g)].map(([, path]) => path!);
    expect(precached.some((path) => /^assets\/boot-[\w-]+\.js$/.test(path))).toBe(true);
    expect(precached).toContain('offline.html');
    expect(precached.filter((path) => /DrawnChart-|\.gen-/.test(path))).toEqual([]);
  });

  it('makes the app installable, takes control, keeps no API answer and shows the offline page without a network', async () => {
    const { context, page } = await newPhone(opened.browser, { session: opened.adminApi, announcementRead: true });
    try {
      await page.goto('/');
      await page.locator('.adm-nav-bar-title', { hasText: '首页' }).waitFor();
      // The worker registers after the page's load and activates once it has precached the build.
      await expect
        .poll(() => page.evaluate(async () => (await navigator.serviceWorker.ready).active?.state))
        .toBe('activated');

      const cdp = await context.newCDPSession(page);
      const { errors: manifestErrors } = (await cdp.send('Page.getAppManifest')) as { errors: unknown[] };
      expect(manifestErrors).toEqual([]);
      const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as {
        installabilityErrors: { errorId: string }[];
      };
      // Playwright's contexts are incognito, where Chromium never offers installing: that one says nothing of the app.
      expect(installabilityErrors.map((e) => e.errorId).filter((id) => id !== 'in-incognito')).toEqual([]);

      // A page loaded under the worker: it is in control, and none of the API calls it made were cached.
      await page.reload();
      await page.locator('.adm-nav-bar-title', { hasText: '首页' }).waitFor();
      expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
      const cached = await page.evaluate(async () => {
        const urls: string[] = [];
        for (const name of await caches.keys()) {
          for (const request of await (await caches.open(name)).keys()) urls.push(new URL(request.url).pathname);
        }
        return urls;
      });
      expect(cached).toContain('/offline.html');
      expect(cached.some((path) => path.startsWith('/assets/'))).toBe(true);
      expect(cached.filter((path) => path.startsWith('/api/'))).toEqual([]);
      expect(cached).not.toContain('/index.html');

      // Offline inside the app: a tap on another screen keeps the frame (header and its title, back arrow, tab bar)
      // and the screen says its read failed, with a retry.
      await context.setOffline(true);
      await page.locator('.app-tabbar').getByText('积分商城').click();
      await page.locator('.adm-nav-bar-title', { hasText: '积分商城' }).waitFor();
      await expect.poll(() => page.getByRole('button', { name: '返回' }).count()).toBe(1);
      await expect.poll(() => page.locator('.app-tabbar').count()).toBe(1);
      await page.getByText('重试').first().waitFor();

      await page.goto('/mall');
      await expect.poll(() => page.locator('h1').textContent()).toBe('网络不可用');
      // Its picture is precached with it: no broken image.
      await expect
        .poll(() => page.locator('img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0))
        .toBe(true);
      await context.setOffline(false);
      await page.reload();
      await page.locator('.adm-nav-bar-title', { hasText: '积分商城' }).waitFor();
    } finally {
      await context.close();
    }
  });
});
