import { cleanup, fireEvent, render, screen as view, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '../../src/web/api';
import { confirm, toast } from '../../src/web/feedback';
import TransferCoin from '../../src/web/screens/TransferCoin';
import { signIn } from '../../src/web/state/session';
import { siteStore } from '../../src/web/state/site';
import { aUser } from './users';

// The transfer screen's Idempotency-Key follows the user's intent (useOperation): the same payee and amount sent
// again after a lost answer reuse it, so the coins move once; a changed amount is a new intent with a new key.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
vi.mock('../../src/web/feedback', () => ({
  toast: vi.fn(),
  notify: vi.fn(),
  confirm: vi.fn(),
  alert: vi.fn(),
  actionSheet: vi.fn(),
}));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

const ME = aUser({ coin: 500 });
const SITE = {
  id: 1,
  websiteName: '积分商城',
  noticeBar: '',
  noticeAnnouncementTitle: '',
  noticeAnnouncement: '',
  pointsNotification: '',
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
const transfers = () => call.mock.calls.filter(([op]) => op === 'userTransferCoin');
const sendButton = () => view.getByRole<HTMLButtonElement>('button', { name: '转账' });

beforeEach(() => {
  call.mockReset();
  vi.mocked(toast).mockReset();
  vi.mocked(confirm).mockResolvedValue(true);
  signIn(ME);
});
afterEach(cleanup);

describe('transferring coins', () => {
  it('reuses the key for the same payee and amount after a lost answer, and starts a new one for another amount', async () => {
    let lost = true;
    call.mockImplementation(async (op: string) => {
      if (op === 'userGetUserInfo') return { userAccount: 'bob_0001', maskedName: 'b***' };
      if (op === 'userTransferCoin') {
        if (lost) throw new TypeError('Failed to fetch');
        return { userAccount: 'me_0001', coin: 490 };
      }
      return ME;
    });
    const router = createMemoryRouter([{ path: '/transfer', element: <TransferCoin /> }], {
      initialEntries: ['/transfer'],
    });
    render(<RouterProvider router={router} />);
    fireEvent.change(view.getByPlaceholderText('对方的账号'), { target: { value: 'bob_0001' } });
    fireEvent.click(view.getByRole('button', { name: '查询' }));
    await waitFor(() =>
      expect(call).toHaveBeenCalledWith(
        'userGetUserInfo',
        expect.objectContaining({ query: { userAccount: 'bob_0001' } }),
      ),
    );
    fireEvent.change(view.getByPlaceholderText('整数'), { target: { value: '10' } });
    await waitFor(() => expect(sendButton().disabled).toBe(false));

    fireEvent.click(sendButton());
    await waitFor(() => expect(toast).toHaveBeenCalledWith('网络连接失败，请检查网络后重试'));
    await waitFor(() => expect(sendButton().disabled).toBe(false));
    fireEvent.click(sendButton());
    await waitFor(() => expect(transfers()).toHaveLength(2));
    await waitFor(() => expect(sendButton().disabled).toBe(false));

    fireEvent.change(view.getByPlaceholderText('整数'), { target: { value: '11' } });
    lost = false;
    fireEvent.click(sendButton());
    await waitFor(() => expect(transfers()).toHaveLength(3));
    const keys = transfers().map(([, init]) => init.idempotencyKey);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[1]);
    expect(transfers()[2]![1].body).toEqual({ userAccount: 'bob_0001', coin: 11 });
  });
});

describe('what the transfer screen says before anything is sent', () => {
  const openTransfer = () => {
    const router = createMemoryRouter([{ path: '/transfer', element: <TransferCoin /> }], {
      initialEntries: ['/transfer'],
    });
    render(<RouterProvider router={router} />);
  };
  afterEach(() => siteStore.set(null));

  it('shows the per-transfer limit, and refuses an amount over it before the confirmation', async () => {
    siteStore.set({ ...SITE, amount: 100 });
    call.mockImplementation(async (op: string) =>
      op === 'userGetUserInfo' ? { userAccount: 'bob_0001', maskedName: 'b***' } : ME,
    );
    openTransfer();
    expect(view.getByText('每笔最多转 100 积分，且不超过余额')).toBeTruthy();
    fireEvent.change(view.getByPlaceholderText('对方的账号'), { target: { value: 'bob_0001' } });
    fireEvent.click(view.getByRole('button', { name: '查询' }));
    await view.findByText('收款人：b***');
    fireEvent.change(view.getByPlaceholderText('整数'), { target: { value: '150' } });
    expect(await view.findByRole('alert')).toHaveProperty('textContent', '超过单笔上限：单笔最多转 100 积分');
    expect(sendButton().disabled).toBe(true);
    fireEvent.change(view.getByPlaceholderText('整数'), { target: { value: '100' } });
    await waitFor(() => expect(sendButton().disabled).toBe(false));
  });

  it('says 不能转给自己 for the payer’s own account, without asking the server', async () => {
    openTransfer();
    fireEvent.change(view.getByPlaceholderText('对方的账号'), { target: { value: 'ME_0001' } });
    expect(await view.findByRole('alert')).toHaveProperty('textContent', '不能转给自己');
    expect(view.getByRole<HTMLButtonElement>('button', { name: '查询' }).disabled).toBe(true);
    expect(call.mock.calls.map(([op]) => op)).not.toContain('userGetUserInfo');
  });
});

describe('no dead ends on /transferCoin (issue 35)', () => {
  const openTransfer = () => {
    const router = createMemoryRouter([{ path: '/transfer', element: <TransferCoin /> }], {
      initialEntries: ['/transfer'],
    });
    render(<RouterProvider router={router} />);
  };
  const bob = async (op: string) => (op === 'userGetUserInfo' ? { userAccount: 'bob_0001', maskedName: 'b***' } : ME);

  it('looks the payee up by itself: from ?to= at once, and on leaving the field', async () => {
    call.mockImplementation(bob);
    const router = createMemoryRouter([{ path: '/transferCoin', element: <TransferCoin /> }], {
      initialEntries: ['/transferCoin?to=bob_0001'],
    });
    render(<RouterProvider router={router} />);
    expect(await view.findByText('收款人：b***')).toBeTruthy();
    cleanup();
    call.mockClear();

    openTransfer();
    const payee = view.getByPlaceholderText('对方的账号');
    fireEvent.change(payee, { target: { value: 'bob_0001' } });
    expect(view.getByText('请先点「查询」确认收款人')).toBeTruthy();
    fireEvent.blur(payee);
    expect(await view.findByText('收款人：b***')).toBeTruthy();
    expect(call.mock.calls.filter(([op]) => op === 'userGetUserInfo')).toHaveLength(1);
  });

  it('checks the amount by the field against the rule and the balance, before any dialog; 全部 fills the most', async () => {
    vi.mocked(confirm).mockClear();
    call.mockImplementation(bob);
    openTransfer();
    fireEvent.change(view.getByPlaceholderText('对方的账号'), { target: { value: 'bob_0001' } });
    fireEvent.blur(view.getByPlaceholderText('对方的账号'));
    await view.findByText('收款人：b***');
    const amount = view.getByPlaceholderText('整数');
    for (const [typed, said] of [
      ['99999', '余额只有 500 积分，不够转这么多'],
      ['0', '至少转 1 积分'],
      ['-5', '请输入整数积分，如 100（不能有小数或负号）'],
      ['1.5', '请输入整数积分，如 100（不能有小数或负号）'],
    ]) {
      fireEvent.change(amount, { target: { value: typed } });
      expect((await view.findByRole('alert')).textContent, typed).toBe(said);
      // The disabled button says why, under it.
      expect(sendButton().disabled).toBe(true);
      expect(document.getElementById('transfer-why')?.textContent).toBe(said);
    }
    expect(confirm).not.toHaveBeenCalled();
    fireEvent.click(view.getByRole('button', { name: '全部：500 积分' }));
    expect((amount as HTMLInputElement).value).toBe('500');
    await waitFor(() => expect(sendButton().disabled).toBe(false));
    expect(document.getElementById('transfer-why')).toBeNull();
  });
});
