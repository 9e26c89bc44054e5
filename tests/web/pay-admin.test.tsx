import { cleanup, fireEvent, render, screen as view, waitFor, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screens } from '../../screens.config';
import type { Schemas } from '../../src/api/operations';
import { api } from '../../src/web/api';
import type { ComposedScreen, ListScreen } from '../../src/web/config/types';
import { actionSheet, alert, confirm, toast } from '../../src/web/feedback';
import { ComposedRenderer } from '../../src/web/renderers/ComposedRenderer';
import { FormRenderer, type AnyFormScreen } from '../../src/web/renderers/FormRenderer';
import { ListRenderer } from '../../src/web/renderers/ListRenderer';
import Home from '../../src/web/screens/Home';
import { signIn } from '../../src/web/state/session';
import { anAdmin, aUser } from './users';

// 支付设置 and 订单管理 with the API faked, and the vocabulary grown for them: a list filter whose choices come from
// another list (one per payment channel), an on/off filter (只看已关单后付款), several tags on a row, an array of enum
// values picked on chips (付款方式), an edit form that shows only what its record may change (the sandbox), a form
// question asked only when needed that sends the server's confirmation flag once answered, a list part whose row
// actions read the whole screen again, and a warning on home while a record says so.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
vi.mock('../../src/web/feedback', () => ({ toast: vi.fn(), confirm: vi.fn(), actionSheet: vi.fn(), alert: vi.fn() }));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

const byPath = (path: string) => screens.find((s) => s.path === path)!;
const page = (records: unknown[]) => ({ records, total: records.length, current: 1, pageSize: 20 });

const LOCAL = 'http://localhost:8080';
const PUBLIC = 'https://mall.example.com';
const channel = (fields: Partial<Schemas['PayChannel']> = {}, origin = LOCAL): Schemas['PayChannel'] => ({
  id: 2,
  kind: 'epay',
  name: '某某易支付',
  gateway: 'https://pay.example.com/',
  pid: '1001',
  methods: ['alipay', 'wxpay'],
  enabled: 1,
  keySet: true,
  orders: 3,
  notifyUrl: `${origin}/api/pay/notify`,
  returnUrl: `${origin}/pay_result`,
  updatedAt: 1795000000000,
  ...fields,
});
const sandbox = (fields: Partial<Schemas['PayChannel']> = {}, origin = LOCAL) =>
  channel(
    { id: 1, kind: 'sandbox', name: '沙箱支付（测试用）', gateway: `${origin}/cashier`, pid: 'sandbox', ...fields },
    origin,
  );
const settings = (fields: Partial<Schemas['PaymentSetup']> = {}): Schemas['PaymentSetup'] => ({
  orderTimeoutMinutes: 15,
  notifyRetentionDays: 90,
  ordersNeedingRefund: 0,
  sandboxOnPublicOrigin: false,
  publicOrigin: LOCAL,
  ...fields,
});
const order = (fields: Partial<Schemas['Order']> = {}): Schemas['Order'] => ({
  id: 1,
  orderNo: '261126K7P2MQXA',
  userAccount: 'buyer_01',
  packageId: 1,
  coinName: '百积分',
  amount: 990,
  addCoin: 100,
  status: 'pending',
  createdAt: 1795000000000,
  paidAt: null,
  cancelledAt: null,
  channelId: null,
  channelName: null,
  method: null,
  tradeNo: null,
  expiresAt: null,
  paidBy: null,
  paidLate: false,
  needsRefund: false,
  refundedAt: null,
  ...fields,
});

function open(path: string, element: React.ReactNode, search = '') {
  const router = createMemoryRouter(
    [
      { path, element },
      { path: '*', element: <p>elsewhere</p> },
    ],
    { initialEntries: ['/', path + search], initialIndex: 1 },
  );
  render(<RouterProvider router={router} />);
  return router;
}
const openForm = (path: string, search = '') =>
  open(path, <FormRenderer screen={byPath(path) as AnyFormScreen} />, search);

/** The calls made to one operation, by their arguments. */
const callsOf = (operation: string) => call.mock.calls.filter(([op]) => op === operation).map(([, init]) => init);
/** What was sent to an operation, each call's body. */
const bodiesOf = (operation: string) => callsOf(operation).map((init) => (init as { body?: unknown }).body);
/** The element by id, once drawn. */
const drawn = (id: string) =>
  waitFor(() => {
    const found = document.getElementById(id);
    if (!found) throw new Error(`no #${id} yet`);
    return found;
  });

beforeEach(() => {
  call.mockReset();
  vi.mocked(toast).mockReset();
  vi.mocked(confirm).mockReset();
  vi.mocked(actionSheet).mockReset();
  vi.mocked(alert).mockReset();
  signIn(anAdmin());
});
afterEach(cleanup);

describe('/order_management', () => {
  const answers = (orders: Schemas['Order'][]) =>
    call.mockImplementation(async (op: string) =>
      op === 'payChannelListPage' ? page([sandbox(), channel()]) : op === 'orderListPage' ? page(orders) : true,
    );

  it('says how each order was paid: channel (线下付款 without one), method, trade number, paid time, 已关单后付款', async () => {
    answers([
      order({
        id: 1,
        orderNo: '261126AAAAAAAA',
        status: 'paid',
        channelId: 1,
        channelName: '沙箱支付（测试用）',
        method: 'wxpay',
        tradeNo: 'SBX2611261234',
        paidAt: 1795000600000,
        paidBy: 'online',
        paidLate: true,
      }),
      order({ id: 2, orderNo: '261126BBBBBBBB' }),
    ]);
    open('/order_management', <ListRenderer screen={byPath('/order_management') as ListScreen} />);
    const online = (await view.findByText('261126AAAAAAAA')).closest('.adm-list-item')!;
    expect(online.textContent).toContain('沙箱支付（测试用） · 微信支付 · 交易号 SBX2611261234');
    expect(online.textContent).toContain('付款时间');
    // Two tags, each in words: the state and the late payment.
    const tags = [...online.querySelectorAll('.adm-tag')].map((t) => t.textContent);
    expect(tags).toEqual(['已到账', '已关单后付款']);
    const offline = view.getByText('261126BBBBBBBB').closest('.adm-list-item')!;
    expect(offline.textContent).toContain('线下付款');
    expect(offline.querySelectorAll('.adm-tag')).toHaveLength(1);
  });

  it('filters by channel (线下 as 0, then one choice per channel read from the channels) and by late payment', async () => {
    answers([]);
    const router = open('/order_management', <ListRenderer screen={byPath('/order_management') as ListScreen} />);
    const channels = await view.findByRole('group', { name: '渠道' });
    await within(channels).findByRole('button', { name: '某某易支付' });
    expect(
      within(channels)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['全部渠道', '线下付款', '沙箱支付（测试用）', '某某易支付']);
    expect(callsOf('payChannelListPage')).toEqual([
      expect.objectContaining({ body: { current: 1, pageSize: 100 }, quiet: true }),
    ]);

    fireEvent.click(within(channels).getByRole('button', { name: '某某易支付' }));
    await waitFor(() => expect(router.state.location.search).toBe('?channelId=2'));
    await waitFor(() =>
      expect(callsOf('orderListPage').at(-1)).toEqual({ body: { channelId: 2, current: 1, pageSize: 20 } }),
    );
    fireEvent.click(within(channels).getByRole('button', { name: '线下付款' }));
    await waitFor(() =>
      expect(callsOf('orderListPage').at(-1)).toEqual({ body: { channelId: 0, current: 1, pageSize: 20 } }),
    );

    // The switch: pressed, the query says paidLate: true (a boolean, not text); again, it is left out.
    const late = view.getByRole('button', { name: '只看已关单后付款' });
    expect(late.getAttribute('aria-pressed')).toBe('false');
    fireEvent.click(late);
    await waitFor(() => expect(router.state.location.search).toBe('?channelId=0&paidLate=true'));
    await waitFor(() =>
      expect(callsOf('orderListPage').at(-1)).toEqual({
        body: { channelId: 0, paidLate: true, current: 1, pageSize: 20 },
      }),
    );
    expect(view.getByRole('button', { name: '只看已关单后付款' }).getAttribute('aria-pressed')).toBe('true');
    fireEvent.click(view.getByRole('button', { name: '只看已关单后付款' }));
    await waitFor(() => expect(router.state.location.search).toBe('?channelId=0'));
  });

  it('keeps the fixed choices when the channels cannot be read, and reads a switch from a link only as true', async () => {
    call.mockImplementation(async (op: string) => {
      if (op === 'payChannelListPage') throw new Error('down');
      return page([]);
    });
    open(
      '/order_management',
      <ListRenderer screen={byPath('/order_management') as ListScreen} />,
      '?paidLate=yes&status=paid',
    );
    const channels = await view.findByRole('group', { name: '渠道' });
    await waitFor(() => expect(callsOf('orderListPage')).toHaveLength(1));
    expect(bodiesOf('orderListPage')[0]).toEqual({ status: 'paid', current: 1, pageSize: 20 });
    expect(
      within(channels)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['全部渠道', '线下付款']);
  });

  it('offers 确认收款 only on an offline order waiting for payment; an online one gets 补单 instead', async () => {
    const both = [
      order({ id: 1, orderNo: '261126AAAAAAAA', channelId: 1, channelName: '沙箱支付（测试用）', method: 'alipay' }),
      order({ id: 2, orderNo: '261126BBBBBBBB' }),
    ];
    answers(both);
    open('/order_management', <ListRenderer screen={byPath('/order_management') as ListScreen} />);
    fireEvent.click(await view.findByText('261126AAAAAAAA'));
    const online = vi.mocked(actionSheet).mock.calls[0]![0];
    expect(online.map((a) => a.text)).toEqual(['详情', '补单（查询并入账）', '取消订单', '复制订单号']);
    // Instead of a confirmation by hand: its channels are asked (补单), and what each said is shown, not toasted.
    call.mockImplementation(async (op: string) =>
      op === 'orderReconcile'
        ? {
            order: order({ id: 1, status: 'paid', channelId: 1, channelName: '沙箱支付（测试用）' }),
            answers: [
              {
                channelId: 1,
                channelName: '沙箱支付（测试用）',
                verdict: 'credited',
                tradeNo: 'SBX1',
                money: '9.90',
                detail: null,
              },
              {
                channelId: 2,
                channelName: '某某易支付',
                verdict: 'gateway_error',
                tradeNo: null,
                money: null,
                detail: '超时：5 s',
              },
            ],
          }
        : op === 'payChannelListPage'
          ? page([sandbox(), channel()])
          : op === 'orderListPage'
            ? page(both)
            : true,
    );
    online[1]!.onAction();
    await waitFor(() => expect(bodiesOf('orderReconcile')).toEqual([{ id: 1 }]));
    await waitFor(() => expect(alert).toHaveBeenCalled());
    expect(vi.mocked(alert).mock.calls[0]).toEqual([
      '补单结果',
      '沙箱支付（测试用）：已入账\n某某易支付：网关出错：超时：5 s\n已入账：积分已发放给下单人。',
    ]);
    expect(toast).not.toHaveBeenCalledWith(expect.anything(), 'success');
    fireEvent.click(await view.findByText('261126BBBBBBBB'));
    const offline = vi.mocked(actionSheet).mock.calls[1]![0];
    expect(offline.map((a) => a.text)).toEqual(['详情', '确认收款', '取消订单', '复制订单号']);
    vi.mocked(confirm).mockResolvedValueOnce(true);
    offline[1]!.onAction();
    await waitFor(() => expect(callsOf('orderConfirm')).toHaveLength(1));
    expect(vi.mocked(confirm).mock.calls[0]![0]).toContain('线下');
  });
});

describe('/pay_settings', () => {
  const openSettings = () =>
    open('/pay_settings', <ComposedRenderer screen={byPath('/pay_settings') as ComposedScreen} />);

  it('lists the channels: the sandbox labelled 测试用, an 易支付 one with the addresses its merchant backend needs', async () => {
    call.mockImplementation(async (op: string) =>
      op === 'paySettingsGet' ? settings() : op === 'payChannelListPage' ? page([sandbox(), channel()]) : true,
    );
    openSettings();
    await view.findByText('某某易支付');
    expect(view.getByText('15 分钟')).toBeTruthy();
    expect(view.getByText(LOCAL)).toBeTruthy();
    const box = view.getByText('沙箱支付（测试用）').closest('.adm-list-item')!;
    expect([...box.querySelectorAll('.adm-tag')].map((t) => t.textContent)).toEqual(['已开启', '测试用']);
    expect(box.textContent).toContain('不收真实的钱');
    const epay = view.getByText('某某易支付').closest('.adm-list-item')!;
    expect(epay.textContent).toContain('支付宝、微信支付 · 3 笔订单 · 商户号 1001');
    expect(epay.textContent).toContain(`异步通知地址 ${LOCAL}/api/pay/notify`);
    expect(epay.textContent).toContain(`同步跳转地址 ${LOCAL}/pay_result`);

    // The copy actions belong to the 易支付 channel; the sandbox needs none.
    fireEvent.click(epay);
    expect(vi.mocked(actionSheet).mock.calls[0]![0].map((a) => a.text)).toEqual([
      '编辑',
      '关闭',
      '渠道自检',
      '复制异步通知地址',
      '复制同步跳转地址',
    ]);
    fireEvent.click(box);
    expect(vi.mocked(actionSheet).mock.calls[1]![0].map((a) => a.text)).toEqual(['编辑', '关闭', '渠道自检']);
  });

  it('switches a channel off after asking, sending the record as it is, and reads the screen again', async () => {
    call.mockImplementation(async (op: string) =>
      op === 'paySettingsGet' ? settings() : op === 'payChannelListPage' ? page([channel()]) : true,
    );
    openSettings();
    fireEvent.click((await view.findByText('某某易支付')).closest('.adm-list-item')!);
    vi.mocked(confirm).mockResolvedValueOnce(true);
    vi.mocked(actionSheet).mock.calls[0]![0][1]!.onAction();
    await waitFor(() => expect(callsOf('payChannelUpdate')).toHaveLength(1));
    expect(vi.mocked(confirm).mock.calls[0]![0]).toContain('关闭「某某易支付」吗？');
    expect(bodiesOf('payChannelUpdate')[0]).toEqual({
      id: 2,
      name: '某某易支付',
      gateway: 'https://pay.example.com/',
      pid: '1001',
      methods: ['alipay', 'wxpay'],
      enabled: 0,
    });
    // The settings record (its warning) and the channels are read again.
    await waitFor(() => expect(callsOf('paySettingsGet').length).toBeGreaterThanOrEqual(2));
    await waitFor(() => expect(callsOf('payChannelListPage').length).toBeGreaterThanOrEqual(2));
  });

  it('asks before switching the sandbox on at a public address, naming it, and only then sends confirmPublic', async () => {
    call.mockImplementation(async (op: string) =>
      op === 'paySettingsGet'
        ? settings({ publicOrigin: PUBLIC })
        : op === 'payChannelListPage'
          ? page([sandbox({ enabled: 0 }, PUBLIC)])
          : true,
    );
    openSettings();
    fireEvent.click((await view.findByText('沙箱支付（测试用）')).closest('.adm-list-item')!);
    const [, on] = vi.mocked(actionSheet).mock.calls[0]![0];
    expect(on!.text).toBe('开启');

    // Declined: nothing is sent.
    vi.mocked(confirm).mockResolvedValueOnce(false);
    on!.onAction();
    await waitFor(() => expect(confirm).toHaveBeenCalledTimes(1));
    const [question, labels] = vi.mocked(confirm).mock.calls[0]!;
    expect(question).toContain(`站点地址是 ${PUBLIC}`);
    expect(question).toContain('不收真实的钱，却会发放真实的积分');
    expect(labels).toEqual({ ok: '开启', cancel: '不开启' });
    expect(callsOf('payChannelUpdate')).toHaveLength(0);

    vi.mocked(confirm).mockResolvedValueOnce(true);
    on!.onAction();
    await waitFor(() => expect(callsOf('payChannelUpdate')).toHaveLength(1));
    expect(bodiesOf('payChannelUpdate')[0]).toEqual({
      id: 1,
      methods: ['alipay', 'wxpay'],
      enabled: 1,
      confirmPublic: true,
    });
  });

  it('switches the sandbox on at localhost with its own question and no confirmPublic', async () => {
    call.mockImplementation(async (op: string) =>
      op === 'paySettingsGet' ? settings() : op === 'payChannelListPage' ? page([sandbox({ enabled: 0 })]) : true,
    );
    openSettings();
    fireEvent.click((await view.findByText('沙箱支付（测试用）')).closest('.adm-list-item')!);
    vi.mocked(confirm).mockResolvedValueOnce(true);
    vi.mocked(actionSheet).mock.calls[0]![0][1]!.onAction();
    await waitFor(() => expect(callsOf('payChannelUpdate')).toHaveLength(1));
    expect(vi.mocked(confirm).mock.calls[0]![0]).toContain('只在测试时开启');
    expect(bodiesOf('payChannelUpdate')[0]).toEqual({ id: 1, methods: ['alipay', 'wxpay'], enabled: 1 });
  });

  it('warns while the sandbox is on at a public address', async () => {
    call.mockImplementation(async (op: string) =>
      op === 'paySettingsGet'
        ? settings({ publicOrigin: PUBLIC, sandboxOnPublicOrigin: true })
        : page([sandbox({}, PUBLIC)]),
    );
    openSettings();
    expect(await view.findByText(/沙箱支付正在公网地址 https:\/\/mall\.example\.com 上开启/)).toBeTruthy();
  });
});

describe('/add_pay_channel and /update_pay_channel', () => {
  it('picks several methods on chips worded from their enum, masks the key, and sends the whole channel', async () => {
    call.mockResolvedValue(7);
    const router = openForm('/add_pay_channel');
    await view.findByLabelText('名称');
    fireEvent.change(view.getByLabelText('名称'), { target: { value: '某某易支付' } });
    fireEvent.change(view.getByLabelText('网关地址'), { target: { value: 'https://pay.example.com/' } });
    fireEvent.change(view.getByLabelText('商户号'), { target: { value: '1001' } });
    const key = view.getByLabelText<HTMLInputElement>('商户密钥');
    expect(key.type).toBe('password');
    fireEvent.change(key, { target: { value: 'merchant-key-1' } });
    const methods = document.getElementById('root_methods')!;
    expect([...methods.querySelectorAll('.adm-selector-item')].map((i) => i.textContent)).toEqual([
      '支付宝',
      '微信支付',
      'QQ 钱包',
    ]);
    // 支付宝 and 微信支付 to begin with; QQ 钱包 added, 支付宝 taken away: sent in the choices' order.
    fireEvent.click(within(methods).getByText('QQ 钱包'));
    fireEvent.click(within(methods).getByText('支付宝'));
    fireEvent.click(view.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(callsOf('payChannelAdd')).toHaveLength(1));
    expect(bodiesOf('payChannelAdd')[0]).toEqual({
      name: '某某易支付',
      gateway: 'https://pay.example.com/',
      pid: '1001',
      key: 'merchant-key-1',
      methods: ['wxpay', 'qqpay'],
      enabled: 1,
    });
    await waitFor(() => expect(router.state.location.pathname).toBe('/pay_settings'));
  });

  it('says to choose a method when none is', async () => {
    openForm('/add_pay_channel');
    const methods = await drawn('root_methods');
    fireEvent.click(within(methods).getByText('支付宝'));
    fireEvent.click(within(methods).getByText('微信支付'));
    fireEvent.click(view.getByRole('button', { name: '提交' }));
    expect(await view.findByText('请选择付款方式')).toBeTruthy();
    expect(callsOf('payChannelAdd')).toHaveLength(0);
  });

  it('edits an 易支付 channel without its key (blank keeps it) and asks nothing', async () => {
    call.mockImplementation(async (op: string) => (op === 'payChannelGet' ? channel() : true));
    openForm('/update_pay_channel', '?id=2');
    const key = await view.findByLabelText<HTMLInputElement>(/商户密钥/);
    expect(key.value).toBe('');
    expect(key.placeholder).toBe('已保存的不会显示；留空表示不修改');
    expect(view.getByLabelText<HTMLInputElement>('名称').value).toBe('某某易支付');
    fireEvent.change(view.getByLabelText('名称'), { target: { value: '新名字' } });
    fireEvent.click(view.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(callsOf('payChannelUpdate')).toHaveLength(1));
    expect(bodiesOf('payChannelUpdate')[0]).toEqual({
      id: 2,
      name: '新名字',
      gateway: 'https://pay.example.com/',
      pid: '1001',
      methods: ['alipay', 'wxpay'],
      enabled: 1,
    });
    expect(confirm).not.toHaveBeenCalled();
  });

  it('shows the sandbox only its methods and switch, and asks before keeping it on at a public address', async () => {
    call.mockImplementation(async (op: string) => (op === 'payChannelGet' ? sandbox({}, PUBLIC) : true));
    openForm('/update_pay_channel', '?id=1');
    const methods = await drawn('root_methods');
    expect(view.queryByLabelText('名称')).toBeNull();
    expect(view.queryByLabelText(/商户密钥/)).toBeNull();
    expect(view.queryByLabelText('网关地址')).toBeNull();
    fireEvent.click(within(methods).getByText('QQ 钱包'));

    vi.mocked(confirm).mockResolvedValueOnce(false);
    fireEvent.click(view.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(confirm).toHaveBeenCalledTimes(1));
    expect(vi.mocked(confirm).mock.calls[0]![0]).toContain(`站点地址是 ${PUBLIC}`);
    expect(callsOf('payChannelUpdate')).toHaveLength(0);

    vi.mocked(confirm).mockResolvedValueOnce(true);
    fireEvent.click(view.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(callsOf('payChannelUpdate')).toHaveLength(1));
    expect(bodiesOf('payChannelUpdate')[0]).toEqual({
      id: 1,
      methods: ['alipay', 'wxpay', 'qqpay'],
      enabled: 1,
      confirmPublic: true,
    });
  });

  it('switching the sandbox off at a public address needs no question', async () => {
    call.mockImplementation(async (op: string) => (op === 'payChannelGet' ? sandbox({}, PUBLIC) : true));
    openForm('/update_pay_channel', '?id=1');
    await drawn('root_methods');
    fireEvent.click(view.getByText('关闭'));
    fireEvent.click(view.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(callsOf('payChannelUpdate')).toHaveLength(1));
    expect(bodiesOf('payChannelUpdate')[0]).toEqual({ id: 1, methods: ['alipay', 'wxpay'], enabled: 0 });
    expect(confirm).not.toHaveBeenCalled();
  });
});

describe('home', () => {
  const openHome = () => open('/', <Home />);

  it('warns the admin while the sandbox is on at a public address, with a link to 支付设置', async () => {
    call.mockImplementation(async (op: string) =>
      op === 'paySettingsGet' ? settings({ publicOrigin: PUBLIC, sandboxOnPublicOrigin: true }) : [],
    );
    openHome();
    const alert = await view.findByRole('alert');
    expect(alert.textContent).toContain(`沙箱支付正在公网地址 ${PUBLIC} 上开启`);
    expect(within(alert).getByRole('link', { name: '去支付设置关闭' }).getAttribute('href')).toBe('/pay_settings');
  });

  it('tells the admin of money owed back to payers until every second payment is refunded, reading 支付设置 once', async () => {
    call.mockImplementation(async (op: string) =>
      op === 'paySettingsGet'
        ? settings({ publicOrigin: PUBLIC, sandboxOnPublicOrigin: true, ordersNeedingRefund: 3 })
        : [],
    );
    openHome();
    await waitFor(() => expect(view.getAllByRole('alert')).toHaveLength(2));
    const owed = view.getAllByRole('alert').find((a) => a.textContent?.includes('第二笔付款'))!;
    expect(owed.textContent).toContain('有 3 个订单收到了第二笔付款，需要把钱退还给付款人。');
    expect(within(owed).getByRole('link', { name: '去处理' }).getAttribute('href')).toBe(
      '/order_management?needsRefund=true',
    );
    expect(callsOf('paySettingsGet')).toHaveLength(1);
  });

  it('shows nothing once it is off, and never asks for a user', async () => {
    call.mockImplementation(async (op: string) => (op === 'paySettingsGet' ? settings({ publicOrigin: PUBLIC }) : []));
    openHome();
    await waitFor(() => expect(callsOf('paySettingsGet')).toHaveLength(1));
    expect(view.queryByRole('alert')).toBeNull();
    cleanup();
    call.mockClear();
    signIn(aUser());
    openHome();
    await waitFor(() => expect(callsOf('platformList')).toHaveLength(1));
    expect(callsOf('paySettingsGet')).toHaveLength(0);
  });
});
