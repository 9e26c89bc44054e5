import { cleanup, fireEvent, render, screen as view, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { api } from '../../src/web/api';
import { toast } from '../../src/web/feedback';
import Home from '../../src/web/screens/Home';
import Register from '../../src/web/screens/Register';
import { sessionStore, signIn, signOut } from '../../src/web/state/session';
import { siteStore } from '../../src/web/state/site';
import { aUser } from './users';

// Home greys out the platforms not open yet; registering signs the new user in. The API is faked.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
vi.mock('../../src/web/feedback', () => ({ toast: vi.fn(), confirm: vi.fn(), alert: vi.fn(), actionSheet: vi.fn() }));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

function open(path: string, element: React.ReactNode) {
  const router = createMemoryRouter(
    [
      { path, element },
      { path: '*', element: <div>elsewhere</div> },
    ],
    { initialEntries: [path] },
  );
  render(<RouterProvider router={router} />);
  return router;
}

beforeEach(() => {
  call.mockReset();
  vi.mocked(toast).mockReset();
});
afterEach(cleanup);

it('greys out the platforms with nothing on shelf (未开放, no link) and keeps the open ones as links', async () => {
  signIn(aUser());
  call.mockImplementation(async (op: string) =>
    op === 'platformList' ? [{ id: 3, kind: 'gxy', name: '工学云' }] : [],
  );
  open('/', <Home />);
  await waitFor(() => expect(document.querySelectorAll('.menu-item-closed').length).toBeGreaterThan(0));
  const gxy = view.getByText('工学云').closest('.menu-item')!;
  expect(gxy.tagName).toBe('A');
  expect(gxy.getAttribute('href')).toBe('/gxy');
  const wk = view.getByText('网课采集').closest('.menu-item')!;
  expect(wk.tagName).not.toBe('A');
  expect(wk.getAttribute('aria-disabled')).toBe('true');
  expect(wk.textContent).toContain('未开放');
  // Entries that are not platforms stay links.
  expect(view.getByText('积分商城').closest('a')?.getAttribute('href')).toBe('/mall');
});

it('signs the new user in after registering and goes home', async () => {
  signOut();
  // The texts' version the page read: what the new user agrees to.
  siteStore.set((s) => ({ ...(s ?? ({} as NonNullable<typeof s>)), policyVersion: 3 }));
  const user = aUser({ userAccount: 'newbie_01' });
  call.mockImplementation(async (op: string) => (op === 'userRegister' ? 2 : op === 'userLogin' ? user : null));
  const router = open('/register', <Register />);
  fireEvent.change(view.getByLabelText('账号'), { target: { value: 'newbie_01' } });
  fireEvent.change(view.getByLabelText('密码'), { target: { value: 'Passw0rd!x' } });
  fireEvent.change(view.getByLabelText('确认密码'), { target: { value: 'Passw0rd!x' } });
  // Unticked, nothing is sent: the reason shows under the box.
  fireEvent.click(view.getByRole('button', { name: '注册' }));
  expect(await view.findByText('请先阅读并勾选同意《用户协议》和《隐私政策》')).toBeTruthy();
  expect(call).not.toHaveBeenCalledWith('userRegister', expect.anything());
  fireEvent.click(view.getByLabelText('我已阅读并同意'));
  fireEvent.click(view.getByRole('button', { name: '注册' }));
  await waitFor(() => expect(router.state.location.pathname).toBe('/'));
  expect(call).toHaveBeenCalledWith(
    'userRegister',
    expect.objectContaining({ body: expect.objectContaining({ policyVersion: 3 }) }),
  );
  expect(call).toHaveBeenCalledWith(
    'userLogin',
    expect.objectContaining({ body: { userAccount: 'newbie_01', userPassword: 'Passw0rd!x' } }),
  );
  expect(sessionStore.get()).toMatchObject({ role: 'user', user: { userAccount: 'newbie_01' } });
  expect(toast).toHaveBeenCalledWith('注册成功，已为你登录', 'success');
});
