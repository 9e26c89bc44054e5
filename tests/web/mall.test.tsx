import { act, cleanup, fireEvent, render, screen as view, waitFor, within } from '@testing-library/react';
import { isValidElement, type ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { ApiError } from '../../src/api/client';
import { api } from '../../src/web/api';
import { alert, toast } from '../../src/web/feedback';
import { leavePage } from '../../src/web/renderers/leave';
import Mall from '../../src/web/screens/Mall';
import { openAnnouncement } from '../../src/web/state/announcement-open';
import { dialogFlags } from '../../src/web/state/dialog-flags';
import { signIn } from '../../src/web/state/session';
import { siteStore } from '../../src/web/state/site';
import { anAdmin, aUser } from './users';

// The points mall (/mall) with the API faked: prices from fen, the purchase dialog (a method to pick when online
// payment is on, a plain question when it is not), an order with a per-attempt Idempotency-Key, failures shown in the
// dialog, an unpaid order answered again said so, and the site's purchase notice once per browser session.

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

const SITE = {
  id: 1,
  websiteName: '测试站',
  noticeBar: '',
  noticeAnnouncementTitle: '',
  noticeAnnouncement: '',
  pointsNotification: '微信转账给管理员，备注订单号',
  coinName: '积分',
  addCoin: 0,
  amount: 0,
  rebatePercent: 0,
  status: 1 as const,
  analyticsUrl: '',
  userId: null,
  updatedAt: 0,
  timeZone: 'Asia/Shanghai',
  policyVersion: 1,
};
const pkg = (id: number, coinName: string, amount: number, addCoin: number) => ({
  id,
  coinName,
  amount,
  addCoin,
  status: 1,
  sort: 0,
  orders: 0,
  createdAt: 0,
  updatedAt: 0,
});
const PACKAGES = [pkg(1, '小份', 990, 100), pkg(2, '大份', 10000, 1200), pkg(3, '一分', 1, 1)];
const OFFLINE = { orderTimeoutMinutes: 15, methods: [] };
const ONLINE = {
  orderTimeoutMinutes: 15,
  methods: [
    { channelId: 1, method: 'alipay', label: '支付宝' },
    { channelId: 1, method: 'wxpay', label: '微信支付' },
  ],
};
const PAY_URL = 'http://localhost:8080/cashier?out_trade_no=261126K7P2MQXA&sign=x';
const submitted = (id: number, fields: Record<string, unknown> = {}) => ({
  id,
  orderNo: `O2026${id}`,
  userAccount: 'me_0001',
  packageId: 1,
  coinName: '小份',
  amount: 990,
  addCoin: 100,
  status: 'pending',
  createdAt: 0,
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
  reused: false,
  payUrl: null,
  ...fields,
});
const online = (id: number, fields: Record<string, unknown> = {}) =>
  submitted(id, { channelId: 1, method: 'alipay', expiresAt: 1, payUrl: PAY_URL, ...fields });

/** The text of a dialog's content (a React node) as the user would read it. */
const text = (node: ReactNode) => (isValidElement(node) ? renderToStaticMarkup(node) : String(node));

function open() {
  const router = createMemoryRouter(
    [
      { path: '/mall', element: <Mall /> },
      { path: '/my_orders', element: <p>orders</p> },
    ],
    { initialEntries: ['/mall'] },
  );
  return render(<RouterProvider router={router} />);
}

/** Fakes the API: the packages, the methods, and `order` for each orderSubmit (its body in, the answer out). */
function serve(
  methods: unknown,
  order: (body: Record<string, unknown>, n: number) => unknown = (_, n) => submitted(n),
) {
  let n = 0;
  call.mockImplementation(async (op: string, init?: { body?: Record<string, unknown> }) => {
    if (op === 'mallList') return PACKAGES;
    if (op === 'payMethods') {
      if (methods instanceof Error) throw methods;
      return methods;
    }
    if (op === 'orderSubmit') return order(init?.body ?? {}, ++n);
    throw new Error(`unexpected ${op}`);
  });
}

const submitCalls = () => call.mock.calls.filter(([op]) => op === 'orderSubmit');
const keys = () => submitCalls().map(([, init]) => (init as { idempotencyKey: string }).idempotencyKey);
/** The purchase dialog, named by its title. */
const dialog = (name: string | RegExp) => view.findByRole('dialog', { name });
const gone = () => waitFor(() => expect(view.queryByRole('dialog')).toBeNull());

beforeEach(() => {
  call.mockReset();
  vi.mocked(alert).mockReset();
  vi.mocked(toast).mockReset();
  leave = vi.spyOn(leavePage, 'to').mockImplementation(() => undefined);
  sessionStorage.clear();
  // The purchase notice is read already (its own tests below turn it back on).
  dialogFlags.set({ isRead: false, mallRead: true });
  siteStore.set(SITE);
  signIn(aUser({ coin: 50 }));
  serve(OFFLINE);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('/mall', () => {
  it('empty: tells an admin how to add a package (and links there); a user, that packages will show up', async () => {
    call.mockImplementation(async (op: string) => (op === 'payMethods' ? OFFLINE : []));
    signIn(anAdmin());
    open();
    expect(await view.findByText(/点「添加套餐」/)).toBeTruthy();
    expect(view.getByRole('link', { name: '添加套餐' }).getAttribute('href')).toBe('/add_mall');
    cleanup();
    signIn(aUser());
    open();
    expect(await view.findByText('管理员上架套餐后会在这里显示。')).toBeTruthy();
    expect(view.queryByRole('link', { name: '添加套餐' })).toBeNull();
  });

  it('shows the packages on sale in a grid, with prices in yuan from fen', async () => {
    open();
    expect(await view.findByText('小份')).toBeTruthy();
    expect(view.getByText('¥9.90')).toBeTruthy();
    expect(view.getByText('¥100.00')).toBeTruthy();
    expect(view.getByText('¥0.01')).toBeTruthy();
    expect(view.getByText('1200 积分')).toBeTruthy();
    expect(document.querySelectorAll('.mall-grid > li')).toHaveLength(3);
    expect(call).toHaveBeenCalledWith('mallList', { quiet: true });
    expect(call).toHaveBeenCalledWith('payMethods', { quiet: true });
    expect((view.getByText('我的订单').closest('a') as HTMLAnchorElement).getAttribute('href')).toBe('/my_orders');
  });
});

describe('/mall without online payment (an admin confirms the payment)', () => {
  it('asks first, then submits the order with an Idempotency-Key and shows how to pay', async () => {
    open();
    fireEvent.click(await view.findByText('小份'));
    const asked = await dialog('确定购买「小份」吗？');
    expect(asked.textContent).toContain('价格 ¥9.90，到账 100 积分');
    expect(within(asked).queryByRole('radio')).toBeNull();
    fireEvent.click(within(asked).getByRole('button', { name: '确定' }));
    await waitFor(() => expect(submitCalls()).toHaveLength(1));
    const [, init] = submitCalls()[0]!;
    expect(init).toMatchObject({ body: { packageId: 1 }, quiet: true });
    expect((init as { idempotencyKey: string }).idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    await waitFor(() => expect(vi.mocked(alert).mock.calls.some(([title]) => title === '订单已提交')).toBe(true));
    const [, content] = vi.mocked(alert).mock.calls.find(([title]) => title === '订单已提交')!;
    expect(text(content)).toContain('O20261');
    expect(text(content)).toContain(SITE.pointsNotification);
    await gone();
    expect(leave).not.toHaveBeenCalled();
  });

  it('sends nothing when the purchase is not confirmed', async () => {
    open();
    fireEvent.click(await view.findByText('大份'));
    fireEvent.click(within(await dialog('确定购买「大份」吗？')).getByRole('button', { name: '取消' }));
    await gone();
    expect(submitCalls()).toHaveLength(0);
  });

  it('says so when the order answered is the unpaid one already there for the package', async () => {
    serve(OFFLINE, (_, n) => submitted(n, { reused: true, orderNo: '261126K7P2MQXA' }));
    open();
    fireEvent.click(await view.findByText('小份'));
    fireEvent.click(within(await dialog('确定购买「小份」吗？')).getByRole('button', { name: '确定' }));
    await waitFor(() => expect(alert).toHaveBeenCalled());
    const [title, content] = vi.mocked(alert).mock.lastCall!;
    expect(title).toBe('已有待付款订单');
    expect(text(content)).toContain('你已有这个套餐的待付款订单，没有重复下单。');
    expect(text(content)).toContain('261126K7P2MQXA');
  });

  it('shows a refusal in the dialog, keeps the key for the same package, and starts a new one for another', async () => {
    serve(OFFLINE, () => {
      throw new ApiError('套餐不存在或已下架', 'envelope', { code: 40400, status: 404 });
    });
    open();
    fireEvent.click(await view.findByText('小份'));
    let asked = await dialog('确定购买「小份」吗？');
    fireEvent.click(within(asked).getByRole('button', { name: '确定' }));
    expect((await within(asked).findByRole('alert')).textContent).toBe('套餐不存在或已下架');
    expect(toast).not.toHaveBeenCalled();
    // The dialog stays, its button answers again: the same intent, the same key.
    fireEvent.click(within(asked).getByRole('button', { name: '确定' }));
    await waitFor(() => expect(submitCalls()).toHaveLength(2));
    fireEvent.click(within(asked).getByRole('button', { name: '取消' }));
    await gone();
    fireEvent.click(view.getByText('大份'));
    asked = await dialog('确定购买「大份」吗？');
    fireEvent.click(within(asked).getByRole('button', { name: '确定' }));
    await waitFor(() => expect(submitCalls()).toHaveLength(3));
    expect(keys()[1]).toBe(keys()[0]);
    expect(keys()[2]).not.toBe(keys()[1]);
  });

  it('after a lost answer says so in the dialog and tries again with the same key; a new order gets a new one', async () => {
    serve(OFFLINE, (_, n) => {
      if (n === 1) throw new TypeError('Failed to fetch');
      return submitted(n);
    });
    open();
    fireEvent.click(await view.findByText('小份'));
    const asked = await dialog('确定购买「小份」吗？');
    fireEvent.click(within(asked).getByRole('button', { name: '确定' }));
    expect((await within(asked).findByRole('alert')).textContent).toBe('网络连接失败，请检查网络后重试');
    fireEvent.click(within(asked).getByRole('button', { name: '确定' }));
    await waitFor(() => expect(alert).toHaveBeenCalled());
    await gone();
    fireEvent.click(view.getByText('小份'));
    fireEvent.click(within(await dialog('确定购买「小份」吗？')).getByRole('button', { name: '确定' }));
    await waitFor(() => expect(submitCalls()).toHaveLength(3));
    expect(keys()[1]).toBe(keys()[0]);
    expect(keys()[2]).not.toBe(keys()[1]);
  });
});

describe('/mall with online payment', () => {
  it('offers the methods with the package, its price and coins; the order goes to the cashier of the one picked', async () => {
    serve(ONLINE, (_, n) => online(n));
    open();
    fireEvent.click(await view.findByText('小份'));
    const asked = await dialog('购买「小份」');
    expect(asked.textContent).toContain('价格 ¥9.90，到账 100 积分');
    expect(asked.textContent).toContain('下单后请在 15 分钟内付款，超时订单自动关闭。');
    const radios = await within(asked).findAllByRole('radio');
    expect(radios.map((r) => r.closest('label')?.textContent)).toEqual(['支付宝', '微信支付']);
    expect((radios[0] as HTMLInputElement).checked).toBe(true);
    fireEvent.click(radios[1]!);
    const pay = within(asked).getByRole('button', { name: '去付款 ¥9.90' });
    fireEvent.click(pay);
    await waitFor(() => expect(leave).toHaveBeenCalledWith(PAY_URL));
    expect(submitCalls()[0]![1]).toMatchObject({ body: { packageId: 1, channelId: 1, method: 'wxpay' } });
    // While the phone goes on to the cashier the button says so and sends nothing more.
    expect(asked.textContent).toContain('正在前往收银台…');
    fireEvent.click(within(asked).getByRole('button', { name: /正在前往收银台/ }));
    await act(async () => {});
    expect(submitCalls()).toHaveLength(1);
    expect(alert).not.toHaveBeenCalled();
  });

  it('says first that the unpaid order already there is the one paid now, then goes on to its cashier', async () => {
    serve(ONLINE, (_, n) => online(n, { reused: true, orderNo: '261126K7P2MQXA' }));
    open();
    fireEvent.click(await view.findByText('小份'));
    const asked = await dialog('购买「小份」');
    await within(asked).findAllByRole('radio');
    vi.useFakeTimers({ shouldAdvanceTime: true });
    fireEvent.click(within(asked).getByRole('button', { name: '去付款 ¥9.90' }));
    expect((await within(asked).findByRole('status')).textContent).toBe(
      '你已有这个套餐的待付款订单（261126K7P2MQXA），继续支付它。',
    );
    expect(leave).not.toHaveBeenCalled();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1600);
    });
    expect(leave).toHaveBeenCalledWith(PAY_URL);
  });

  it('cancelled while that line is read, the phone stays in the mall', async () => {
    serve(ONLINE, (_, n) => online(n, { reused: true }));
    open();
    fireEvent.click(await view.findByText('小份'));
    const asked = await dialog('购买「小份」');
    await within(asked).findAllByRole('radio');
    vi.useFakeTimers({ shouldAdvanceTime: true });
    fireEvent.click(within(asked).getByRole('button', { name: '去付款 ¥9.90' }));
    await within(asked).findByRole('status');
    fireEvent.click(within(asked).getByRole('button', { name: '取消' }));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(2000);
    });
    expect(leave).not.toHaveBeenCalled();
  });

  it('shows a refused method in the dialog, where another can be picked', async () => {
    serve(ONLINE, (body, n) => {
      if (body.method === 'alipay')
        throw new ApiError('这种付款方式暂不可用，请换一种付款方式', 'envelope', { code: 40000, status: 400 });
      return online(n, { method: body.method });
    });
    open();
    fireEvent.click(await view.findByText('小份'));
    const asked = await dialog('购买「小份」');
    await within(asked).findAllByRole('radio');
    fireEvent.click(within(asked).getByRole('button', { name: '去付款 ¥9.90' }));
    expect((await within(asked).findByRole('alert')).textContent).toBe('这种付款方式暂不可用，请换一种付款方式');
    expect(toast).not.toHaveBeenCalled();
    fireEvent.click(within(asked).getByRole('radio', { name: '微信支付' }));
    fireEvent.click(within(asked).getByRole('button', { name: '去付款 ¥9.90' }));
    await waitFor(() => expect(submitCalls()).toHaveLength(2));
    await waitFor(() => expect(leave).toHaveBeenCalledWith(PAY_URL));
    // Another method is another request: a new key.
    expect(keys()[1]).not.toBe(keys()[0]);
  });

  it('methods that could not be read are said in the dialog, with a retry; nothing can be sent meanwhile', async () => {
    serve(new TypeError('Failed to fetch'), (_, n) => online(n));
    open();
    fireEvent.click(await view.findByText('小份'));
    const asked = await dialog('购买「小份」');
    expect((await within(asked).findByRole('alert')).textContent).toContain('没能读取付款方式');
    expect(within(asked).getByRole<HTMLButtonElement>('button', { name: '去付款 ¥9.90' }).disabled).toBe(true);
    serve(ONLINE, (_, n) => online(n));
    fireEvent.click(within(asked).getByRole('button', { name: '重试' }));
    expect(await within(asked).findAllByRole('radio')).toHaveLength(2);
    fireEvent.click(within(asked).getByRole('button', { name: '去付款 ¥9.90' }));
    await waitFor(() => expect(leave).toHaveBeenCalledWith(PAY_URL));
  });
});

describe('/mall purchase notice', () => {
  it('shows the purchase notice once per browser session (mallRead)', async () => {
    dialogFlags.set({ isRead: false, mallRead: false });
    open();
    await view.findByText('小份');
    await waitFor(() => expect(alert).toHaveBeenCalledTimes(1));
    expect(vi.mocked(alert).mock.calls[0]![0]).toBe('购买须知');
    expect(text(vi.mocked(alert).mock.calls[0]![1])).toContain(SITE.pointsNotification);
    expect(JSON.parse(sessionStorage.getItem('dialog') ?? '{}')).toMatchObject({ mallRead: true });

    // Leaving and coming back in the same session: no dialog by itself, but the notice stays a tap away.
    cleanup();
    open();
    await view.findByText('小份');
    expect(alert).toHaveBeenCalledTimes(1);
    fireEvent.click(view.getByRole('button', { name: '购买须知' }));
    expect(alert).toHaveBeenCalledTimes(2);
  });

  it('waits for the site announcement: 购买须知 comes once the announcement is closed, never on top of it', async () => {
    dialogFlags.set({ isRead: false, mallRead: false });
    siteStore.set({ ...SITE, noticeAnnouncementTitle: '公告', noticeAnnouncement: '今晚维护' });
    open();
    await view.findByText('小份');
    // Due (the frame is about to open it): nothing yet.
    await new Promise((r) => setTimeout(r, 50));
    expect(alert).not.toHaveBeenCalled();
    // The frame opens it and marks it read: still nothing while it is open.
    act(() => {
      dialogFlags.set({ isRead: true, mallRead: false });
      openAnnouncement.set({ title: '公告', content: '今晚维护' });
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(alert).not.toHaveBeenCalled();
    act(() => openAnnouncement.set(null));
    await waitFor(() => expect(alert).toHaveBeenCalledTimes(1));
    expect(vi.mocked(alert).mock.calls[0]![0]).toBe('购买须知');
  });

  it('shows no notice dialog when the site has no purchase notice', async () => {
    dialogFlags.set({ isRead: false, mallRead: false });
    siteStore.set({ ...SITE, pointsNotification: '' });
    open();
    await view.findByText('小份');
    await act(async () => {});
    expect(alert).not.toHaveBeenCalled();
    expect(dialogFlags.get().mallRead).toBe(false);
  });
});
