import { createHash } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/operations';
import {
  ApiSession,
  answerDialog,
  browserAndAdmin,
  dialog,
  keyed,
  newPhone,
  newSignedInUser,
  openScreen,
  overlaysSettled,
  pathOf,
  rowAction,
  shot,
  toast,
} from './helpers';

// 支付设置 as the admin uses it on a phone: an 易支付 channel added through the generated form, listed with the
// addresses to copy into the gateway's merchant backend, edited with its key kept (the key never shows on any page),
// the built-in sandbox switched off and on again with a question each time; and 订单管理 telling online orders from
// offline ones (channel, method, the gateway's trade number, 已关单后付款), filtered by state, channel and late
// payments. The e2e server runs at a localhost PUBLIC_ORIGIN, where the sandbox may be on without the public warning.

const env = browserAndAdmin();
const stamp = Date.now().toString(36).slice(-4);
const CHANNEL = `测试易支付${stamp}`;
const RENAMED = `改名易支付${stamp}`;
const GATEWAY = 'https://pay.example.test/';
const PID = `10${stamp}`;
const KEY = `Mk-${stamp}-s3cret-never-shown`;

/** Channels added here, switched off once the file is done: the other files share this server and its mall. */
const added: number[] = [];
afterAll(async () => {
  for (const id of added) {
    const c = await env.adminApi.ok('payChannelGet', { query: { id } });
    await env.adminApi.ok('payChannelUpdate', {
      body: { id, name: c.name, gateway: c.gateway, pid: c.pid, methods: c.methods, enabled: 0 },
    });
  }
});

const channels = async () =>
  (await env.adminApi.ok('payChannelListPage', { body: { current: 1, pageSize: 100 } })).records;
const sandbox = async () => (await channels()).find((c) => c.kind === 'sandbox')!;

/** Nothing on the page, shown or hidden (inputs' values included), holds the key. */
async function expectNoKey(page: Page) {
  const html = await page.content();
  const values = await page
    .locator('input, textarea')
    .evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
  expect(html).not.toContain(KEY);
  expect(values).not.toContain(KEY);
}

/** Waits until no action sheet, toast or dialog is on screen (a screenshot then shows the page itself). */
const calm = (page: Page) =>
  page.waitForFunction(
    () =>
      [...document.querySelectorAll<HTMLElement>('.adm-action-sheet, .adm-toast-main, .adm-dialog')].filter(
        (el) => el.offsetParent !== null,
      ).length === 0,
  );

/** The row of a channel in 支付设置's list. */
const channelRow = (page: Page, name: string) => page.locator('.composed-list .adm-list-item', { hasText: name });

describe('支付设置', () => {
  it('adds an 易支付 channel, lists it with the addresses to copy, edits it keeping the key, and switches the sandbox off and on', async () => {
    const { context, page } = await newPhone(env.browser, { session: env.adminApi, announcementRead: true });
    // Every answer the app receives stays without the key, as every page does.
    const answers: string[] = [];
    page.on('response', (r) => {
      if (new URL(r.url()).pathname.startsWith('/api/'))
        void r.text().then(
          (t) => answers.push(t),
          () => undefined,
        );
    });
    try {
      // From home: the entry sits with the mall's and the orders'.
      await openScreen(page, '/', '首页');
      await page.locator('.menu-section', { hasText: '商城与订单' }).getByRole('link', { name: '支付设置' }).click();
      await page.locator('.adm-nav-bar-title', { hasText: '支付设置' }).waitFor();
      await channelRow(page, '沙箱支付（测试用）').waitFor();
      await expect(channelRow(page, '沙箱支付（测试用）').textContent()).resolves.toContain('测试用');
      await page.getByText('未付款订单关闭时间').waitFor();
      await shot(page, 'pay-settings');

      // The add form: name, gateway, merchant id, key (masked), methods on chips, the switch.
      await page.getByRole('button', { name: '添加渠道' }).click();
      await page.waitForURL((u) => u.pathname === '/add_pay_channel');
      await page.locator('#root_name').waitFor();
      // Empty, each field says what goes there and where to find it.
      expect(await page.locator('#root_gateway').getAttribute('placeholder')).toContain('https://pay.example.com/');
      await shot(page, 'pay-channel-add-empty');
      await page.locator('#root_name').fill(CHANNEL);
      await page.locator('#root_gateway').fill('pay.example.test');
      await page.locator('#root_pid').fill(PID);
      await page.locator('#root_key').fill(KEY);
      expect(await page.locator('#root_key').getAttribute('type')).toBe('password');
      // 支付宝 and 微信支付 are chosen to begin with; QQ 钱包 is added.
      await page.locator('#root_methods .adm-selector-item', { hasText: 'QQ 钱包' }).click();
      await page.getByRole('button', { name: '提交' }).click();
      // A gateway without its scheme is refused by the field, in words, before anything is sent.
      await page.getByText('网关地址应以 http:// 或 https:// 开头', { exact: false }).waitFor();
      await shot(page, 'pay-channel-add-error');
      await page.locator('#root_gateway').fill(GATEWAY);
      await shot(page, 'pay-channel-add');
      await page.getByRole('button', { name: '提交' }).click();
      await page.waitForURL((u) => u.pathname === '/pay_settings');

      const row = channelRow(page, CHANNEL);
      await row.waitFor();
      const channel = (await channels()).find((c) => c.name === CHANNEL)!;
      added.push(channel.id);
      expect(channel).toMatchObject({
        kind: 'epay',
        gateway: GATEWAY,
        pid: PID,
        methods: ['alipay', 'wxpay', 'qqpay'],
        enabled: 1,
        keySet: true,
      });
      // The row says what the gateway's merchant backend needs: the two addresses, built on the site's address.
      const text = (await row.textContent())!;
      expect(text).toContain('支付宝、微信支付、QQ 钱包');
      expect(text).toContain(`商户号 ${PID}`);
      expect(text).toContain(`异步通知地址 ${channel.notifyUrl}`);
      expect(text).toContain(`同步跳转地址 ${channel.returnUrl}`);
      expect(text).toContain('已开启');
      await expectNoKey(page);
      await row.scrollIntoViewIfNeeded();
      await calm(page);
      await shot(page, 'pay-settings-added');

      // Copying the notify address: the clipboard gets it, the phone says so.
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      await rowAction(page, CHANNEL, '复制异步通知地址');
      await toast(page, '已复制').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(channel.notifyUrl);
      await calm(page);

      // Edited: blank key keeps the saved one; the form never shows it.
      await rowAction(page, CHANNEL, '编辑');
      await page.waitForURL((u) => u.pathname === '/update_pay_channel');
      await page.locator('#root_name').waitFor();
      expect(await page.locator('#root_name').inputValue()).toBe(CHANNEL);
      expect(await page.locator('#root_key').inputValue()).toBe('');
      expect(await page.locator('#root_key').getAttribute('placeholder')).toBe('已保存的不会显示；留空表示不修改');
      await page.getByText(`渠道：${CHANNEL}`).waitFor();
      await expectNoKey(page);
      await calm(page);
      await page.locator('#root_name').fill(RENAMED);
      await page.locator('#root_methods .adm-selector-item', { hasText: 'QQ 钱包' }).click();
      await shot(page, 'pay-channel-edit');
      await page.getByRole('button', { name: '提交' }).click();
      await page.waitForURL((u) => u.pathname === '/pay_settings');
      await channelRow(page, RENAMED).waitFor();
      expect(await channelRow(page, CHANNEL).count()).toBe(0);
      const saved = await env.adminApi.ok('payChannelGet', { query: { id: channel.id } });
      expect(saved).toMatchObject({ name: RENAMED, methods: ['alipay', 'wxpay'], keySet: true });

      // The key is the one typed at first: the cashier request of an order on this channel is signed with it.
      const buyer = await newSignedInUser('paykey');
      const packageId = await env.adminApi.ok('mallAdd', {
        body: { coinName: `密钥测试${stamp}`, amount: 100, addCoin: 1, status: 1, sort: 0 },
      });
      const order = await keyed(buyer.api, 'orderSubmit', {
        packageId,
        channelId: channel.id,
        method: 'alipay',
      });
      const params = Object.fromEntries(new URL(order.payUrl!).searchParams);
      const signedText = Object.keys(params)
        .filter((k) => k !== 'sign' && k !== 'sign_type' && params[k] !== '')
        .sort()
        .map((k) => `${k}=${params[k]}`)
        .join('&');
      expect(params.sign).toBe(
        createHash('md5')
          .update(signedText + KEY, 'utf8')
          .digest('hex'),
      );
      await keyed(buyer.api, 'orderCancel', { id: order.id });
      await env.adminApi.ok('mallShelf', { body: { id: packageId, status: 0 } });

      // The sandbox, off: asked first, then its row says so.
      const box = await sandbox();
      expect(box.enabled).toBe(1);
      await rowAction(page, '沙箱支付（测试用）', '关闭');
      await page.locator('.adm-action-sheet').waitFor({ state: 'detached' });
      await overlaysSettled(page);
      await dialog(page).filter({ hasText: '关闭「沙箱支付（测试用）」吗？' }).waitFor();
      await shot(page, 'pay-sandbox-off-ask');
      await dialog(page).getByRole('button', { name: '关闭', exact: true }).click();
      await toast(page, '已关闭').waitFor();
      await channelRow(page, '沙箱支付（测试用）').filter({ hasText: '已关闭' }).waitFor();
      expect((await sandbox()).enabled).toBe(0);
      await calm(page);
      await shot(page, 'pay-sandbox-off');

      // And on again: the question says what it does (coins without real money).
      await rowAction(page, '沙箱支付（测试用）', '开启');
      await page.locator('.adm-action-sheet').waitFor({ state: 'detached' });
      await overlaysSettled(page);
      await dialog(page).filter({ hasText: '不收真实的钱' }).waitFor();
      await shot(page, 'pay-sandbox-on-ask');
      await dialog(page).getByRole('button', { name: '开启', exact: true }).click();
      await toast(page, '已开启').waitFor();
      await channelRow(page, '沙箱支付（测试用）').filter({ hasText: '已开启' }).waitFor();
      expect((await sandbox()).enabled).toBe(1);
      await calm(page);

      // The sandbox's own edit page offers only its methods and switch.
      await rowAction(page, '沙箱支付（测试用）', '编辑');
      await page.waitForURL((u) => u.pathname === '/update_pay_channel');
      await page.locator('#root_methods').waitFor();
      await page.getByText('只能修改付款方式和开关', { exact: false }).waitFor();
      expect(await page.locator('#root_name').count()).toBe(0);
      expect(await page.locator('#root_key').count()).toBe(0);
      await calm(page);
      await shot(page, 'pay-sandbox-edit');
      await page.getByRole('button', { name: '提交' }).click();
      await page.waitForURL((u) => u.pathname === '/pay_settings');
      expect((await sandbox()).methods).toEqual(box.methods);

      // The unpaid-order timeout, on its own form.
      await page.getByRole('button', { name: '修改关闭时间' }).click();
      await page.waitForURL((u) => u.pathname === '/pay_settings/timeout');
      const minutes = page.locator('#root_orderTimeoutMinutes');
      await minutes.waitFor();
      await calm(page);
      const before = await minutes.inputValue();
      await minutes.fill('3');
      await page.getByRole('button', { name: '提交' }).click();
      await page.getByText('未付款订单关闭时间（分钟）不能小于 5').waitFor();
      await shot(page, 'pay-timeout-error');
      await minutes.fill('20');
      await page.getByRole('button', { name: '提交' }).click();
      await page.waitForURL((u) => u.pathname === '/pay_settings');
      await page.locator('.composed-detail', { hasText: '20 分钟' }).waitFor();
      await env.adminApi.ok('paySettingsUpdate', {
        body: { orderTimeoutMinutes: Number(before), notifyRetentionDays: 90 },
      });

      expect(pathOf(page)).toBe('/pay_settings');
      await expectNoKey(page);
      await new Promise((r) => setTimeout(r, 200));
      for (const answer of answers) expect(answer).not.toContain(KEY);
    } finally {
      await context.close();
    }
  });
});

describe('订单管理 and online payments', () => {
  it('shows the channel, method, trade number and 已关单后付款; filters by state, channel and late payments; confirms only offline orders', async () => {
    const box = await sandbox();
    expect(box.enabled).toBe(1);
    const buyer = await newSignedInUser('payord');
    const packageId = await env.adminApi.ok('mallAdd', {
      body: { coinName: `在线订单${stamp}`, amount: 1290, addCoin: 60, status: 1, sort: 0 },
    });
    const cashier = new ApiSession();
    const pay = async (order: Schemas['OrderSubmitted']) => {
      const trade = await cashier.ok('sandboxPaySubmit', {
        body: Object.fromEntries(new URL(order.payUrl!).searchParams) as Schemas['SandboxPaySubmitRequest'],
      });
      await cashier.ok('sandboxPayAct', { body: { tradeNo: trade.tradeNo, outcome: 'pay', notify: 'normal' } });
      return trade.tradeNo;
    };
    const paidOf = async (orderNo: string) => {
      for (let i = 0; i < 100; i++) {
        const o = await buyer.api.ok('orderCheck', { body: { orderNo } });
        if (o.status === 'paid') return o;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`${orderNo} was not paid`);
    };

    // Paid online through the sandbox (微信支付).
    const online = await keyed(buyer.api, 'orderSubmit', {
      packageId,
      channelId: box.id,
      method: 'wxpay',
    });
    const tradeNo = await pay(online);
    await paidOf(online.orderNo);
    // Cancelled by the buyer, then paid at the cashier all the same: credited, and flagged for the admin.
    const late = await keyed(buyer.api, 'orderSubmit', {
      packageId,
      channelId: box.id,
      method: 'alipay',
    });
    await keyed(buyer.api, 'orderCancel', { id: late.id });
    await pay(late);
    const latePaid = await paidOf(late.orderNo);
    expect(latePaid.paidLate).toBe(true);
    // Waiting for the gateway: the admin cannot confirm it, only cancel it.
    const waiting = await keyed(buyer.api, 'orderSubmit', {
      packageId,
      channelId: box.id,
      method: 'alipay',
    });
    // Offline, waiting for the admin (another package: one unpaid order per package).
    const offlinePackage = await env.adminApi.ok('mallAdd', {
      body: { coinName: `线下订单${stamp}`, amount: 500, addCoin: 20, status: 1, sort: 0 },
    });
    const offline = await keyed(buyer.api, 'orderSubmit', { packageId: offlinePackage });

    const { context, page } = await newPhone(env.browser, { session: env.adminApi, announcementRead: true });
    try {
      await openScreen(page, `/order_management?searchText=${buyer.user.userAccount}`, '订单管理');
      const rowOf = (orderNo: string) => page.locator('.adm-list-item', { hasText: orderNo });
      await rowOf(online.orderNo).waitFor();
      const onlineText = (await rowOf(online.orderNo).textContent())!;
      expect(onlineText).toContain('沙箱支付（测试用）');
      expect(onlineText).toContain('微信支付');
      expect(onlineText).toContain(`交易号 ${tradeNo}`);
      expect(onlineText).toContain('付款时间');
      expect(onlineText).toContain('已到账');
      expect(onlineText).not.toContain('已关单后付款');
      expect(await rowOf(late.orderNo).textContent()).toContain('已关单后付款');
      expect(await rowOf(offline.orderNo).textContent()).toContain('线下付款');
      expect(await rowOf(waiting.orderNo).textContent()).toContain('超时关闭');
      await rowOf(late.orderNo).scrollIntoViewIfNeeded();
      await shot(page, 'order-management-online');

      // 确认收款 for the offline order only; the online one waiting for its gateway can be cancelled, not confirmed.
      await rowOf(waiting.orderNo).click();
      await page.locator('.adm-action-sheet').waitFor();
      await overlaysSettled(page);
      expect(await page.locator('.adm-action-sheet-button-item').allTextContents()).toEqual([
        '详情',
        '补单（查询并入账）',
        '取消订单',
        '复制订单号',
        '取消',
      ]);
      await shot(page, 'order-management-online-actions');
      // 补单: its channel is asked; not paid yet (the sandbox trade was never paid), said in a dialog, and it waits.
      await page.locator('.adm-action-sheet-button-item', { hasText: '补单（查询并入账）' }).click();
      await answerDialog(page, '沙箱支付（测试用）：未支付');
      await calm(page);
      expect(await rowOf(waiting.orderNo).textContent()).toContain('待付款');

      await rowAction(page, offline.orderNo, '确认收款');
      await page.locator('.adm-action-sheet').waitFor({ state: 'detached' });
      await overlaysSettled(page);
      await dialog(page).filter({ hasText: '线下' }).waitFor();
      await shot(page, 'order-management-confirm-offline');
      await answerDialog(page, '线下');
      await rowOf(offline.orderNo).filter({ hasText: '已到账' }).waitFor();
      await calm(page);

      // Filters: a channel (read from the channels), then only the late payments, then a state.
      await page.getByRole('group', { name: '渠道' }).getByRole('button', { name: '沙箱支付（测试用）' }).click();
      await page.waitForURL((u) => u.searchParams.get('channelId') === String(box.id));
      await rowOf(offline.orderNo).waitFor({ state: 'detached' });
      await rowOf(online.orderNo).waitFor();
      await page.getByRole('button', { name: '只看已关单后付款' }).click();
      await page.waitForURL((u) => u.searchParams.get('paidLate') === 'true');
      await rowOf(online.orderNo).waitFor({ state: 'detached' });
      await rowOf(late.orderNo).waitFor();
      expect(await page.getByRole('button', { name: '只看已关单后付款' }).getAttribute('aria-pressed')).toBe('true');
      await calm(page);
      await shot(page, 'order-management-paid-late');
      await page.getByRole('button', { name: '只看已关单后付款' }).click();
      await page.getByRole('group', { name: '渠道' }).getByRole('button', { name: '线下付款' }).click();
      await page.waitForURL((u) => u.searchParams.get('channelId') === '0');
      await rowOf(offline.orderNo).waitFor();
      await rowOf(online.orderNo).waitFor({ state: 'detached' });
      await page.getByRole('group', { name: '状态' }).getByRole('button', { name: '待付款' }).click();
      await page.waitForURL((u) => u.searchParams.get('status') === 'pending');
      await rowOf(offline.orderNo).waitFor({ state: 'detached' });
      await shot(page, 'order-management-offline-pending');
    } finally {
      await context.close();
      await keyed(buyer.api, 'orderCancel', { id: waiting.id }).catch(() => undefined);
      for (const id of [packageId, offlinePackage]) await env.adminApi.ok('mallShelf', { body: { id, status: 0 } });
    }
  });
});
