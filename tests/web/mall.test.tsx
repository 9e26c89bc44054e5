import { act, cleanup, fireEvent, render, screen as view, waitFor } from '@testing-library/react';
import { isValidElement, type ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/api/client';
import { api } from '../../src/web/api';
import { alert, confirm, toast } from '../../src/web/feedback';
import Mall from '../../src/web/screens/Mall';
import { dialogFlags } from '../../src/web/state/dialog-flags';
import { signIn } from '../../src/web/state/session';
import { siteStore } from '../../src/web/state/site';
import { anAdmin, aUser } from './users';

// The points mall (/mall) with the API faked: prices from fen, an order with a per-attempt Idempotency-Key, and the
// site's purchase notice shown once per browser session (sessionStorage `dialog`, flag `mallRead`).

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
vi.mock('../../src/web/feedback', () => ({ toast: vi.fn(), confirm: vi.fn(), alert: vi.fn(), actionSheet: vi.fn() }));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

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
const order = (id: number) => ({
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
});

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

const submitCalls = () => call.mock.calls.filter(([op]) => op === 'orderSubmit');

beforeEach(() => {
  call.mockReset();
  vi.mocked(alert).mockReset();
  vi.mocked(confirm).mockReset();
  vi.mocked(toast).mockReset();
  sessionStorage.clear();
  dialogFlags.set({ isRead: false, mallRead: false });
  siteStore.set(SITE);
  signIn(aUser({ coin: 50 }));
  call.mockImplementation(async (op: string) => {
    if (op === 'mallList') return PACKAGES;
    throw new Error(`unexpected ${op}`);
  });
});
afterEach(cleanup);

describe('/mall', () => {
  it('empty: tells an admin how to add a package (and links there); a user, that packages will show up', async () => {
    call.mockImplementation(async () => []);
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
    expect((view.getByText('我的订单').closest('a') as HTMLAnchorElement).getAttribute('href')).toBe('/my_orders');
  });

  it('asks first, then submits the order with an Idempotency-Key and shows how to pay', async () => {
    open();
    vi.mocked(confirm).mockResolvedValue(true);
    call.mockImplementation(async (op: string) => (op === 'mallList' ? PACKAGES : order(7)));
    fireEvent.click(await view.findByText('小份'));
    await waitFor(() => expect(submitCalls()).toHaveLength(1));
    expect(vi.mocked(confirm).mock.calls[0]![0]).toContain('¥9.90');
    const [, init] = submitCalls()[0]!;
    expect(init).toMatchObject({ body: { packageId: 1 }, quiet: true });
    expect(init.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    await waitFor(() => expect(vi.mocked(alert).mock.calls.some(([title]) => title === '订单已提交')).toBe(true));
    const [, content] = vi.mocked(alert).mock.calls.find(([title]) => title === '订单已提交')!;
    expect(text(content)).toContain('O20267');
    expect(text(content)).toContain(SITE.pointsNotification);
  });

  it('sends nothing when the purchase is not confirmed', async () => {
    open();
    vi.mocked(confirm).mockResolvedValue(false);
    fireEvent.click(await view.findByText('大份'));
    await waitFor(() => expect(confirm).toHaveBeenCalled());
    expect(submitCalls()).toHaveLength(0);
  });

  it('reuses the key when the same package is tried again after a lost answer, and starts a new one after success', async () => {
    open();
    vi.mocked(confirm).mockResolvedValue(true);
    let attempt = 0;
    call.mockImplementation(async (op: string) => {
      if (op === 'mallList') return PACKAGES;
      attempt++;
      if (attempt === 1) throw new TypeError('Failed to fetch');
      return order(attempt);
    });
    fireEvent.click(await view.findByText('小份'));
    await waitFor(() => expect(toast).toHaveBeenCalledWith('网络连接失败，请检查网络后重试'));
    await waitFor(() => expect((view.getByText('小份').closest('button') as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(view.getByText('小份'));
    await waitFor(() => expect(submitCalls()).toHaveLength(2));
    await waitFor(() => expect((view.getByText('小份').closest('button') as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(view.getByText('小份'));
    await waitFor(() => expect(submitCalls()).toHaveLength(3));
    const keys = submitCalls().map(([, init]) => init.idempotencyKey);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[1]);
  });

  // One policy for every screen (useOperation): a refused attempt recorded nothing on the server, so trying the same
  // package again is the same intent with the same key; another package is a new one.
  it('keeps the key for the same package after a refusal, and starts a new one for another package', async () => {
    open();
    vi.mocked(confirm).mockResolvedValue(true);
    call.mockImplementation(async (op: string) => {
      if (op === 'mallList') return PACKAGES;
      throw new ApiError('套餐已下架', 'envelope', { code: 40400, status: 404 });
    });
    const idle = () =>
      waitFor(() => expect((view.getByText('小份').closest('button') as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(await view.findByText('小份'));
    await waitFor(() => expect(toast).toHaveBeenCalledWith('套餐已下架'));
    await idle();
    fireEvent.click(view.getByText('小份'));
    await waitFor(() => expect(submitCalls()).toHaveLength(2));
    await idle();
    fireEvent.click(view.getByText('大份'));
    await waitFor(() => expect(submitCalls()).toHaveLength(3));
    const keys = submitCalls().map(([, init]) => init.idempotencyKey);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[1]);
  });

  it('shows the purchase notice once per browser session (mallRead)', async () => {
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

  it('shows no notice dialog when the site has no purchase notice', async () => {
    siteStore.set({ ...SITE, pointsNotification: '' });
    open();
    await view.findByText('小份');
    await act(async () => {});
    expect(alert).not.toHaveBeenCalled();
    expect(dialogFlags.get().mallRead).toBe(false);
  });
});
