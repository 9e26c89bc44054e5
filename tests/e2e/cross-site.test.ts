import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, launchBrowser, loginAdmin, newPhone, registerUser, url, type ApiSession } from './helpers';

// Another site on loopback (127.0.0.2 is another site to the browser than 127.0.0.1) tries what a forger would: a
// form posted to the API, and a link to the seed's GET ban, with the admin signed in. Chromium sends the requests with
// the admin's cookie (SameSite=Lax lets a top-level link through); the server refuses them by their Fetch Metadata.

let browser: Browser;
let evil: Server;
let evilOrigin: string;
let admin: ApiSession;

function evilPage(body: string): string {
  return `<!doctype html><meta charset="utf-8"><title>evil</title><body>${body}</body>`;
}

beforeAll(async () => {
  browser = await launchBrowser();
  admin = await loginAdmin();
  evil = createServer((req, res) => {
    const target = new URL(req.url ?? '/', 'http://x').searchParams.get('target') ?? '';
    const html = req.url?.startsWith('/form')
      ? evilPage(
          `<form id="f" method="post" enctype="text/plain" action="${target}"><input name='{"userAccount":"forged_1","userPassword":"Passw0rd!","checkPassword":"Passw0rd!","x":"' value='"}'><button id="go">go</button></form>`,
        )
      : evilPage(`<a id="go" href="${target}">领取奖励</a>`);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.2', () => resolve()));
  evilOrigin = `http://127.0.0.2:${(evil.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => evil?.close(resolve));
});

/** The JSON envelope the browser shows after navigating to an API answer. */
async function shownEnvelope(page: Page): Promise<{ code: number; message: string }> {
  await page.waitForURL((u) => u.origin === new URL(baseUrl()).origin);
  return JSON.parse(await page.locator('body').innerText()) as { code: number; message: string };
}

describe('requests another site makes', () => {
  it('refuses a cross-site form POST', async () => {
    const { context, page } = await newPhone(browser, { session: admin });
    try {
      await page.goto(`${evilOrigin}/form?target=${encodeURIComponent(url('/api/user/register'))}`);
      await page.locator('#go').click();
      expect(await shownEnvelope(page)).toMatchObject({ code: 40300, message: '不接受来自其他网站的请求' });
    } finally {
      await context.close();
    }
    // Nothing was created.
    const found = await admin.ok('userListPage', { query: { searchText: 'forged_1' } });
    expect(found.total).toBe(0);
  });

  it("refuses a cross-site link to the seed's GET ban though the admin's cookie goes with it", async () => {
    const victim = await registerUser('victim');
    const banUrl = url(`/api/user/ban?id=${victim.id}`);
    const { context, page } = await newPhone(browser, { session: admin });
    try {
      await page.goto(`${evilOrigin}/link?target=${encodeURIComponent(banUrl)}`);
      await page.locator('#go').click();
      expect(await shownEnvelope(page)).toMatchObject({ code: 40300 });
      const listed = await admin.ok('userListPage', { query: { id: victim.id } });
      expect(listed.records[0]).toMatchObject({ id: victim.id, status: 'active' });

      // The same address typed into this browser (Sec-Fetch-Site: none) is the admin's own act, and it works: the
      // cookie was there all along, and the site of the request is what stopped the link.
      await page.goto(banUrl);
      expect(await shownEnvelope(page)).toMatchObject({ code: 0 });
      expect((await admin.ok('userListPage', { query: { id: victim.id } })).records[0]).toMatchObject({
        status: 'banned',
      });
    } finally {
      await context.close();
    }
  });
});
