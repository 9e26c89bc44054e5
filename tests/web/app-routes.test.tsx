import { cleanup, render, screen as view, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/api/client';
import { platformScreens, screens } from '../../screens.config';
import { api } from '../../src/web/api';
import { buildRoutes } from '../../src/web/app/routes';
import { toast } from '../../src/web/feedback';
import { sessionStore, signOut } from '../../src/web/state/session';
import { siteStore } from '../../src/web/state/site';

// The router built from the screen map: the guard before each navigation, the frame's title, and a platform added
// by one config entry.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() }, setLoginNavigator: vi.fn() }));
vi.mock('../../src/web/feedback', () => ({ toast: vi.fn(), alert: vi.fn(), confirm: vi.fn(), actionSheet: vi.fn() }));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

const USER = {
  id: 2,
  userAccount: 'alice_01',
  userName: '小红',
  userRole: 'user',
  email: null,
  invitationCode: 'K7P2M9QX',
  coin: 0,
  createdAt: 1795000000000,
};
const SITE = {
  id: 1,
  websiteName: '测试站',
  noticeBar: '滚动通知文字',
  noticeAnnouncementTitle: '',
  noticeAnnouncement: '',
  pointsNotification: '',
  coinName: '积分',
  addCoin: 0,
  amount: 0,
  status: 1,
  analyticsUrl: '',
  userId: null,
  updatedAt: 0,
  timeZone: 'Asia/Shanghai',
};

function answer(signedIn: boolean) {
  call.mockImplementation(async (op: string) => {
    if (op === 'basicInformationGet') return SITE;
    if (op === 'serviceMy' || op === 'platformList') return [];
    if (op === 'quotaMy') return { runs: 0, days: 0 };
    if (op === 'platformOverview')
      return {
        kind: { code: 'demo', title: '演示平台', settings: 'ClockInSettings' },
        platform: null,
        service: null,
        today: 0,
        total: 0,
        quota: { runs: 0, days: 0 },
      };
    if (op === 'userGetLogin') {
      if (signedIn) return USER;
      throw new ApiError('请先登录', 'envelope', { code: 40100, status: 401 });
    }
    throw new Error(`unexpected ${op}`);
  });
}

function open(path: string, extra = screens) {
  const router = createMemoryRouter(buildRoutes(extra), { initialEntries: [path] });
  render(<RouterProvider router={router} />);
  return router;
}

beforeEach(() => {
  call.mockReset();
  vi.mocked(toast).mockReset();
  signOut();
  siteStore.set(null);
});
afterEach(cleanup);

describe('routes from screens.config.ts', () => {
  it('adds a platform page and its edit page with one config entry', async () => {
    answer(true);
    const withDemo = [...screens, ...platformScreens({ code: 'demo', title: '演示平台', settings: 'ClockInSettings' })];
    const router = open('/demo', withDemo);
    expect(await view.findByText('该平台暂未开放', undefined, { timeout: 10_000 })).toBeTruthy();
    expect(call).toHaveBeenCalledWith('platformOverview', expect.objectContaining({ query: { kind: 'demo' } }));
    expect(view.getAllByText('演示平台').length).toBeGreaterThan(0);
    await router.navigate('/demo/update');
    // No service yet: the edit page opens one (开通), titled so once the overview is read.
    expect(await view.findByText('开通演示平台服务')).toBeTruthy();
    await waitFor(() => expect(document.title).toBe('测试站 - 开通演示平台服务'));
  });

  it('fetches the current user before each navigation to a signed-in screen', async () => {
    answer(true);
    const router = open('/clockInfo');
    await view.findByText('暂时没有开放的平台', undefined, { timeout: 10_000 });
    const before = call.mock.calls.filter(([op]) => op === 'userGetLogin').length;
    await router.navigate('/notice');
    await view.findByText('消息通知');
    expect(call.mock.calls.filter(([op]) => op === 'userGetLogin').length).toBe(before + 1);
    expect(sessionStore.get()).toMatchObject({ role: 'user', user: { userAccount: 'alice_01' } });
  });

  it('sends a visitor to /login and marks the role notLogin', async () => {
    answer(false);
    const router = open('/about');
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'), { timeout: 10_000 });
    expect(router.state.location.search).toBe('?redirect=%2Fabout');
    expect(sessionStore.get().role).toBe('notLogin');
  });

  it('opens /login for a first visit without a 请先登录 toast: the visitor only asked, nothing ended', async () => {
    answer(false);
    const router = open('/');
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'), { timeout: 10_000 });
    // Asked as a probe (the client then shows no toast), and the guard adds none of its own.
    const guard = call.mock.calls.filter(([op, init]) => op === 'userGetLogin' && init.quiet === true);
    expect(guard.map(([, init]) => init.probe)).toEqual([true]);
    expect(toast).not.toHaveBeenCalled();
  });

  it(
    'offline, a tap on another screen keeps the signed-in user and opens it in its frame',
    { timeout: 15_000 },
    async () => {
      answer(true);
      const router = open('/clockInfo');
      await view.findByText('暂时没有开放的平台', undefined, { timeout: 10_000 });
      call.mockImplementation(async () => {
        throw new TypeError('Failed to fetch');
      });
      await router.navigate('/notice');
      await waitFor(() => expect(document.querySelector('.adm-nav-bar-title')?.textContent).toBe('消息通知'));
      expect(router.state.location.pathname).toBe('/notice');
      expect(view.getByRole('button', { name: '返回' })).toBeTruthy();
      expect(document.querySelector('.app-tabbar')).not.toBeNull();
      expect(sessionStore.get()).toMatchObject({ role: 'user' });
    },
  );

  it('still says why when a first load finds the session ended (a ban, 40001)', async () => {
    call.mockImplementation(async (op: string) => {
      if (op === 'basicInformationGet') return SITE;
      throw new ApiError('账号已被封禁', 'envelope', { code: 40001, status: 401 });
    });
    const router = open('/about');
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'), { timeout: 10_000 });
    expect(toast).toHaveBeenCalledWith('账号已被封禁');
  });

  it(
    'for a user signed in on this page, the guard leaves the sign-in-again toast to the client',
    { timeout: 15_000 },
    async () => {
      answer(true);
      const router = open('/clockInfo');
      await view.findByText('暂时没有开放的平台', undefined, { timeout: 10_000 });
      answer(false);
      await router.navigate('/notice');
      await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
      // The guard's own asks are the quiet ones (/login's own ask afterwards is a probe of its own).
      const last = call.mock.calls.filter(([op, init]) => op === 'userGetLogin' && init.quiet === true).at(-1)!;
      expect(last[1]).toMatchObject({ probe: false });
    },
  );

  it('does not ask who is signed in on /register; /login and /500 ask without a toast or a redirect', async () => {
    answer(false);
    for (const path of ['/register']) {
      cleanup();
      call.mockClear();
      open(path);
      await waitFor(() => expect(document.body.textContent).not.toBe(''));
      expect(
        call.mock.calls.some(([op]) => op === 'userGetLogin'),
        path,
      ).toBe(false);
    }
    cleanup();
    call.mockClear();
    const router = open('/login');
    expect(await view.findByRole('button', { name: '登录' }, { timeout: 10_000 })).toBeTruthy();
    expect(call).toHaveBeenCalledWith('userGetLogin', expect.objectContaining({ probe: true }));
    expect(router.state.location.pathname).toBe('/login');
    cleanup();
    call.mockClear();
    const fault = open('/500');
    expect(await view.findByText('返回首页', undefined, { timeout: 10_000 })).toBeTruthy();
    expect(call).toHaveBeenCalledWith('userGetLogin', expect.objectContaining({ probe: true }));
    expect(fault.state.location.pathname).toBe('/500');
  });

  it('draws /500, opened afresh, in the frame of the signed-in user (their watermark)', async () => {
    answer(true);
    open('/500');
    expect(await view.findByText('返回首页', undefined, { timeout: 10_000 })).toBeTruthy();
    expect(sessionStore.get()).toMatchObject({ role: 'user', user: { userAccount: 'alice_01' } });
    await waitFor(() => expect(document.querySelector('.adm-water-mark')).not.toBeNull());
  });

  it('sends a signed-in user opening /login on to where they were going, or home', async () => {
    answer(true);
    const router = open('/login?redirect=%2Fclock_info_missing');
    await waitFor(() => expect(router.state.location.pathname).toBe('/clock_info_missing'));
    cleanup();
    const home = open('/login');
    await waitFor(() => expect(home.state.location.pathname).toBe('/'));
    expect(sessionStore.get()).toMatchObject({ role: 'user', user: { userAccount: 'alice_01' } });
  });

  it('keeps who is signed in when the guard meets a server fault, so /500 keeps their frame', async () => {
    answer(true);
    const router = open('/clockInfo');
    await view.findByText('暂时没有开放的平台', undefined, { timeout: 10_000 });
    call.mockImplementation(async (op: string) => {
      if (op === 'basicInformationGet') return SITE;
      throw new ApiError('服务器异常', 'envelope', { code: 50000, status: 500 });
    });
    await router.navigate('/about');
    await waitFor(() => expect(router.state.location.pathname).toBe('/500'));
    expect(sessionStore.get()).toMatchObject({ role: 'user', user: { userAccount: 'alice_01' } });
    // The frame's title carries the site's name there too.
    await waitFor(() => expect(document.title).toBe('测试站 - 服务器异常'));
  });

  it('keeps a role out of screens it may not open', async () => {
    answer(true);
    open('/system');
    expect(await view.findByText('没有权限访问这个页面', undefined, { timeout: 10_000 })).toBeTruthy();
  });

  it('shows the not-found screen inside the frame for unknown paths', async () => {
    answer(true);
    open('/no/such/page');
    expect(await view.findByText('链接可能已失效，请返回首页。', undefined, { timeout: 10_000 })).toBeTruthy();
  });
});
