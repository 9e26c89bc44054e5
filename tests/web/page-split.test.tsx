import { act, cleanup, fireEvent, render, screen as view, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screens } from '../../screens.config';
import { api } from '../../src/web/api';
import { customScreens } from '../../src/web/app/custom-screens';
import { buildRoutes } from '../../src/web/app/routes';
import { signOut } from '../../src/web/state/session';
import { siteStore } from '../../src/web/state/site';

// What keeps each page's first download small without the user noticing: every screen of the map is fetched when
// opened (a new screen is split with no code), the loading state shows meanwhile, and /login's own light form still
// checks what the user typed before anything is sent.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() }, setLoginNavigator: vi.fn() }));
vi.mock('../../src/web/feedback', () => ({ toast: vi.fn(), alert: vi.fn(), confirm: vi.fn(), actionSheet: vi.fn() }));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

const ADMIN = {
  id: 1,
  userAccount: 'admin',
  userName: '管理员',
  userRole: 'admin',
  email: null,
  invitationCode: 'K7P2M9QX',
  coin: 0,
  createdAt: 1795000000000,
};

const SITE = { id: 1, websiteName: '测试站', noticeBar: '', noticeAnnouncementTitle: '', noticeAnnouncement: '' };

/** The routes of the screen map, flattened: the layout and guard routes hold them as children. */
function screenRoutes(routes: RouteObject[]): RouteObject[] {
  return routes.flatMap((r) => [...(r.path !== undefined ? [r] : []), ...screenRoutes(r.children ?? [])]);
}

beforeEach(() => {
  call.mockReset();
  signOut();
  siteStore.set(null);
});
afterEach(cleanup);

describe('the screen map, split by screen', () => {
  it('gives every screen a route that is fetched when opened, and resolves each to a component', async () => {
    call.mockImplementation(async () => SITE);
    const routes = screenRoutes(buildRoutes(screens));
    for (const s of screens) {
      const route = routes.find((r) => r.path === s.path);
      expect(route, s.path).toBeDefined();
      // Nothing of the screen is in the route table itself: no component, no element, only the loader of its chunk.
      expect([route!.Component, route!.element], s.path).toEqual([undefined, undefined]);
      expect(typeof route!.lazy, s.path).toBe('function');
    }
    for (const route of routes) {
      const loaded = await (route.lazy as () => Promise<RouteObject>)();
      expect(typeof loaded.Component, route.path).toBe('function');
    }
  }, 60_000);

  it('shows the loading state while a screen is fetched, then the screen', async () => {
    let arrive: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (arrive = resolve));
    const login = customScreens.login;
    const slowLogin = vi.spyOn(customScreens, 'login').mockImplementation(async () => held.then(login));
    // A visitor (/login sends a signed-in user on); the site record never matters here.
    call.mockImplementation(async (op: string) =>
      op === 'userGetLogin' ? Promise.reject(new Error('visitor')) : new Promise(() => undefined),
    );
    render(<RouterProvider router={createMemoryRouter(buildRoutes(screens), { initialEntries: ['/login'] })} />);
    expect(await view.findByRole('status')).toHaveProperty('textContent', '加载中...');
    expect(view.queryByRole('button', { name: '登录' })).toBeNull();
    await act(async () => arrive());
    expect(await view.findByRole('button', { name: '登录' })).toBeDefined();
    expect(view.queryByRole('status')).toBeNull();
    slowLogin.mockRestore();
  });
});

describe('the login form (react-hook-form)', () => {
  async function openLogin() {
    let signedIn = false; // a visitor until the form signs in: /login sends a signed-in user on
    call.mockImplementation(async (op: string, init?: { body?: { userAccount: string } }) => {
      if (op === 'basicInformationGet') return SITE;
      if (op === 'userLogin') {
        signedIn = true;
        return { ...ADMIN, userAccount: init?.body?.userAccount ?? '' };
      }
      if (op === 'userGetLogin') return signedIn ? ADMIN : Promise.reject(new Error('visitor'));
      return [];
    });
    const router = createMemoryRouter(buildRoutes(screens), { initialEntries: ['/login?redirect=%2Fabout'] });
    render(<RouterProvider router={router} />);
    await view.findByRole('button', { name: '登录' });
    return router;
  }
  const account = () => view.getByLabelText<HTMLInputElement>('账号');
  const password = () => view.getByLabelText<HTMLInputElement>('密码');
  const submit = () => fireEvent.click(view.getByRole('button', { name: '登录' }));

  it('says what is missing, focuses the first bad field and sends nothing', async () => {
    await openLogin();
    submit();
    expect(await view.findByText('请填写账号')).toBeDefined();
    expect(view.getByText('请填写密码')).toBeDefined();
    expect(document.activeElement).toBe(account());
    expect(account().getAttribute('aria-invalid')).toBe('true');
    expect(call).not.toHaveBeenCalledWith('userLogin', expect.anything());
  });

  it('checks a field again as it is typed in after a failed submit, then signs in and goes where the user was going', async () => {
    const router = await openLogin();
    fireEvent.change(account(), { target: { value: 'ab' } });
    fireEvent.change(password(), { target: { value: 'Passw0rd!' } });
    submit();
    expect(await view.findByText('账号为 4–16 位字母、数字或下划线')).toBeDefined();
    expect(document.activeElement).toBe(account());
    fireEvent.change(account(), { target: { value: 'alice_01' } });
    await waitFor(() => expect(view.queryByText('账号为 4–16 位字母、数字或下划线')).toBeNull());
    submit();
    await waitFor(() =>
      expect(call).toHaveBeenCalledWith(
        'userLogin',
        expect.objectContaining({ body: { userAccount: 'alice_01', userPassword: 'Passw0rd!' } }),
      ),
    );
    // /about's chunk (antd-mobile) takes a while to import in this DOM.
    await waitFor(() => expect(router.state.location.pathname).toBe('/about'), { timeout: 15_000 });
  });
});
