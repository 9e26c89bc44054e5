import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeEpay, type FakeEpay } from '../helpers/fake-epay';
import { expectAccessible } from './a11y-checks';
import {
  browserAndAdmin,
  dialog,
  keyed,
  loginApi,
  newPhone,
  openScreen,
  overlaysSettled,
  PASSWORD,
  sandboxPayment,
  shot,
  uniqueAccount,
  url,
  type ApiSession,
} from './helpers';

// The operator answering "我付了钱但没到账" on a 390×844 phone (issue 41): 订单管理 → 详情 shows the order, its payments
// and its timeline; 补单 asks the channels and shows what each said; a payment is refunded (原路退款 through the
// sandbox, 记为已线下退款 after a gateway refused); 回调记录 lists every notification with its verdict in words; 渠道自检
// says what is right and wrong with a channel. Against the built-in sandbox and against a 易支付 gateway in the test
// that answers what the test tells it (refusing a refund, a wrong key).

const env = browserAndAdmin();
const stamp = Date.now().toString(36).slice(-4);
let gateway: FakeEpay;
let channelId: number;
let buyer: { userAccount: string; api: ApiSession };

beforeAll(async () => {
  await sandboxPayment(env.adminApi, true);
  gateway = await startFakeEpay(`7${stamp.replace(/\D/g, '1')}`, `e2e-operator-key-${stamp}-0123456789`);
  channelId = await env.adminApi.ok('payChannelAdd', {
    body: {
      name: `自检易支付${stamp}`,
      gateway: gateway.gateway,
      pid: gateway.pid,
      key: gateway.key,
      methods: ['alipay'],
      enabled: 1,
    },
  });
  const userAccount = uniqueAccount('owner');
  await env.adminApi.ok('userAdd', { body: { userAccount, userPassword: PASSWORD } });
  buyer = { userAccount, api: await loginApi(userAccount, PASSWORD) };
});
afterAll(async () => {
  const c = await env.adminApi.ok('payChannelGet', { query: { id: channelId } });
  await env.adminApi.ok('payChannelUpdate', {
    body: { id: channelId, name: c.name, gateway: c.gateway, pid: c.pid, methods: c.methods, enabled: 0 },
  });
  await gateway.close();
});

const balance = async () => (await buyer.api.ok('userGetLogin')).coin;
const adminPhone = (colorScheme: 'light' | 'dark' = 'light') =>
  newPhone(env.browser, { session: env.adminApi, announcementRead: true, timezoneId: 'Asia/Shanghai', colorScheme });

async function addPackage(name: string, amount: number, addCoin: number): Promise<number> {
  return env.adminApi.ok('mallAdd', { body: { coinName: name, amount, addCoin, status: 1, sort: 0 } });
}

/** A gateway's notification, posted to the site as the gateway would (a form, no cookie). */
async function notify(params: Record<string, string>): Promise<string> {
  const answer = await fetch(url('/api/pay/notify'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  return answer.text();
}

/** Taps a row of a list on the page and one action of the sheet it opens. */
async function rowAction(page: Page, scope: string, row: string, action: string) {
  // The sheet of an earlier tap may still be leaving: the one this tap opens is the last.
  await page.locator(`${scope} .adm-list-item`, { hasText: row }).first().click();
  const sheet = page.locator('.adm-action-sheet').last();
  await sheet.waitFor();
  await overlaysSettled(page);
  await sheet.locator('.adm-action-sheet-button-item', { hasText: action }).click();
}

/** Taps the dialog's button named `button` once the dialog saying `text` is up. */
async function answer(page: Page, text: string | RegExp, button: string) {
  const shown = dialog(page).filter({ hasText: text });
  await shown.waitFor();
  await overlaysSettled(page);
  await shown.getByRole('button', { name: button }).click();
  await shown.waitFor({ state: 'detached' });
}

describe('我付了钱但没到账', () => {
  it('the sandbox: a lost notification found by 补单 on the order’s page, then refunded through the gateway', async () => {
    const name = `补单套餐${stamp}`;
    const packageId = await addPackage(name, 880, 88);
    const { records } = await env.adminApi.ok('payChannelListPage', { body: { current: 1, pageSize: 100 } });
    const sandbox = records.find((c) => c.kind === 'sandbox')!;
    // Paid at the sandbox's cashier with the notification lost on purpose: the money taken, no coins.
    const placed = await keyed(buyer.api, 'orderSubmit', { packageId, channelId: sandbox.id, method: 'alipay' });
    const visitor = await fetch(url('/api/pay/sandbox/submit'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-requested-with': 'e2e' },
      body: JSON.stringify(Object.fromEntries(new URL(placed.payUrl!).searchParams)),
    });
    const trade = ((await visitor.json()) as { data: { tradeNo: string } }).data;
    await fetch(url('/api/pay/sandbox/act'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-requested-with': 'e2e' },
      body: JSON.stringify({ tradeNo: trade.tradeNo, outcome: 'pay', notify: 'lose' }),
    });
    const before = await balance();

    const { context, page } = await adminPhone();
    try {
      await openScreen(page, `/order_management?searchText=${placed.orderNo}`, '订单管理');
      await rowAction(page, '.list-screen', placed.orderNo, '详情');
      await page.waitForURL((u) => u.pathname === '/order_detail');
      await page.locator('.composed-detail', { hasText: placed.orderNo }).waitFor();
      await page.getByText('付款人说已付款却没到账时').waitFor();
      await shot(page, 'order-detail-pending');
      await expectAccessible(page);

      await page.locator('.composed-detail').getByRole('button', { name: '补单（查询并入账）' }).click();
      await answer(page, '沙箱支付（测试用）：已入账', '确定');
      await page.locator('.composed-detail .adm-tag', { hasText: '已到账' }).waitFor();
      expect(await balance()).toBe(before + 88);
      // The timeline tells how it got here, each step in words.
      const timeline = page.locator('.composed-list', { hasText: '付款经过' });
      await timeline.getByText('向支付渠道查询：已入账').waitFor();
      expect(await timeline.textContent()).toContain('管理员补单');
      await page.locator('.composed-list', { hasText: '付款记录' }).getByText('到账的一笔').waitFor();
      await shot(page, 'order-detail-paid');

      // 原路退款: asked first with the money and the coins it takes back, then done through the sandbox.
      await rowAction(page, '.composed-list', trade.tradeNo, '原路退款');
      await answer(page, /原路退给付款人吗？同时扣回：.*的 88 积分/, '退款');
      await page.locator('.composed-list .adm-tag', { hasText: '已退款' }).first().waitFor();
      await page.locator('.composed-detail .adm-tag', { hasText: '已退款' }).waitFor();
      expect(await balance()).toBe(before);
      await shot(page, 'order-detail-refunded');
    } finally {
      await context.close();
    }
  });

  it('a 易支付 gateway: 回调记录 with verdicts, a second payment, a refund it refuses, then recorded as done elsewhere', async () => {
    const name = `回调套餐${stamp}`;
    const packageId = await addPackage(name, 990, 99);
    const placed = await keyed(buyer.api, 'orderSubmit', { packageId, channelId, method: 'alipay' });
    expect(await notify(gateway.notification(placed.orderNo, '9.99'))).toBe('fail');
    expect(await notify(gateway.notification(placed.orderNo, '9.90'))).toBe('success');
    expect(await notify(gateway.notification(placed.orderNo, '9.90', { trade_no: `AGAIN${stamp}` }))).toBe('success');
    const credited = await balance();

    for (const colorScheme of ['light', 'dark'] as const) {
      const { context, page } = await adminPhone(colorScheme);
      try {
        await openScreen(page, '/pay_notify_log', '回调记录');
        await page.locator('.adm-search-bar input').fill(placed.orderNo);
        await page.locator('.adm-search-bar input').press('Enter');
        const rows = page.locator('.list-screen .adm-list-item', { hasText: placed.orderNo });
        await expect.poll(() => rows.count()).toBe(3);
        const text = await page.locator('.list-screen').textContent();
        expect(text).toContain('金额不符（应付 ¥9.90，通知 ¥9.99）');
        expect(text).toContain('第二笔付款');
        expect(text).toContain('已入账');
        expect(text).not.toContain(gateway.key);
        await shot(page, `notify-log-${colorScheme}`);
        if (colorScheme === 'light') await expectAccessible(page);
      } finally {
        await context.close();
      }
    }

    const { context, page } = await adminPhone();
    try {
      await openScreen(page, '/pay_notify_log', '回调记录');
      await rowAction(page, '.list-screen', placed.orderNo, '查看订单');
      await page.waitForURL((u) => u.pathname === '/order_detail');
      await page.getByText('支付平台为这个订单收到了第二笔付款').waitFor();
      await page.locator('.composed-detail .adm-tag', { hasText: '已到账' }).waitFor();
      const payments = page.locator('.composed-list', { hasText: '付款记录' });
      await payments.getByText('第二笔付款：退款不动积分').waitFor();
      await shot(page, 'order-detail-second-payment');

      // The gateway refuses: its words in a dialog, nothing moved.
      gateway.refundAnswer.answer = { refused: '该商户未开通退款功能' };
      await rowAction(page, '.composed-list', `AGAIN${stamp}`, '原路退款');
      await answer(page, '这是第二笔付款，不扣积分。', '退款');
      await answer(page, '该商户未开通退款功能', '确定');
      expect(await balance()).toBe(credited);
      // Refunded another way: recorded, the order no longer 需退款, still no coins moved.
      await rowAction(page, '.composed-list', `AGAIN${stamp}`, '记为已线下退款');
      await answer(page, '已经在别处退给付款人了吗', '记为已退款');
      await payments.locator('.adm-tag', { hasText: '已退款' }).waitFor();
      await expect.poll(() => page.getByText('支付平台为这个订单收到了第二笔付款').count()).toBe(0);
      expect(await balance()).toBe(credited);
      await shot(page, 'order-detail-second-refunded');
    } finally {
      gateway.refundAnswer.answer = 'ok';
      await context.close();
    }
  });

  it('渠道自检 says the address, merchant id, key and notify route are right, and names what is wrong', async () => {
    const wrongKey = await env.adminApi.ok('payChannelAdd', {
      body: {
        name: `错误密钥${stamp}`,
        gateway: gateway.gateway,
        pid: gateway.pid,
        key: 'not-the-merchant-key',
        methods: ['alipay'],
        enabled: 0,
      },
    });
    const { context, page } = await adminPhone();
    try {
      await openScreen(page, '/pay_settings', '支付设置');
      await rowAction(page, '.composed-list', `自检易支付${stamp}`, '渠道自检');
      await page.waitForURL((u) => u.pathname === '/pay_channel_check');
      const card = page.locator('.composed-detail', { hasText: `自检：自检易支付${stamp}` });
      await card.getByText('网关确认商户号和密钥正确').waitFor();
      expect(await card.textContent()).toContain('服务器经站点地址能访问到通知地址');
      // At a localhost address, a gateway on the internet could not reach the site: said, as 注意.
      expect(await card.textContent()).toContain('外网的网关访问不到');
      await page.locator('.composed-detail', { hasText: '最近一次异步通知' }).getByText('第二笔付款').waitFor();
      await shot(page, 'channel-check-ok');
      await expectAccessible(page);

      await openScreen(page, `/pay_channel_check?id=${wrongKey}`, '渠道自检');
      await page.getByText('网关不认这个商户号和密钥：请对照商户后台重新填写：KEY校验失败').waitFor();
      await page.getByText('还没有收到过这个渠道的通知').waitFor();
      await shot(page, 'channel-check-wrong-key');
    } finally {
      await context.close();
    }
  });
});
