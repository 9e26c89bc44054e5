import { act, cleanup, fireEvent, render, screen as view, waitFor, within } from '@testing-library/react';
import { createBrowserRouter, createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { screens } from '../../screens.config';
import { api } from '../../src/web/api';
import { colorSchemeStore } from '../../src/web/app/color-scheme';
import { buildRoutes } from '../../src/web/app/routes';
import type { ChartPart, ComposedScreen, ListScreen } from '../../src/web/config/types';
import { actionSheet } from '../../src/web/feedback';
import { FormRenderer, type AnyFormScreen } from '../../src/web/renderers/FormRenderer';
import { ListRenderer } from '../../src/web/renderers/ListRenderer';
import { ChartPartView } from '../../src/web/renderers/composed/ChartPartView';
import { signIn } from '../../src/web/state/session';
import { dialogFlags } from '../../src/web/state/dialog-flags';
import { siteStore } from '../../src/web/state/site';
import { openAnnouncement } from '../../src/web/shell/AnnouncementDialog';
import { ApiError } from '../../src/api/client';

// Issue 35 ("No dead ends"), the web side: each test fails without its fix.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() }, setLoginNavigator: vi.fn() }));
vi.mock('../../src/web/feedback', async (actual) => ({
  ...(await actual<typeof import('../../src/web/feedback')>()),
  toast: vi.fn(),
  alert: vi.fn(),
  // The real dialog, so its buttons can be read and tapped.
  confirm: vi.fn((await actual<typeof import('../../src/web/feedback')>()).confirm),
  actionSheet: vi.fn(),
}));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

// ECharts draws on a canvas jsdom does not have: the options it is given are what is checked.
const drawn = vi.hoisted(() => [] as { series: { name: string; itemStyle?: { color?: string } }[] }[]);
vi.mock('echarts/core', () => ({
  use: () => undefined,
  init: () => ({
    setOption: (option: (typeof drawn)[number]) => drawn.push(option),
    dispose: () => undefined,
    resize: () => undefined,
  }),
}));
vi.mock('echarts/charts', () => ({ BarChart: {}, LineChart: {} }));
vi.mock('echarts/components', () => ({ AxisPointerComponent: {}, GridComponent: {}, LegendPlainComponent: {} }));
vi.mock('echarts/renderers', () => ({ CanvasRenderer: {} }));

afterEach(() => {
  cleanup();
  call.mockReset();
  drawn.length = 0;
  colorSchemeStore.set('light');
});

describe('/dashboard 每日执行', () => {
  const dashboard = screens.find((s) => s.path === '/dashboard') as ComposedScreen;
  const part = dashboard.body.find((p) => p.type === 'chart') as ChartPart;
  const day = {
    day: '2027-03-01',
    revenue: 100,
    coinsIssued: 1,
    coinsSpent: 1,
    runsSucceeded: 3,
    runsFailed: 2,
    runsSkipped: 1,
    newUsers: 1,
  };
  const runColours = () => {
    const option = drawn.findLast((o) => o.series.some((s) => s.name === '失败'));
    return Object.fromEntries((option?.series ?? []).map((s) => [s.name, s.itemStyle?.color]));
  };

  it.each([
    ['light', { 成功: '#00b578', 失败: '#ff3141', 跳过: '#a3a3a3' }],
    ['dark', { 成功: '#34b368', 失败: '#ff5c69', 跳过: '#8f8f8f' }],
  ] as const)('draws 成功 green, 失败 red and 跳过 grey (%s)', async (scheme, colours) => {
    colorSchemeStore.set(scheme);
    call.mockResolvedValue({ series: [day, { ...day, day: '2027-03-02' }] });
    render(<ChartPartView part={part} />);
    await waitFor(() => expect(runColours()).toEqual(colours));
  });

  it('draws the series again in the other scheme when it changes', async () => {
    call.mockResolvedValue({ series: [day] });
    render(<ChartPartView part={part} />);
    await waitFor(() => expect(runColours()['失败']).toBe('#ff3141'));
    act(() => colorSchemeStore.set('dark'));
    await waitFor(() => expect(runColours()['失败']).toBe('#ff5c69'));
  });
});

const USER = {
  id: 2,
  userAccount: 'alice_01',
  userName: '小红',
  userRole: 'user',
  email: null,
  invitationCode: 'K7P2M9QX',
  coin: 0,
  createdAt: 1795000000000,
  twoFactor: false,
  enrolTwoFactor: false,
};

/** What a read a test says nothing of answers: nothing to show, in the shape its screen expects. */
function emptyAnswer(op: string): unknown {
  if (op === 'platformList' || op === 'serviceMy' || op === 'mallList') return [];
  if (op === 'payMethods') return { orderTimeoutMinutes: 15, methods: [] };
  if (/List|My$|Page|Get/.test(op)) return { records: [], total: 0, current: 1, pageSize: 20 };
  return [];
}

/** The whole app in a browser router (jsdom's own history), signed in as `user`; other reads answer empty. */
function openApp(path: string, user: object = USER, answers: Record<string, unknown> = {}) {
  call.mockImplementation(async (op: string) => {
    if (op in answers) return answers[op];
    if (op === 'userGetLogin') return user;
    if (op === 'basicInformationGet') return { websiteName: '测试站', noticeBar: '', coinName: '积分' };
    if (op === 'quotaMy') return { runs: 0, days: 0 };
    return emptyAnswer(op);
  });
  window.history.replaceState(null, '', path);
  const router = createBrowserRouter(buildRoutes(screens));
  render(<RouterProvider router={router} />);
  return router;
}
const title = () => document.querySelector('.adm-nav-bar-title')?.textContent;
const tab = (name: string) => fireEvent.click(within(document.querySelector('.app-tabbar')!).getByText(name));

describe('tabs', () => {
  it("a tab switch replaces the page, and a tab page's back arrow leads to 首页", { timeout: 20_000 }, async () => {
    const router = openApp('/');
    await waitFor(() => expect(document.querySelector('.app-tabbar')).not.toBeNull(), { timeout: 10_000 });
    const depth = window.history.length;
    tab('积分商城');
    await waitFor(() => expect(router.state.location.pathname).toBe('/mall'));
    tab('我的');
    await waitFor(() => expect(router.state.location.pathname).toBe('/about'));
    expect(router.state.historyAction).toBe('REPLACE');
    expect(window.history.length).toBe(depth);
    fireEvent.click(await view.findByRole('button', { name: '返回' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(window.history.length).toBe(depth);
  });

  it('a tab page opened deep in the app still goes back to 首页', { timeout: 20_000 }, async () => {
    const router = openApp('/');
    await waitFor(() => expect(document.querySelector('.app-tabbar')).not.toBeNull(), { timeout: 10_000 });
    await act(() => router.navigate('/notice'));
    await waitFor(() => expect(title()).toBe('消息通知'));
    await act(() => router.navigate('/my_orders'));
    await waitFor(() => expect(title()).toBe('我的订单'));
    tab('积分商城');
    await waitFor(() => expect(router.state.location.pathname).toBe('/mall'));
    fireEvent.click(await view.findByRole('button', { name: '返回' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
  });
});

describe('/my_orders cancel', () => {
  const order = {
    id: 5,
    orderNo: 'ORD20270301',
    coinName: '基础套餐',
    amount: 1990,
    addCoin: 100,
    status: 'pending',
    createdAt: 1795000000000,
  };
  async function askToCancel() {
    fireEvent.click(await view.findByText('基础套餐'));
    await waitFor(() => expect(actionSheet).toHaveBeenCalled());
    const offered = vi.mocked(actionSheet).mock.lastCall![0];
    act(() => offered.find((a) => a.text === '取消订单')!.onAction());
    return await view.findByRole('dialog', { name: '确定取消订单 ORD20270301 吗？' });
  }

  it(
    'asks with [再想想][取消订单]: the first leaves the order, the second cancels it',
    { timeout: 20_000 },
    async () => {
      signIn(USER as Parameters<typeof signIn>[0]);
      call.mockImplementation(async (op: string) =>
        op === 'orderMy' ? { records: [order], total: 1, current: 1, pageSize: 20 } : true,
      );
      const screen = screens.find((s) => s.path === '/my_orders') as ListScreen<any>;
      const router = createMemoryRouter([{ path: '/my_orders', element: <ListRenderer screen={screen} /> }], {
        initialEntries: ['/my_orders'],
      });
      render(<RouterProvider router={router} />);

      let dialog = await askToCancel();
      const buttons = within(dialog)
        .getAllByRole('button')
        .map((b) => b.textContent);
      expect(buttons).toEqual(['再想想', '取消订单']);
      fireEvent.click(within(dialog).getByRole('button', { name: '再想想' }));
      // The dialog leaves at once here (tests/web/setup.ts turns the animations off): one still on its way out would be
      // found by the next test of this file.
      await waitFor(() => expect(view.queryByRole('dialog')).toBeNull());
      expect(call).not.toHaveBeenCalledWith('orderCancel', expect.anything());

      dialog = await askToCancel();
      fireEvent.click(within(dialog).getByRole('button', { name: '取消订单' }));
      await waitFor(() =>
        expect(call).toHaveBeenCalledWith('orderCancel', expect.objectContaining({ body: { id: 5 } })),
      );
    },
  );
});

/** A form screen of screens.config.ts alone in a memory router, opened from `from`. */
function openForm(path: string, entry = path, from = '/') {
  const screen = screens.find((s) => s.path === path) as AnyFormScreen;
  const router = createMemoryRouter([{ path, element: <FormRenderer screen={screen} /> }], {
    initialEntries: [from, entry],
    initialIndex: 1,
  });
  render(<RouterProvider router={router} />);
  return router;
}
const errorOf = (input: HTMLElement) => document.getElementById(`${input.id}__error`)?.textContent ?? '';

describe('/add_mall price', () => {
  it('says 请输入正确的金额 for text that is no amount, and takes decimals', async () => {
    openForm('/add_mall', '/add_mall', '/mall_management');
    const price = await view.findByLabelText('价格（元）');
    fireEvent.change(price, { target: { value: 'abc' } });
    fireEvent.click(view.getByRole('button', { name: /提交/ }));
    await waitFor(() => expect(errorOf(price)).toContain('请输入正确的金额'));
    expect(document.body.textContent).not.toContain('应为整数');
    fireEvent.change(price, { target: { value: '9.9' } });
    fireEvent.click(view.getByRole('button', { name: /提交/ }));
    await waitFor(() => expect(errorOf(price)).toBe(''));
  });
});

describe('/subordinate for a user who is no agent', () => {
  it('shows the no-permission page with 返回首页, as 404 does', { timeout: 20_000 }, async () => {
    const router = openApp('/subordinate');
    expect(await view.findByText('没有权限访问这个页面', undefined, { timeout: 10_000 })).toBeTruthy();
    expect(document.querySelector('main .adm-error-block')).not.toBeNull();
    expect(call).not.toHaveBeenCalledWith('userSubordinate', expect.anything());
    fireEvent.click(view.getByRole('button', { name: '返回首页' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
  });
});

describe('/gxy/update', () => {
  const overview = (service: object | null) => ({
    kind: { code: 'gxy', title: '工学云', settings: 'ClockInSettings' },
    platform: { id: 3, name: '工学云', description: '', price: 2, billingUnit: 'per_run', status: 1 },
    service,
    today: 0,
    total: 0,
    quota: { runs: 0, days: 0 },
  });
  const SERVICE = {
    id: 7,
    state: 'active',
    settings: { days: [1, 2], checkInTime: '08:30', notify: 'inbox' },
    nextRunAt: null,
  };
  const openUpdate = (service: object | null) => {
    call.mockImplementation(async (op: string) => (op === 'platformOverview' ? overview(service) : { id: 7 }));
    return openForm('/gxy/update', '/gxy/update', '/gxy');
  };

  it('is titled 开通… on first setup and 修改… once there is a service', { timeout: 20_000 }, async () => {
    const router = openApp('/gxy/update', USER, { platformOverview: overview(null) });
    await waitFor(() => expect(title()).toBe('开通工学云服务'), { timeout: 10_000 });
    await waitFor(() => expect(document.title).toContain('开通工学云服务'));
    // Another page keeps its own title; back on the form with a service, it is changed (修改).
    await act(() => router.navigate('/notice'));
    await waitFor(() => expect(title()).toBe('消息通知'));
    call.mockImplementation(async (op: string) =>
      op === 'platformOverview' ? overview(SERVICE) : op === 'userGetLogin' ? USER : [],
    );
    await act(() => router.navigate('/gxy/update'));
    await waitFor(() => expect(title()).toBe('修改工学云信息'));
    expect(document.title).toContain('修改工学云信息');
  });

  it('asks 请选择 for its pickers, and an empty 打卡日 says so by the field', { timeout: 20_000 }, async () => {
    openUpdate(null);
    const submit = await view.findByRole('button', { name: /提交/ });
    // Tapped once the form has settled on its record (its first change from the defaults applied), as a user's tap is.
    await act(() => new Promise((settled) => setTimeout(settled, 50)));
    fireEvent.click(submit);
    await waitFor(() => expect(document.querySelectorAll('[role="alert"]').length).toBeGreaterThan(0));
    const errorAt = (name: string) => document.getElementById(`root_${name}__error`)?.textContent;
    await waitFor(() => expect(errorAt('days')).toBe('请选择打卡日'));
    expect(errorAt('checkInTime')).toBe('请选择签到时间');
    expect(errorAt('notify')).toBe('请选择结果通知');
    expect(document.body.textContent).not.toContain('请填写');
    expect(call).not.toHaveBeenCalledWith('serviceSave', expect.anything());
  });
});

describe('a form opened by a link', () => {
  it('goes back to its list after saving, not to 首页 (/update_user, /update_platform, /update_mall)', async () => {
    for (const path of ['/update_user', '/update_platform', '/update_mall'])
      expect((screens.find((s) => s.path === path) as AnyFormScreen).recordOf, path).toMatch(/^\/\w+_management$/);
    call.mockImplementation(async (op: string) =>
      op === 'mallGet'
        ? { id: 3, coinName: '月卡', amount: 990, addCoin: 100, status: 1, sort: 0, orders: 0 }
        : op === 'mallUpdate'
          ? true
          : undefined,
    );
    const screen = screens.find((s) => s.path === '/update_mall') as AnyFormScreen;
    // One entry: the form is the first page of this tab, as when a link or a bookmark opened it.
    const router = createMemoryRouter(
      [
        { path: '/update_mall', element: <FormRenderer screen={screen} /> },
        { path: '*', element: <p>list</p> },
      ],
      { initialEntries: ['/update_mall?id=3'] },
    );
    render(<RouterProvider router={router} />);
    const name = await view.findByLabelText('套餐名称');
    await waitFor(() => expect((name as HTMLInputElement).value).toBe('月卡'));
    fireEvent.click(view.getByRole('button', { name: /提交|保存/ }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/mall_management'));
  });
});

describe('error pages show only themselves', () => {
  const SITE = {
    websiteName: '测试站',
    noticeBar: '',
    coinName: '积分',
    noticeAnnouncementTitle: '公告',
    noticeAnnouncement: '今晚维护',
  };
  const open = (path: string, signedIn: boolean) => {
    window.sessionStorage.clear();
    dialogFlags.set({ isRead: false, mallRead: false });
    // The site record as the app start reads it (kept between tests of this file, so set here).
    siteStore.set(SITE as never);
    openAnnouncement.set(null);
    call.mockImplementation(async (op: string) => {
      if (op === 'basicInformationGet') return SITE;
      if (op === 'userGetLogin') {
        if (signedIn) return USER;
        throw new ApiError('请先登录', 'envelope', { code: 40100, status: 401 });
      }
      return emptyAnswer(op);
    });
    window.history.replaceState(null, '', path);
    const router = createBrowserRouter(buildRoutes(screens));
    render(<RouterProvider router={router} />);
    return router;
  };

  it.each([
    ['/500 as a visitor', '/500', false, '服务器异常'],
    ['/500 signed in', '/500', true, '服务器异常'],
    ['an unknown path', '/no/such/page', true, '页面不存在'],
  ])(
    '%s: no tab bar, no 公告; the 公告 waits for the next page',
    { timeout: 20_000 },
    async (_, path, signedIn, heading) => {
      const router = open(path, signedIn);
      await waitFor(() => expect(title()).toBe(heading), { timeout: 10_000 });
      await new Promise((r) => setTimeout(r, 50));
      expect(document.querySelector('.app-tabbar')).toBeNull();
      expect(view.queryByRole('dialog')).toBeNull();
      if (!signedIn) return;
      await act(() => router.navigate('/'));
      await waitFor(() => expect(document.querySelector('.app-tabbar')).not.toBeNull(), { timeout: 10_000 });
      expect(await view.findByRole('dialog')).toBeTruthy();
    },
  );
});
