import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { platforms, screens } from '../../screens.config';
import type { OperationId } from '../../src/api/operations';
import type { Screen } from '../../src/web/config/types';
import { messages as t } from '../../src/web/i18n/zh-CN';
import { signedInMessages as w } from '../../src/web/i18n/zh-CN-signed-in';
import { axeViolations, describeViolation, MIN_TARGET_PX, smallTouchTargets, structureProblems } from './a11y-checks';
import {
  browserAndAdmin,
  dialog,
  keyed,
  loginApi,
  newPhone,
  overlaysSettled,
  PASSWORD,
  shot,
  uniqueAccount,
  type ApiSession,
} from './helpers';

// Accessibility of every route of the screen map, as each role, on a 390×844 phone: axe-core's WCAG 2.1 AA rules
// report no serious or critical violation, and everything tappable is at least 44×44 px. The routes come from
// screens.config.ts, so a new screen is checked without touching this file; a route that reads a record from its URL
// (?id=) is opened on a real record made here. One browser, one context and one page per role.

const env = browserAndAdmin();
const ROLES = ['visitor', 'user', 'agent', 'admin'] as const;
type Role = (typeof ROLES)[number];

/** An address the router does not know: the not-found screen is checked too. */
const UNKNOWN_ROUTE = '/no-such-page';

// ------------------------------------------------------------------------------------- which URL parameters a route reads

/** A URLSearchParams that notes every name asked for, and answers '1' so the config's functions run through. */
class RecordingParams extends URLSearchParams {
  readonly asked = new Set<string>();
  override get(name: string) {
    this.asked.add(name);
    return '1';
  }
  override has(name: string) {
    this.asked.add(name);
    return true;
  }
}

/** The URL parameters a screen's config reads, each with the operation it feeds (so the test knows which record). */
function paramsRead(screen: Screen): { operation: OperationId; param: string }[] {
  const reads: [OperationId, ((q: URLSearchParams) => unknown) | undefined][] = [];
  if (screen.kind === 'detail') reads.push([screen.operation, screen.args]);
  if (screen.kind === 'form') {
    reads.push([screen.submit, screen.fixed]);
    if (screen.load) reads.push([screen.load.operation, screen.load.args]);
  }
  if (screen.kind === 'composed' && screen.load) reads.push([screen.load.operation, screen.load.args]);
  return reads.flatMap(([operation, read]) => {
    if (!read) return [];
    const q = new RecordingParams();
    read(q);
    return [...q.asked].map((param) => ({ operation, param }));
  });
}

/** The records made for the routes that read one: by operation, then parameter. */
type Records = Partial<Record<OperationId, Record<string, string | number>>>;

function routeUrl(screen: Screen, records: Records): string {
  const query = new URLSearchParams();
  for (const { operation, param } of paramsRead(screen)) {
    const value = records[operation]?.[param];
    if (value === undefined) {
      throw new Error(
        `${screen.path} reads ?${param} for ${operation}: make a real record for it in the a11y test's beforeAll`,
      );
    }
    query.set(param, String(value));
  }
  return query.size ? `${screen.path}?${query}` : screen.path;
}

// ---------------------------------------------------------------------------------------------------------- the data

interface Actor {
  role: Exclude<Role, 'visitor'>;
  api: ApiSession;
}
const actors = {} as Record<Exclude<Role, 'visitor'>, Actor>;
let records: Records = {};
/** The ordinary user's account: the overlay check finds their row by it. */
let userAccount = '';

/** A user of a role, made by the admin and signed in. */
async function actor(role: Exclude<Role, 'visitor'>): Promise<Actor & { id: number; userAccount: string }> {
  const userAccount = uniqueAccount(`a11y${role[0]}`);
  const id = await env.adminApi.ok('userAdd', { body: { userAccount, userPassword: PASSWORD, userRole: role } });
  return { role, id, userAccount, api: await loginApi(userAccount, PASSWORD) };
}

beforeAll(async () => {
  const admin = env.adminApi;
  const user = await actor('user');
  const agent = await actor('agent');
  Object.assign(actors, { user, agent, admin: { role: 'admin', api: admin } });
  userAccount = user.userAccount;

  // Something in every list, so rows, tags and swipe actions are checked, not just empty states.
  const packageId = await admin.ok('mallAdd', {
    body: { coinName: '无障碍测试套餐', amount: 1000, addCoin: 100, status: 1, sort: 0 },
  });
  const order = await keyed(user.api, 'orderSubmit', { packageId });
  await keyed(admin, 'userAddCoin', { userAccount: user.userAccount, coin: 50, description: '无障碍测试' });
  // A kind no other browser test shelves or opens (they share one server): 职教通.
  const platformId = await admin.ok('platformAdd', {
    body: { kind: 'qzt', name: '无障碍测试平台', price: 5, billingUnit: 'per_run', retryLimit: 0, status: 1 },
  });
  await keyed(admin, 'quotaGrant', { userAccount: user.userAccount, unit: 'runs', amount: 3, reason: '测试' });
  await keyed(admin, 'redeemGenerate', { count: 2, coin: 10, expiresAt: Date.now() + 7 * 86_400_000, note: '测试' });
  const task = await admin.ok('noticeBroadcast', { body: { title: '无障碍测试', body: '一条消息。', role: 'all' } });
  // 支付设置's edit form on a channel of its own, added off: the mall of the other files stays as it was.
  const payChannelId = await admin.ok('payChannelAdd', {
    body: {
      name: '无障碍测试渠道',
      gateway: 'https://pay.example.test/',
      pid: 'a11y',
      key: 'a11y-test-key',
      methods: ['alipay'],
      enabled: 0,
    },
  });

  records = {
    userGet: { id: user.id },
    userUpdate: { id: user.id },
    userBossUpdatePassword: { id: user.id },
    mallGet: { id: packageId },
    mallUpdate: { id: packageId },
    platformGet: { id: platformId },
    platformUpdate: { id: platformId },
    taskGet: { id: task.id },
    payChannelGet: { id: payChannelId },
    payChannelUpdate: { id: payChannelId },
    payChannelCheck: { id: payChannelId },
    orderGet: { id: order.id },
    quotaGrant: { userAccount: user.userAccount },
  };
});

// ---------------------------------------------------------------------------------------------------------- the walk

/** Each path's title as the document shows it (Root sets `<site> - <title>`); an unknown path is the not-found screen. */
const TITLES = Object.fromEntries(screens.map((s) => [s.path, s.title]));
/** The title a platform's edit page words from its record: 开通… while the user has no service there yet. */
const FIRST_SETUP_TITLES = Object.fromEntries(
  platforms.map((p) => [`/${p.code}/update`, w.screens.platformSetUp(p.title)]),
);

/**
 * Opens a route the way a tap on a link does, without reloading the app: the walk over ~60 routes per role stays in
 * one page, and each screen is checked as users meet it after navigating. Waits until the screen (or wherever the
 * guard sent the visitor) has its title and no loading indicator or skeleton is left, then two painted frames.
 */
async function openRoute(page: Page, route: string): Promise<void> {
  if (page.url() === 'about:blank') await page.goto(route);
  else {
    await page.evaluate((to) => {
      window.history.pushState(null, '', to);
      window.dispatchEvent(new PopStateEvent('popstate'));
    }, route);
  }
  await page.waitForFunction(
    ({ titles, alternatives, notFound }) => {
      const named = (title: string | undefined) =>
        title !== undefined && (document.title === title || document.title.endsWith(` - ${title}`));
      return (
        (named(titles[window.location.pathname] ?? notFound) || named(alternatives[window.location.pathname])) &&
        document.querySelector('.adm-nav-bar-title, #field-userAccount') !== null &&
        document.querySelector('.app-loading[role=status], .adm-skeleton, [aria-busy=true], .app-navigating') === null
      );
    },
    { titles: TITLES, alternatives: FIRST_SETUP_TITLES, notFound: t.shell.notFound },
  );
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  // A dialog the screen opens by itself (the mall's 购买须知) is checked once it has faded in, not half-transparent.
  await overlaysSettled(page);
}

/** Closes a dialog left open by the previous screen, as its user would: a client-side navigation keeps it. */
async function closeDialogs(page: Page): Promise<void> {
  const dialogs = page.locator('.adm-dialog');
  if ((await dialogs.count()) === 0) return;
  await overlaysSettled(page);
  await dialogs.locator('.adm-dialog-footer button').last().click();
  await dialogs.waitFor({ state: 'detached' });
}

interface Finding {
  route: string;
  landed: string;
  text: string;
}

describe('accessibility of every route (WCAG 2.1 AA, 390×844)', () => {
  it('lists every route of the screen map, each openable on a real record', () => {
    expect(screens.length).toBeGreaterThan(40);
    for (const screen of screens) expect(() => routeUrl(screen, records)).not.toThrow();
  });

  it.each(ROLES)(
    'as %s: no serious or critical axe violation, one main and one h1, every tap target at least 44×44 px',
    async (role) => {
      const signedIn = role === 'visitor' ? undefined : actors[role];
      const { context, page } = await newPhone(env.browser, { session: signedIn?.api, announcementRead: true });
      const violations: Finding[] = [];
      const smallTargets: Finding[] = [];
      const checked = new Set<string>();
      const routes = [...new Set([...screens.map((s) => routeUrl(s, records)), UNKNOWN_ROUTE])];
      const started = performance.now();
      let axeMs = 0;
      try {
        for (const route of routes) {
          await closeDialogs(page);
          await openRoute(page, route);
          // A visitor sent to /login from every signed-in route meets the same login screen, and a role kept out of
          // a screen meets the same refusal in the frame: each is checked once.
          const landed = new URL(page.url()).pathname;
          const forbidden = await page.locator('main', { hasText: t.shell.forbidden }).count();
          const key =
            landed !== new URL(route, 'http://x').pathname
              ? `redirected to ${landed}`
              : forbidden
                ? 'forbidden'
                : route;
          if (checked.has(key)) continue;
          checked.add(key);
          const axeStarted = performance.now();
          for (const v of await axeViolations(page)) violations.push({ route, landed, text: describeViolation(v) });
          axeMs += performance.now() - axeStarted;
          for (const problem of await structureProblems(page))
            violations.push({ route, landed, text: `    ${problem}` });
          for (const s of await smallTouchTargets(page)) {
            smallTargets.push({ route, landed, text: `    ${s.what}: ${s.width}×${s.height}` });
          }
          // A picture of every screen, to look at (A11Y_SHOTS=1; under E2E_SHOT_DIR or test-results/e2e).
          if (process.env.A11Y_SHOTS) await shot(page, `a11y-${role}${route.replace(/[/?=&]+/g, '_')}`);
        }
      } finally {
        await context.close();
      }
      const seconds = (ms: number) => (ms / 1000).toFixed(1);
      console.log(
        `a11y as ${role}: ${routes.length} routes, ${checked.size} screens checked in ${seconds(performance.now() - started)} s (axe ${seconds(axeMs)} s)`,
      );
      expect(checked.size).toBeGreaterThan(role === 'visitor' ? 3 : 20);
      expect.soft(violations.length, `axe violations as ${role}:\n${report(violations)}`).toBe(0);
      expect
        .soft(
          smallTargets.length,
          `tap targets under ${MIN_TARGET_PX}×${MIN_TARGET_PX} px as ${role}:\n${report(smallTargets)}`,
        )
        .toBe(0);
    },
    300_000,
  );
});

describe('accessibility of what opens over a screen (WCAG 2.1 AA, 390×844)', () => {
  it("a row's action sheet and the confirm dialog one of its actions opens: no serious or critical violation", async () => {
    const { context, page } = await newPhone(env.browser, { session: actors.admin.api, announcementRead: true });
    const findings: Finding[] = [];
    const check = async (what: string) => {
      for (const v of await axeViolations(page))
        findings.push({ route: what, landed: what, text: describeViolation(v) });
      for (const s of await smallTouchTargets(page))
        findings.push({ route: what, landed: what, text: `    ${s.what}: ${s.width}×${s.height}` });
    };
    try {
      const route = `/user_management?searchText=${userAccount}`;
      await openRoute(page, route);
      // A tap on a row opens every action of the row as a sheet (the swipe shows three of them).
      await page.locator('.adm-list-item', { hasText: userAccount }).first().click();
      const sheet = page.locator('.adm-action-sheet');
      await sheet.waitFor();
      await overlaysSettled(page);
      await check(`${route} (action sheet)`);
      await page.locator('.adm-action-sheet-button-item', { hasText: '封禁' }).click();
      const confirm = dialog(page).filter({ hasText: '封禁后立即下线' });
      await confirm.waitFor();
      await overlaysSettled(page);
      await check(`${route} (confirm dialog)`);
      if (process.env.A11Y_SHOTS) await shot(page, 'a11y-admin-confirm-dialog');
      // Left as it was: the dialog's cancel button bans nobody.
      await page.locator('.adm-dialog-footer').getByRole('button', { name: '取消' }).click();
      await confirm.waitFor({ state: 'detached' });
    } finally {
      await context.close();
    }
    expect(findings.length, `findings on overlays:\n${report(findings)}`).toBe(0);
  }, 120_000);
});

/** Findings grouped by route (and where it led), one line or block each. */
function report(findings: Finding[]): string {
  const byRoute = new Map<string, string[]>();
  for (const f of findings) {
    const where = f.landed === f.route.split('?')[0] ? f.route : `${f.route} → ${f.landed}`;
    byRoute.set(where, [...(byRoute.get(where) ?? []), f.text]);
  }
  return [...byRoute].map(([where, texts]) => `  ${where}\n${texts.join('\n')}`).join('\n');
}
