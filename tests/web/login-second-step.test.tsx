import { cleanup, fireEvent, render, screen as view, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '../../src/web/api';
import Login from '../../src/web/screens/Login';
import { sessionStore, signOut } from '../../src/web/state/session';
import { aUser } from './users';

// The login's second step (two-factor sign-in): a right password that answers a challenge shows the code screen, the
// code goes with the challenge, and an admin who must enrol first is sent to 两步验证.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
vi.mock('../../src/web/feedback', () => ({ toast: vi.fn(), confirm: vi.fn(), actionSheet: vi.fn(), alert: vi.fn() }));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

const CHALLENGE = {
  challenge: `1.1795000300000.${'a'.repeat(64)}`,
  expiresAt: 1795000300000,
  methods: ['totp', 'recovery'],
};

function open() {
  const router = createMemoryRouter(
    [
      { path: '/login', element: <Login /> },
      { path: '/', element: <p>home page</p> },
      { path: '/two_factor', element: <p>two-factor page</p> },
    ],
    { initialEntries: ['/login'] },
  );
  render(<RouterProvider router={router} />);
}

async function typePassword() {
  fireEvent.input(view.getByLabelText('账号'), { target: { value: 'alice_01' } });
  fireEvent.input(view.getByLabelText('密码'), { target: { value: 'Passw0rd!' } });
  fireEvent.click(view.getByRole('button', { name: '登录' }));
}

beforeEach(() => {
  call.mockReset();
  signOut();
});
afterEach(cleanup);

describe('login with two-factor sign-in', () => {
  it('asks for a code after the password, sends it with the challenge, then signs in', async () => {
    call.mockResolvedValueOnce(CHALLENGE).mockResolvedValueOnce(aUser({ twoFactor: true }));
    open();
    await typePassword();
    const code = await view.findByLabelText('验证码或恢复码');
    expect(sessionStore.get().user).toBeNull();

    fireEvent.input(code, { target: { value: '12345' } });
    fireEvent.click(view.getByRole('button', { name: '验证并登录' }));
    expect(await view.findByText('请输入 6 位数字验证码，或 10 位恢复码')).toBeTruthy();

    fireEvent.input(code, { target: { value: 'K7P2M-9QXAB' } });
    fireEvent.click(view.getByRole('button', { name: '验证并登录' }));
    await view.findByText('home page');
    expect(call).toHaveBeenLastCalledWith(
      'userLoginSecondStep',
      expect.objectContaining({ body: { challenge: CHALLENGE.challenge, code: 'K7P2M-9QXAB' } }),
    );
    expect(sessionStore.get().user?.twoFactor).toBe(true);
  });

  it('goes back to the password form', async () => {
    call.mockResolvedValueOnce(CHALLENGE);
    open();
    await typePassword();
    fireEvent.click(await view.findByRole('button', { name: '返回重新输入密码' }));
    await waitFor(() => expect(view.getByLabelText('密码')).toBeTruthy());
  });

  it('sends an admin that must enrol to 两步验证', async () => {
    call.mockResolvedValueOnce(aUser({ userRole: 'admin', enrolTwoFactor: true }));
    open();
    await typePassword();
    await view.findByText('two-factor page');
  });
});
