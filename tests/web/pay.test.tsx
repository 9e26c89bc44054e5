import { act, cleanup, fireEvent, render, screen as view, waitFor, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { screens } from '../../screens.config';
import { ApiError } from '../../src/api/client';
import { api } from '../../src/web/api';
import type { ListScreen } from '../../src/web/config/types';
import { actionSheet, toast } from '../../src/web/feedback';
import { startLive, stopLive } from '../../src/web/live/stream';
import { ListRenderer } from '../../src/web/renderers/ListRenderer';
import { leavePage } from '../../src/web/renderers/leave';
import Cashier from '../../src/web/screens/Cashier';
import PayResult from '../../src/web/screens/PayResult';
import { sessionStore, signIn } from '../../src/web/state/session';
import { aUser } from './users';

// Paying online, the buyer's side, with the API faked: the simulated cashier (/cashier) a sandbox channel's pay
// address opens, the result page it returns to (/pay_result), and 去支付 on 我的订单 (a choice row action).

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
vi.mock('../../src/web/feedback', () => ({
  toast: vi.fn(),
  confirm: vi.fn(),
  alert: vi.fn(),
  actionSheet: vi.fn(),
  closeDialogs: vi.fn(),
}));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;
/** The phone leaving the app for a cashier (a page load the tests stand in for). */
let leave: MockInstance<(url: string) => void>;

/** A stand-in for the browser's EventSource: the test says what the server sends. */
class FakeEventSource {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSED = 2;
  static opened: FakeEventSource[] = [];
  readyState = FakeEventSource.CONNECTING;
  onmessage: ((message: MessageEvent<string>) => void) | null = null;
  onerror: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeEventSource.opened.push(this);
  }
  send(data: object) {
    this.readyState = FakeEventSource.OPEN;
    act(() => this.onmessage?.({ data: JSON.stringify(data) } as MessageEvent<string>));
  }
  close() {
    this.readyState = FakeEventSource.CLOSED;
  }
}

const ORDER_NO = '261126K7P2MQXA';
const SUBMIT = {
  pid: 'sandbox',
  type: 'alipay',
  out_trade_no: ORDER_NO,
  notify_url: 'http://localhost:8080/api/pay/notify',
  return_url: 'http://localhost:8080/pay_result',
  name: '小份',
  money: '9.90',
  sign: '0123456789abcdef0123456789abcdef',
  sign_type: 'MD5',
};
const cashierUrl = (params: Record<string, string> = SUBMIT) => `/cashier?${new URLSearchParams(params)}`;
const trade = (status: string) => ({
  tradeNo: 'SBX261126120000123456',
  outTradeNo: ORDER_NO,
  type: 'alipay',
  name: '小份',
  money: '9.90',
  status,
  createdAt: 0,
});
const RETURN_URL = `http://localhost:8080/pay_result?out_trade_no=${ORDER_NO}&trade_status=TRADE_SUCCESS`;
const FUTURE = Date.now() + 15 * 60_000;
const order = (fields: Record<string, unknown> = {}) => ({
  id: 5,
  orderNo: ORDER_NO,
  userAccount: 'me_0001',
  packageId: 1,
  coinName: '小份',
  amount: 990,
  addCoin: 100,
  status: 'pending',
  createdAt: Date.now(),
  paidAt: null,
  cancelledAt: null,
  channelId: 1,
  channelName: '沙箱支付（测试用）',
  method: 'alipay',
  tradeNo: null,
  expiresAt: FUTURE,
  paidBy: null,
  paidLate: false,
  needsRefund: false,
  refundedAt: null,
  ...fields,
});

function open(path: string, routes: { path: string; element: React.ReactNode }[]) {
  const router = createMemoryRouter(
    [...routes, { path: '/mall', element: <p>mall</p> }, { path: '/my_orders', element: <p>orders</p> }],
    { initialEntries: [path] },
  );
  render(<RouterProvider router={router} />);
  return router;
}

beforeEach(() => {
  call.mockReset();
  vi.mocked(toast).mockReset();
  vi.mocked(actionSheet).mockReset();
  leave = vi.spyOn(leavePage, 'to').mockImplementation(() => undefined);
  signIn(aUser({ coin: 50 }));
});
afterEach(() => {
  cleanup();
  stopLive();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('/cashier (模拟收银台)', () => {
  const openCashier = (path = cashierUrl()) => open(path, [{ path: '/cashier', element: <Cashier /> }]);

  it('hands the signed request to the gateway and shows what is paid, saying plainly that no money moves', async () => {
    call.mockResolvedValue(trade('pending'));
    openCashier();
    expect(await view.findByText('¥9.90')).toBeTruthy();
    expect(call).toHaveBeenCalledWith('sandboxPaySubmit', { body: SUBMIT, quiet: true });
    expect(view.getByRole('heading', { level: 1 }).textContent).toBe('模拟收银台');
    expect(view.getByText('这是模拟收银台，不会扣除真实的钱。')).toBeTruthy();
    expect(view.getByText('小份')).toBeTruthy();
    expect(view.getByText('支付宝')).toBeTruthy();
    expect(view.getByText(ORDER_NO)).toBeTruthy();
    for (const name of ['确认付款', '付款失败', '关闭订单']) expect(view.getByRole('button', { name })).toBeTruthy();
    // The notification options are tucked away (for tests and demos), immediate by default.
    const options = document.querySelector('details.cashier-notify') as HTMLDetailsElement;
    expect(options.open).toBe(false);
    expect(view.getByRole<HTMLInputElement>('radio', { name: '立即通知' }).checked).toBe(true);
  });

  it('pays with the notification option picked, then goes back to the site; one tap is one payment', async () => {
    call.mockImplementation(async (op: string) =>
      op === 'sandboxPaySubmit' ? trade('pending') : { trade: trade('paid'), returnUrl: RETURN_URL },
    );
    openCashier();
    await view.findByText('¥9.90');
    fireEvent.click(view.getByRole('radio', { name: '不发通知（由站点查单补上）' }));
    fireEvent.click(view.getByRole('button', { name: '确认付款' }));
    await waitFor(() => expect(leave).toHaveBeenCalledWith(RETURN_URL));
    expect(call).toHaveBeenCalledWith(
      'sandboxPayAct',
      expect.objectContaining({ body: { tradeNo: trade('pending').tradeNo, outcome: 'pay', notify: 'lose' } }),
    );
    expect(view.getByRole('button', { name: /正在返回商户/ })).toBeTruthy();
    expect(view.getByRole<HTMLButtonElement>('button', { name: '付款失败' }).disabled).toBe(true);
    fireEvent.click(view.getByRole('button', { name: /正在返回商户/ }));
    await act(async () => {});
    expect(call.mock.calls.filter(([op]) => op === 'sandboxPayAct')).toHaveLength(1);
  });

  it('a link without the signed parameters says what to do, and leads back to the mall', async () => {
    const { sign: _sign, ...unsigned } = SUBMIT;
    const router = openCashier(cashierUrl(unsigned));
    expect(await view.findByText('付款链接不完整')).toBeTruthy();
    expect(view.getByText('这个付款链接缺少必要的信息，请回到商城重新下单。')).toBeTruthy();
    expect(call).not.toHaveBeenCalled();
    fireEvent.click(view.getByRole('link', { name: '回到商城重新下单' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/mall'));
  });

  it('a request the gateway refuses (a bad signature) says the gateway’s words, with the way back', async () => {
    call.mockRejectedValue(new ApiError('签名不正确，请回到商城重新下单', 'envelope', { code: 40300, status: 403 }));
    openCashier();
    expect(await view.findByText('无法打开这笔付款')).toBeTruthy();
    expect(view.getByText('签名不正确，请回到商城重新下单')).toBeTruthy();
    expect(view.getByRole('link', { name: '回到商城重新下单' }).getAttribute('href')).toBe('/mall');
    expect(toast).not.toHaveBeenCalled();
  });

  it('a trade already paid says so and links to the order’s result on the site', async () => {
    call.mockResolvedValue(trade('paid'));
    openCashier();
    expect(await view.findByText('这笔交易已经付款')).toBeTruthy();
    expect(view.queryByRole('button', { name: '确认付款' })).toBeNull();
    expect(view.getByRole('link', { name: '查看订单结果' }).getAttribute('href')).toBe(
      `http://localhost:8080/pay_result?out_trade_no=${ORDER_NO}`,
    );
  });

  it('a trade that ended meanwhile (409) says so; another failure shows beside the buttons', async () => {
    let answer: Error = new ApiError('网关忙，请稍后再试', 'envelope', { code: 40000, status: 400 });
    call.mockImplementation(async (op: string) => {
      if (op === 'sandboxPaySubmit') return trade('pending');
      throw answer;
    });
    openCashier();
    await view.findByText('¥9.90');
    fireEvent.click(view.getByRole('button', { name: '付款失败' }));
    expect((await view.findByRole('alert')).textContent).toBe('网关忙，请稍后再试');
    expect(view.getByRole<HTMLButtonElement>('button', { name: '确认付款' }).disabled).toBe(false);
    answer = new ApiError('这笔交易已经结束，请回到商城查看订单', 'envelope', { code: 40900, status: 409 });
    fireEvent.click(view.getByRole('button', { name: '关闭订单' }));
    expect(await view.findByText('这笔交易已经结束')).toBeTruthy();
    expect(view.getByRole('link', { name: '查看订单结果' })).toBeTruthy();
    expect(leave).not.toHaveBeenCalled();
  });
});

describe('/pay_result (支付结果)', () => {
  const openResult = (search = `?out_trade_no=${ORDER_NO}&trade_status=TRADE_SUCCESS`) =>
    open(`/pay_result${search}`, [{ path: '/pay_result', element: <PayResult /> }]);

  it('paid: 支付成功, the coins credited and the balance as it is now', async () => {
    call.mockImplementation(async (op: string) =>
      op === 'orderCheck' ? order({ status: 'paid', paidAt: 1, paidBy: 'online' }) : aUser({ coin: 150 }),
    );
    const router = openResult();
    expect(await view.findByText('支付成功')).toBeTruthy();
    expect(call).toHaveBeenCalledWith('orderCheck', { body: { orderNo: ORDER_NO }, quiet: true });
    expect(view.getByText('100 积分已到账')).toBeTruthy();
    // The coins may have come before this tab's event stream opened: the balance is read once more.
    expect(await view.findByText('当前余额 150 积分')).toBeTruthy();
    expect(view.getByText('支付宝')).toBeTruthy();
    fireEvent.click(view.getByRole('button', { name: '我的订单' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/my_orders'));
  });

  it('unpaid: 等待支付结果, asked again when the order’s event arrives, and the balance follows', async () => {
    vi.stubGlobal('EventSource', FakeEventSource);
    FakeEventSource.opened = [];
    startLive();
    FakeEventSource.opened[0]!.send({ kind: 'ready' });
    let paid = false;
    call.mockImplementation(async (op: string) => {
      if (op === 'orderCheck') return paid ? order({ status: 'paid', paidAt: 1 }) : order();
      return aUser({ coin: 150 });
    });
    openResult();
    expect(await view.findByText('等待支付结果')).toBeTruthy();
    expect(view.getByText(/前付款，超时订单自动关闭/)).toBeTruthy();
    const checks = () => call.mock.calls.filter(([op]) => op === 'orderCheck').length;
    expect(checks()).toBe(1);
    // Another order's event is not this one's.
    FakeEventSource.opened[0]!.send({ kind: 'order', action: 'created', orderId: 6 });
    await act(async () => {});
    expect(checks()).toBe(1);
    paid = true;
    FakeEventSource.opened[0]!.send({ kind: 'order', action: 'confirmed', orderId: 5 });
    expect(await view.findByText('支付成功')).toBeTruthy();
    expect(await view.findByText('当前余额 150 积分')).toBeTruthy();
    // A later balance event (the frame reads the user again) moves the figure shown, as it moves the store.
    act(() => signIn({ ...sessionStore.get().user!, coin: 170 }));
    expect(view.getByText('当前余额 170 积分')).toBeTruthy();
  });

  it('重新查询 asks again: still unpaid says so, and a payment the channel now reports shows as 支付成功', async () => {
    let paid = false;
    call.mockImplementation(async (op: string) => {
      if (op === 'orderCheck') return paid ? order({ status: 'paid' }) : order();
      return aUser({ coin: 150 });
    });
    openResult();
    fireEvent.click(await view.findByRole('button', { name: '重新查询' }));
    expect((await view.findByRole('status')).textContent).toBe('还没有收到付款。如果已经付款，请稍后再查询。');
    paid = true;
    fireEvent.click(view.getByRole('button', { name: '重新查询' }));
    expect(await view.findByText('支付成功')).toBeTruthy();
  });

  it('重新付款 opens the cashier again with the order’s method; a refusal shows on the page', async () => {
    let refuse = true;
    call.mockImplementation(async (op: string) => {
      if (op === 'orderCheck') return order();
      if (refuse)
        throw new ApiError('这种付款方式暂不可用，请换一种付款方式', 'envelope', { code: 40000, status: 400 });
      return { order: order(), payUrl: 'http://localhost:8080/cashier?x=1' };
    });
    openResult();
    fireEvent.click(await view.findByRole('button', { name: '重新付款' }));
    expect((await view.findByRole('alert')).textContent).toBe('这种付款方式暂不可用，请换一种付款方式');
    refuse = false;
    fireEvent.click(view.getByRole('button', { name: '重新付款' }));
    await waitFor(() => expect(leave).toHaveBeenCalledWith('http://localhost:8080/cashier?x=1'));
    expect(call).toHaveBeenCalledWith(
      'orderPay',
      expect.objectContaining({ body: { id: 5, channelId: 1, method: 'alipay' } }),
    );
    expect(toast).not.toHaveBeenCalled();
  });

  it('closed: 订单已关闭 with why, and 重新下单 leads to the mall', async () => {
    call.mockResolvedValue(order({ status: 'cancelled', expiresAt: 1000, cancelledAt: 61_000 }));
    const router = openResult();
    expect(await view.findByText('订单已关闭')).toBeTruthy();
    expect(view.getByText(/订单超时未付款，已自动关闭/)).toBeTruthy();
    expect(view.queryByRole('button', { name: '重新查询' })).toBeNull();
    fireEvent.click(view.getByRole('button', { name: '重新下单' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/mall'));
  });

  it('an order cancelled before its time says 已取消; one past its time reads closed before the server closes it', async () => {
    call.mockResolvedValue(order({ status: 'cancelled', expiresAt: FUTURE, cancelledAt: Date.now() }));
    openResult();
    expect(await view.findByText('这个订单已取消。')).toBeTruthy();
    cleanup();
    call.mockResolvedValue(order({ expiresAt: Date.now() - 1000 }));
    openResult();
    expect(await view.findByText('订单已关闭')).toBeTruthy();
  });

  it('without an order number, or an order the server does not find: says so, and leads on', async () => {
    const router = openResult('');
    expect(await view.findByText('链接缺少订单号')).toBeTruthy();
    expect(call).not.toHaveBeenCalled();
    fireEvent.click(view.getByRole('button', { name: '返回商城' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/mall'));
    cleanup();
    call.mockRejectedValue(new ApiError('订单不存在', 'envelope', { code: 40400, status: 404 }));
    openResult();
    expect(await view.findByText('没能查询订单')).toBeTruthy();
    expect(view.getByText('订单不存在')).toBeTruthy();
    expect(view.getByRole('button', { name: '我的订单' })).toBeTruthy();
  });
});

describe('/my_orders: 去支付', () => {
  const myOrders = screens.find((s) => s.path === '/my_orders') as ListScreen<any>;
  const rows = (...records: unknown[]) => ({ records, total: records.length, current: 1, pageSize: 20 });
  const PAY_METHODS = {
    orderTimeoutMinutes: 15,
    methods: [
      { channelId: 1, method: 'alipay', label: '支付宝' },
      { channelId: 1, method: 'wxpay', label: '微信支付' },
    ],
  };
  const openOrders = () => open('/my_orders', [{ path: '/my_orders', element: <ListRenderer screen={myOrders} /> }]);
  const offered = async (name: string) => {
    fireEvent.click(await view.findByText(name));
    await waitFor(() => expect(actionSheet).toHaveBeenCalled());
    return vi.mocked(actionSheet).mock.lastCall![0];
  };

  it('shows how each order is paid, and until when an unpaid online one can be', async () => {
    call.mockResolvedValue(
      rows(
        order(),
        order({ id: 6, coinName: '已关的', status: 'cancelled', expiresAt: 1000, cancelledAt: 61_000 }),
        order({ id: 7, coinName: '线下的', channelId: null, method: null, expiresAt: null }),
        order({ id: 8, coinName: '晚到的', status: 'paid', paidLate: true, method: 'wxpay' }),
      ),
    );
    openOrders();
    const row = (name: string) => (view.getByText(name).closest('.adm-list-item') as HTMLElement).textContent;
    await view.findByText('小份');
    expect(row('小份')).toMatch(/支付宝 · \d{4}-\d{2}-\d{2} \d{2}:\d{2} 前付款/);
    expect(row('小份')).toContain('待付款');
    expect(row('已关的')).toContain('已关闭');
    expect(row('线下的')).toContain('线下付款');
    expect(row('晚到的')).toContain('微信支付 · 关单后付款，已到账');
  });

  it('offers 去支付 on an unpaid order still in time: a method picked, then the cashier', async () => {
    call.mockImplementation(async (op: string) => {
      if (op === 'orderMy') return rows(order(), order({ id: 6, coinName: '已关的', expiresAt: Date.now() - 1 }));
      if (op === 'payMethods') return PAY_METHODS;
      if (op === 'orderPay') return { order: order({ method: 'wxpay' }), payUrl: 'http://localhost:8080/cashier?y=2' };
      throw new Error(`unexpected ${op}`);
    });
    openOrders();
    expect((await offered('已关的')).map((a) => a.text)).toEqual(['复制订单号', '取消订单']);
    const actions = await offered('小份');
    expect(actions.map((a) => a.text)).toEqual(['去支付', '复制订单号', '取消订单']);
    act(() => actions[0]!.onAction());
    const dialog = await view.findByRole('dialog', { name: '支付订单「小份」' });
    expect(dialog.textContent).toContain(`订单 ${ORDER_NO}，¥9.90，到账 100 积分`);
    fireEvent.click(await within(dialog).findByRole('radio', { name: '微信支付' }));
    expect(dialog.textContent).toMatch(/请在 .* 前付款，超时订单自动关闭。/);
    fireEvent.click(within(dialog).getByRole('button', { name: '去付款' }));
    await waitFor(() => expect(leave).toHaveBeenCalledWith('http://localhost:8080/cashier?y=2'));
    expect(call).toHaveBeenCalledWith(
      'orderPay',
      expect.objectContaining({ body: { id: 5, channelId: 1, method: 'wxpay' } }),
    );
    expect(dialog.textContent).toContain('正在前往收银台…');
  });

  it('says in the dialog when no method is on, and when the order can no longer be paid', async () => {
    let methods: unknown = { orderTimeoutMinutes: 15, methods: [] };
    call.mockImplementation(async (op: string) => {
      if (op === 'orderMy') return rows(order());
      if (op === 'payMethods') return methods;
      throw new ApiError('订单已关闭或已付款，不能再付款；需要的话请重新下单', 'envelope', {
        code: 40900,
        status: 409,
      });
    });
    openOrders();
    act(() => void offered('小份').then((a) => a[0]!.onAction()));
    let dialog = await view.findByRole('dialog', { name: '支付订单「小份」' });
    expect(await within(dialog).findByText(/现在没有可用的在线付款方式/)).toBeTruthy();
    expect(within(dialog).getByRole<HTMLButtonElement>('button', { name: '去付款' }).disabled).toBe(true);
    fireEvent.click(within(dialog).getByRole('button', { name: '取消' }));
    await waitFor(() => expect(view.queryByRole('dialog')).toBeNull());

    methods = PAY_METHODS;
    vi.mocked(actionSheet).mockClear();
    act(() => void offered('小份').then((a) => a[0]!.onAction()));
    dialog = await view.findByRole('dialog', { name: '支付订单「小份」' });
    await within(dialog).findAllByRole('radio');
    fireEvent.click(within(dialog).getByRole('button', { name: '去付款' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe(
      '订单已关闭或已付款，不能再付款；需要的话请重新下单',
    );
    expect(toast).not.toHaveBeenCalled();
    expect(leave).not.toHaveBeenCalled();
  });
});
