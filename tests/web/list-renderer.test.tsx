import { cleanup, fireEvent, render, screen as view, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screens } from '../../screens.config';
import { api } from '../../src/web/api';
import type { ListScreen } from '../../src/web/config/types';
import { actionSheet, confirm } from '../../src/web/feedback';
import { ListRenderer } from '../../src/web/renderers/ListRenderer';
import { signIn } from '../../src/web/state/session';

// The generic list renderer against real screens of screens.config.ts, with the API faked.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
vi.mock('../../src/web/feedback', () => ({ toast: vi.fn(), confirm: vi.fn(), actionSheet: vi.fn(), alert: vi.fn() }));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

const listScreen = (path: string) => screens.find((s) => s.path === path) as ListScreen<any>;
const user = (id: number, extra: object = {}) => ({
  id,
  userAccount: `user_${id}`,
  userName: `用户${id}`,
  userRole: 'user',
  status: 'active',
  email: null,
  invitationCode: 'AAAAAAAA',
  inviterAccount: null,
  coin: 0,
  createdAt: 1795000000000,
  lastLoginAt: null,
  banPausedServices: 0,
  ...extra,
});
const page = (records: unknown[], total = records.length, current = 1) => ({ records, total, current, pageSize: 20 });

function open(path: string, search = '') {
  const router = createMemoryRouter([{ path, element: <ListRenderer screen={listScreen(path)} /> }], {
    initialEntries: [path + search],
  });
  render(<RouterProvider router={router} />);
  return router;
}

const me = (userRole: 'user' | 'agent' | 'admin') =>
  signIn({
    id: 1,
    userAccount: 'me_0001',
    userName: '我',
    userRole,
    email: null,
    invitationCode: 'BBBBBBBB',
    coin: 0,
    createdAt: 0,
    twoFactor: false,
    enrolTwoFactor: false,
    policyAccepted: 1,
  });

beforeEach(() => {
  call.mockReset();
  vi.mocked(actionSheet).mockReset();
  vi.mocked(confirm).mockReset();
  me('admin');
});
afterEach(cleanup);

describe('ListRenderer', () => {
  it('reads search and sort from the URL and sends them to the operation', async () => {
    call.mockResolvedValue(page([user(2), user(3)], 2));
    open('/user_management', '?searchText=abc&sortField=createdAt&sortOrder=ascend');
    expect(await view.findByText('用户2（user_2）')).toBeTruthy();
    expect(view.getByText('共 2 条')).toBeTruthy();
    expect(call).toHaveBeenCalledWith('userListPage', {
      query: { current: 1, pageSize: 20, searchText: 'abc', sortField: 'createdAt', sortOrder: 'ascend' },
    });
  });

  it('ignores a sort field the screen does not offer', async () => {
    call.mockResolvedValue(page([]));
    open('/user_management', '?sortField=passwordHash');
    await waitFor(() => expect(call).toHaveBeenCalled());
    expect(call.mock.calls[0]![1].query).not.toHaveProperty('sortField');
  });

  it('puts a new search into the URL and loads again from page 1', async () => {
    call.mockResolvedValue(page([user(2)]));
    const router = open('/user_management');
    await view.findByText('用户2（user_2）');
    const input = document.querySelector('input[type="search"], .adm-search-bar input') as HTMLInputElement;
    fireEvent.change(input, { target: { value: 'bob' } });
    fireEvent.keyDown(input, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(router.state.location.search).toBe('?searchText=bob'));
    await waitFor(() =>
      expect(call).toHaveBeenLastCalledWith('userListPage', { query: { current: 1, pageSize: 20, searchText: 'bob' } }),
    );
  });

  it('passes the screen’s URL filters to the operation and offers the CSV of the same view', async () => {
    call.mockResolvedValue(page([]));
    open('/coin_detail', '?userId=7');
    await waitFor(() =>
      expect(call).toHaveBeenCalledWith('coinEntries', { query: { userId: 7, current: 1, pageSize: 20 } }),
    );
    expect(view.getByText('导出 CSV').getAttribute('href')).toBe('/api/coin/entries/export?userId=7');
  });

  it('posts the page to operations that take a body, and shows the screen’s empty text', async () => {
    me('agent');
    call.mockResolvedValue(page([]));
    open('/subordinate');
    expect(await view.findByText(/还没有下级/)).toBeTruthy();
    expect(call).toHaveBeenCalledWith('userSubordinate', { body: { current: 1, pageSize: 20 } });
  });

  it('shows an error state with a retry that loads again', async () => {
    call.mockRejectedValueOnce(new Error('down')).mockResolvedValue(page([user(5)]));
    open('/user_management');
    fireEvent.click(await view.findByText('重试'));
    expect(await view.findByText('用户5（user_5）')).toBeTruthy();
  });

  it('offers the actions that fit the row, and runs a confirmed one then reloads', async () => {
    call.mockResolvedValue(page([user(7, { status: 'banned' }), user(8)]));
    open('/user_management');
    fireEvent.click(await view.findByText('用户8（user_8）'));
    await waitFor(() => expect(actionSheet).toHaveBeenCalled());
    const offered = vi.mocked(actionSheet).mock.calls[0]![0];
    expect(offered.map((a) => a.text)).toEqual([
      '详情',
      '积分明细',
      '服务',
      '编辑',
      '重置密码',
      '设为代理',
      '封禁',
      '删除',
    ]);

    fireEvent.click(view.getByText('用户7（user_7）'));
    await waitFor(() => expect(actionSheet).toHaveBeenCalledTimes(2));
    expect(vi.mocked(actionSheet).mock.calls[1]![0].map((a) => a.text)).toContain('解封');
    expect(vi.mocked(actionSheet).mock.calls[1]![0].map((a) => a.text)).not.toContain('封禁');

    vi.mocked(confirm).mockResolvedValue(true);
    call.mockClear();
    call.mockResolvedValue(true);
    offered.find((a) => a.text === '封禁')!.onAction();
    await waitFor(() => expect(call).toHaveBeenCalledWith('userBan', { query: { id: 8 }, quiet: true }));
    expect(vi.mocked(confirm).mock.calls[0]![0]).toContain('用户8（user_8）');
    await waitFor(() => expect(call).toHaveBeenCalledWith('userListPage', expect.anything()));
  });

  it('sends nothing when the confirmation is declined', async () => {
    call.mockResolvedValue(page([user(8)]));
    open('/user_management');
    fireEvent.click(await view.findByText('用户8（user_8）'));
    await waitFor(() => expect(actionSheet).toHaveBeenCalled());
    vi.mocked(confirm).mockResolvedValue(false);
    call.mockClear();
    vi.mocked(actionSheet)
      .mock.calls[0]![0].find((a) => a.text === '删除')!
      .onAction();
    await waitFor(() => expect(confirm).toHaveBeenCalled());
    expect(call).not.toHaveBeenCalled();
  });

  it('hides actions the contract does not allow the signed-in role', async () => {
    me('agent');
    call.mockResolvedValue(page([user(8)]));
    open('/user_management');
    fireEvent.click(await view.findByText('用户8（user_8）'));
    await waitFor(() => expect(actionSheet).toHaveBeenCalled());
    // Only the links remain: ban, delete and role changes are admin operations in openapi.yaml.
    expect(vi.mocked(actionSheet).mock.calls[0]![0].map((a) => a.text)).toEqual([
      '详情',
      '积分明细',
      '服务',
      '编辑',
      '重置密码',
    ]);
  });
});
