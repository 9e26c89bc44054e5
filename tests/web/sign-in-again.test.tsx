import { cleanup, fireEvent, render, screen as view, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../../src/web/feedback';
import BindEmail from '../../src/web/screens/BindEmail';
import TransferCoin from '../../src/web/screens/TransferCoin';
import { signIn } from '../../src/web/state/session';
import { aUser } from './users';

// The real client (src/web/api.ts) answering a session that ended (40001) or never was (40100): the user is told
// once. The client says it and goes to /login; the screen, whose call was quiet, adds nothing.

const server = vi.hoisted(() => {
  const state = { code: 40001 };
  // openapi-fetch takes globalThis.fetch and Request when the client is created, so they are replaced before any
  // import runs. Node's Request needs an absolute URL; a browser resolves '/api/…' against the page.
  const NodeRequest = globalThis.Request;
  globalThis.Request = class extends NodeRequest {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === 'string' ? new URL(input, 'http://app.test') : input, init);
    }
  };
  globalThis.fetch = async () =>
    new Response(JSON.stringify({ code: state.code, message: '登录已失效，请重新登录', data: null }), {
      status: 401,
      headers: { 'content-type': 'application/json' },
    });
  return state;
});
vi.mock('../../src/web/feedback', () => ({
  toast: vi.fn(),
  closeDialogs: vi.fn(),
  notify: vi.fn(),
  confirm: vi.fn(),
  alert: vi.fn(),
  actionSheet: vi.fn(),
}));

const ME = aUser({ coin: 50 });

function open(path: string, element: React.ReactElement) {
  const router = createMemoryRouter(
    [
      { path, element },
      { path: '/login', element: <p>login page</p> },
    ],
    { initialEntries: [path] },
  );
  return render(<RouterProvider router={router} />);
}

beforeEach(() => {
  vi.mocked(toast).mockReset();
  signIn(ME);
});
afterEach(cleanup);

describe.each([40001, 40100])('a call answered %i', (code) => {
  beforeEach(() => {
    server.code = code;
  });

  it('toasts once on the transfer screen', async () => {
    open('/transfer', <TransferCoin />);
    fireEvent.change(view.getByPlaceholderText('对方的账号'), { target: { value: 'bob_0001' } });
    const button = view.getByRole<HTMLButtonElement>('button', { name: '查询' });
    fireEvent.click(button);
    await waitFor(() => expect(toast).toHaveBeenCalled());
    // The screen handles the failure before it leaves its busy state: once idle, any second toast would be there.
    await waitFor(() => expect(button.disabled).toBe(false));
    expect(toast).toHaveBeenCalledTimes(1);
    expect(toast).toHaveBeenCalledWith('登录已失效，请重新登录');
  });

  it('toasts once on the e-mail screen', async () => {
    open('/bind_email', <BindEmail />);
    fireEvent.change(view.getByPlaceholderText('name@example.com'), { target: { value: 'me@example.com' } });
    const button = view.getByRole<HTMLButtonElement>('button', { name: '获取验证码' });
    fireEvent.click(button);
    await waitFor(() => expect(toast).toHaveBeenCalled());
    await waitFor(() => expect(button.disabled).toBe(false));
    expect(toast).toHaveBeenCalledTimes(1);
  });
});
