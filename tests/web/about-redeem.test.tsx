import { cleanup, fireEvent, render, screen as view, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/api/client';
import { api } from '../../src/web/api';
import { toast } from '../../src/web/feedback';
import About from '../../src/web/screens/About';
import { sessionStore, signIn } from '../../src/web/state/session';
import { siteStore } from '../../src/web/state/site';
import { aUser } from './users';

// A redeem code on my page (/about), with the API faked: one Idempotency-Key per attempt, then the user is read
// again so the balance shows the coins.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
vi.mock('../../src/web/feedback', () => ({ toast: vi.fn(), confirm: vi.fn(), alert: vi.fn(), actionSheet: vi.fn() }));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

const ME = aUser({ coin: 50 });

function open() {
  const router = createMemoryRouter([{ path: '/about', element: <About /> }], { initialEntries: ['/about'] });
  return render(<RouterProvider router={router} />);
}

const codeInput = () => view.getByPlaceholderText<HTMLInputElement>('12 位兑换码');
const redeemButton = () => view.getByRole<HTMLButtonElement>('button', { name: '兑换' });
const useCalls = () => call.mock.calls.filter(([op]) => op === 'redeemUse');

beforeEach(() => {
  call.mockReset();
  vi.mocked(toast).mockReset();
  signIn(ME);
});
afterEach(cleanup);

describe('redeeming a code on my page', () => {
  it('sends the code with an Idempotency-Key, then reads the user again so the balance updates', async () => {
    call.mockImplementation(async (op: string) => {
      if (op === 'redeemUse') return { userAccount: 'me_0001', coin: 150 };
      if (op === 'userGetLogin') return { ...ME, coin: 150 };
      throw new Error(`unexpected ${op}`);
    });
    open();
    expect(view.getByText('50')).toBeTruthy();
    fireEvent.change(codeInput(), { target: { value: ' ABCD2345EFGH ' } });
    fireEvent.click(redeemButton());
    await waitFor(() => expect(call).toHaveBeenCalledWith('userGetLogin'));
    const [, init] = useCalls()[0]!;
    expect(init).toMatchObject({ body: { code: 'ABCD2345EFGH' }, quiet: true });
    expect(init.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(toast).toHaveBeenCalledWith('兑换成功，当前余额 150', 'success');
    await waitFor(() => expect(view.getByText('150')).toBeTruthy());
    expect(sessionStore.get().user?.coin).toBe(150);
    expect(codeInput().value).toBe('');
  });

  it('checks the code’s form before sending it', async () => {
    open();
    fireEvent.change(codeInput(), { target: { value: 'abc' } });
    fireEvent.click(redeemButton());
    // The form library checks asynchronously: the refusal comes a tick later, and nothing is sent.
    await waitFor(() => expect(toast).toHaveBeenCalledWith('兑换码是 12 位字母或数字'));
    expect(call).not.toHaveBeenCalled();
  });

  it('shows the server’s refusal and keeps the balance', async () => {
    call.mockRejectedValue(new ApiError('兑换码无效或已使用', 'envelope', { code: 40000, status: 400 }));
    open();
    fireEvent.change(codeInput(), { target: { value: 'ABCD2345EFGH' } });
    fireEvent.click(redeemButton());
    await waitFor(() => expect(toast).toHaveBeenCalledWith('兑换码无效或已使用'));
    expect(call).not.toHaveBeenCalledWith('userGetLogin');
    expect(sessionStore.get().user?.coin).toBe(50);
  });

  it('sends the same key again when the answer was lost', async () => {
    call
      .mockRejectedValueOnce(new TypeError('Failed to fetch'))
      .mockImplementation(async (op: string) =>
        op === 'redeemUse' ? { userAccount: 'me_0001', coin: 150 } : { ...ME, coin: 150 },
      );
    open();
    fireEvent.change(codeInput(), { target: { value: 'ABCD2345EFGH' } });
    fireEvent.click(redeemButton());
    await waitFor(() => expect(toast).toHaveBeenCalledWith('网络连接失败，请检查网络后重试'));
    await waitFor(() => expect(redeemButton().disabled).toBe(false));
    fireEvent.click(redeemButton());
    await waitFor(() => expect(useCalls()).toHaveLength(2));
    expect(useCalls()[1]![1].idempotencyKey).toBe(useCalls()[0]![1].idempotencyKey);
  });
});

describe('the invitation on my page', () => {
  it('is shown to an agent with what inviting gives (the site’s rebate percentage), to no one else', async () => {
    siteStore.set({ rebatePercent: 8 } as never);
    signIn(aUser({ userRole: 'agent', invitationCode: 'K7P2M9QX' }));
    open();
    expect(view.getByText('K7P2M9QX')).toBeTruthy();
    expect(view.getByText(/到账积分的 8% 作为返利/)).toBeTruthy();
    cleanup();

    for (const role of ['user', 'admin'] as const) {
      signIn(aUser({ userRole: role, invitationCode: 'K7P2M9QX' }));
      open();
      expect(view.queryByText('K7P2M9QX')).toBeNull();
      expect(view.queryByText('我的邀请码')).toBeNull();
      cleanup();
    }
  });
});
