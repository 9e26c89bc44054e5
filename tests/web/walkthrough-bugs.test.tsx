import { act, cleanup, fireEvent, render, screen as view, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import CoinChange from '../../src/web/screens/CoinChange';
import { screens } from '../../screens.config';
import { api } from '../../src/web/api';
import type { DetailScreen, ListScreen } from '../../src/web/config/types';
import { actionSheet, confirm, toast } from '../../src/web/feedback';
import { DetailRenderer } from '../../src/web/renderers/DetailRenderer';
import { FormRenderer, type AnyFormScreen } from '../../src/web/renderers/FormRenderer';
import { ListRenderer } from '../../src/web/renderers/ListRenderer';
import { splitForSwipe } from '../../src/web/renderers/list/row-actions';
import Frame from '../../src/web/shell/Frame';
import { recordLocation } from '../../src/web/state/history';
import { signIn } from '../../src/web/state/session';
import { followSiteChanges, siteStore } from '../../src/web/state/site';

// The faults a new user met on a 390×844 phone (issue 11), each pinned to the behaviour that fixes it, against the
// real screens of screens.config.ts with the API faked.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
vi.mock('../../src/web/feedback', () => ({ toast: vi.fn(), confirm: vi.fn(), actionSheet: vi.fn(), alert: vi.fn() }));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

const find = (path: string) => screens.find((s) => s.path === path)!;
const SITE = {
  id: 1,
  websiteName: '测试站',
  noticeBar: '旧的通知',
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
};
const ADMIN = {
  id: 1,
  userAccount: 'admin',
  userName: '管理员',
  userRole: 'admin' as const,
  email: null,
  invitationCode: 'BBBBBBBB',
  coin: 0,
  createdAt: 0,
  twoFactor: false,
  enrolTwoFactor: false,
  policyAccepted: 1,
};
const userView = (id: number, extra: object = {}) => ({
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
const page = (records: unknown[]) => ({ records, total: records.length, current: 1, pageSize: 20 });

function Where() {
  return <p data-testid="where">{window.location.pathname}</p>;
}

/** A screen at `entry` with `from` before it in history; every other path shows where the app went. */
function open(element: React.ReactNode, path: string, entry: string, from?: string) {
  const router = createMemoryRouter(
    [
      { path, element },
      { path: '*', element: <Where /> },
    ],
    { initialEntries: from ? [from, entry] : [entry], initialIndex: from ? 1 : 0 },
  );
  recordLocation(from ?? '');
  recordLocation(entry);
  render(<RouterProvider router={router} />);
  return router;
}
const where = (router: ReturnType<typeof open>) => router.state.location.pathname + router.state.location.search;

beforeEach(() => {
  call.mockReset();
  vi.mocked(toast).mockReset();
  vi.mocked(actionSheet).mockReset();
  vi.mocked(confirm).mockReset();
  signIn(ADMIN);
  siteStore.set(null);
});
afterEach(cleanup);

describe('1. saving the site information refreshes what the frame shows, here and in other tabs', () => {
  it('reads the record again when another tab says it saved', async () => {
    call.mockResolvedValue({ ...SITE, noticeBar: '新的通知' });
    const stop = followSiteChanges();
    const otherTab = new BroadcastChannel('site-information');
    otherTab.postMessage('changed');
    await waitFor(() => expect(siteStore.get()?.noticeBar).toBe('新的通知'));
    expect(call).toHaveBeenCalledWith('basicInformationGet', { query: { id: 1 }, quiet: true });
    otherTab.close();
    stop();
  });

  it('reads it again when the app comes back to the foreground (another device saved it)', async () => {
    call.mockResolvedValue({ ...SITE, noticeBar: '别处保存的通知' });
    const stop = followSiteChanges();
    document.dispatchEvent(new Event('visibilitychange'));
    await waitFor(() => expect(siteStore.get()?.noticeBar).toBe('别处保存的通知'));
    stop();
  });
});

describe('2. a row with many actions keeps three in the swipe and the rest behind 更多', () => {
  it('splits by the configured maximum', () => {
    expect(splitForSwipe([1, 2, 3], 3)).toEqual({ swipe: [1, 2, 3], more: [] });
    expect(splitForSwipe([1, 2, 3, 4, 5], 3)).toEqual({ swipe: [1, 2], more: [3, 4, 5] });
  });

  it('on /user_management: 详情, 积分明细 and 更多, which offers every other action', async () => {
    call.mockResolvedValue(page([userView(3)]));
    const { container } = render(
      <RouterProvider
        router={createMemoryRouter(
          [{ path: '/user_management', element: <ListRenderer screen={find('/user_management') as ListScreen} /> }],
          { initialEntries: ['/user_management'] },
        )}
      />,
    );
    await view.findByText('用户3（user_3）');
    const buttons = [...container.querySelectorAll('.adm-swipe-action-actions-right .adm-button')].map(
      (b) => b.textContent,
    );
    expect(buttons).toEqual(['详情', '积分明细', '更多']);
    fireEvent.click(view.getByText('更多'));
    const sheet = vi.mocked(actionSheet).mock.calls[0]![0].map((a) => a.text);
    expect(sheet).toEqual(['服务', '编辑', '重置密码', '设为代理', '封禁', '删除']);
  });
});

describe('3. /coinChange asks with the account and the amount, then opens the statement of the account', () => {
  const bob = { id: 9, userAccount: 'bob_01', userName: 'Bob', coin: 120 };
  /** Fills the form of the tab shown last (antd-mobile mounts a tab's pane when it is first shown). */
  const fill = async (coin: string) => {
    fireEvent.change((await view.findAllByLabelText('账号')).at(-1)!, { target: { value: 'bob_01' } });
    fireEvent.change(view.getAllByLabelText('积分数量').at(-1)!, { target: { value: coin } });
    fireEvent.change(view.getAllByLabelText('原因').at(-1)!, { target: { value: '活动奖励' } });
  };

  it('adds only after 给 bob_01 加 5 积分？, then goes to /coin_detail?userId= of the answer', async () => {
    const router = open(<CoinChange />, '/coinChange', '/coinChange', '/');
    await fill('5');
    call.mockResolvedValueOnce([{ ...bob, userAccount: 'bob_012' }, bob]);
    vi.mocked(confirm).mockResolvedValueOnce(true);
    call.mockResolvedValueOnce({ userId: 9, userAccount: 'bob_01', coin: 125 });
    fireEvent.click(view.getAllByRole('button', { name: /提交/ })[0]!);
    await waitFor(() => expect(where(router)).toBe('/coin_detail?userId=9'));
    expect(confirm).toHaveBeenCalledWith('给 bob_01 加 5 积分？');
    expect(call).toHaveBeenCalledWith(
      'userList',
      expect.objectContaining({ query: expect.objectContaining({ searchText: 'bob_01' }) }),
    );
  });

  it('a reduce names the balance it comes out of; cancelled, nothing is sent', async () => {
    open(<CoinChange />, '/coinChange', '/coinChange', '/');
    fireEvent.click(view.getByRole('tab', { name: '扣积分' }));
    // Its own fields (ids of their own: each label names the input of its form) once the pane is shown.
    await waitFor(() => expect(view.getAllByLabelText('账号')).toHaveLength(2));
    await fill('30');
    call.mockResolvedValueOnce([bob]);
    vi.mocked(confirm).mockResolvedValueOnce(false);
    fireEvent.click((await view.findAllByRole('button', { name: /提交/ })).at(-1)!);
    await waitFor(() => expect(confirm).toHaveBeenCalledWith('从 bob_01 扣 30 积分（当前 120）？'));
    expect(call).not.toHaveBeenCalledWith('userReduceCoin', expect.anything());
  });
});

describe('4. a price typed in yuan is reported in yuan', () => {
  it('/add_mall says 价格（元） and its limits in yuan', async () => {
    open(<FormRenderer screen={find('/add_mall') as AnyFormScreen} />, '/add_mall', '/add_mall', '/mall_management');
    const price = await view.findByLabelText('价格（元）');
    fireEvent.click(view.getByRole('button', { name: /提交/ }));
    await waitFor(() => expect(document.body.textContent).toContain('请填写价格（元）'));
    expect(document.body.textContent).not.toContain('（分）');
    fireEvent.change(price, { target: { value: '2000000' } });
    await waitFor(() => expect(document.body.textContent).toContain('价格（元）不能大于 1000000'));
  });
});

describe('5. an edit screen opened without its record says so and leads back to its list', () => {
  it('/update_mall without ?id loads nothing and offers 返回商城管理', async () => {
    const router = open(
      <FormRenderer screen={find('/update_mall') as AnyFormScreen} />,
      '/update_mall',
      '/update_mall',
    );
    expect(await view.findByText('没有指定要编辑的记录')).toBeTruthy();
    expect(view.queryByText('重试')).toBeNull();
    expect(call).not.toHaveBeenCalled();
    fireEvent.click(view.getByRole('button', { name: '返回商城管理' }));
    await waitFor(() => expect(where(router)).toBe('/mall_management'));
  });
});

describe('5b. a detail page opened without its record says so too', () => {
  for (const search of ['', '?id=', '?id=0', '?id=abc', '?id=1.5']) {
    it(`/tasks/detail${search} asks nothing and offers 返回批量任务`, async () => {
      const router = open(
        <DetailRenderer screen={find('/tasks/detail') as DetailScreen} />,
        '/tasks/detail',
        `/tasks/detail${search}`,
      );
      expect(await view.findByText('没有指定要查看的记录')).toBeTruthy();
      expect(view.getByText('请回到「批量任务」，选中一项后再查看。')).toBeTruthy();
      expect(call).not.toHaveBeenCalled();
      fireEvent.click(view.getByRole('button', { name: '返回批量任务' }));
      await waitFor(() => expect(where(router)).toBe('/tasks'));
    });
  }

  it('/user_detail?id=7 reads user 7', async () => {
    call.mockResolvedValue(userView(7));
    open(<DetailRenderer screen={find('/user_detail') as DetailScreen} />, '/user_detail', '/user_detail?id=7');
    expect(await view.findByText('用户7')).toBeTruthy();
    expect(call).toHaveBeenCalledWith('userGet', { query: { id: 7 } });
    expect(view.queryByText('没有指定要查看的记录')).toBeNull();
  });
});

describe('6. saving /add_mall returns to the list', () => {
  const fill = async () => {
    fireEvent.change(await view.findByLabelText('套餐名称'), { target: { value: '月卡' } });
    fireEvent.change(view.getByLabelText('价格（元）'), { target: { value: '9.9' } });
    fireEvent.change(view.getByLabelText('到账积分'), { target: { value: '100' } });
    call.mockResolvedValueOnce(5);
    fireEvent.click(view.getByRole('button', { name: /提交/ }));
  };

  it('back to the list it came from (its search kept)', async () => {
    const router = open(
      <FormRenderer screen={find('/add_mall') as AnyFormScreen} />,
      '/add_mall',
      '/add_mall',
      '/mall_management?searchText=卡',
    );
    await fill();
    await waitFor(() => expect(where(router)).toBe('/mall_management?searchText=卡'));
    expect(router.state.historyAction).toBe('POP');
  });

  it('to the list in the form’s place when opened from elsewhere (not home)', async () => {
    const router = open(<FormRenderer screen={find('/add_mall') as AnyFormScreen} />, '/add_mall', '/add_mall', '/');
    await fill();
    await waitFor(() => expect(where(router)).toBe('/mall_management'));
    expect(router.state.historyAction).toBe('REPLACE');
  });
});

describe('9. the smaller ones', () => {
  const renderFrame = (path: string, entry: string) =>
    render(
      <RouterProvider
        router={createMemoryRouter([{ path, element: <Frame screen={find(path)}>{null}</Frame> }], {
          initialEntries: [entry],
        })}
      />,
    );

  it('/reset_password says whose password, read by the id (not taken from the link)', async () => {
    call.mockResolvedValue(userView(7, { userName: '小明', userAccount: 'bob_01' }));
    renderFrame('/reset_password', '/reset_password?id=7&account=someone_else');
    expect(await view.findByText('为 小明（bob_01） 设置新密码')).toBeTruthy();
    expect(call).toHaveBeenCalledWith('userGet', expect.objectContaining({ query: { id: 7 } }));
  });

  it('an admin on another user’s statement is told whose it is; one’s own has no such line', async () => {
    call.mockResolvedValue(userView(8, { userName: '小红', userAccount: 'alice_01' }));
    renderFrame('/coin_detail', '/coin_detail?userId=8');
    expect(await view.findByText('正在查看 小红（alice_01） 的积分明细')).toBeTruthy();
    cleanup();
    call.mockClear();
    renderFrame('/coin_detail', '/coin_detail');
    await act(async () => undefined);
    expect(call).not.toHaveBeenCalledWith('userGet', expect.anything());
  });

  it('退出 says 已退出登录', async () => {
    call.mockResolvedValue(true);
    renderFrame('/about', '/about');
    fireEvent.click(view.getByRole('button', { name: '退出' }));
    await waitFor(() => expect(toast).toHaveBeenCalledWith('已退出登录', 'success'));
  });

  it('amounts gained and spent are signed (+/−) and coloured', async () => {
    call.mockResolvedValue(
      page([
        {
          id: 1,
          userId: 1,
          amount: 7,
          balanceAfter: 7,
          kind: 'admin_add',
          counterpartyAccount: null,
          reference: 'A1',
          description: '',
          actorAccount: 'admin',
          createdAt: 1795000000000,
        },
        {
          id: 2,
          userId: 1,
          amount: -2,
          balanceAfter: 5,
          kind: 'transfer_out',
          counterpartyAccount: 'bob_01',
          reference: 'T1',
          description: '',
          actorAccount: null,
          createdAt: 1795000000000,
        },
      ]),
    );
    render(
      <RouterProvider
        router={createMemoryRouter(
          [{ path: '/coin_detail', element: <ListRenderer screen={find('/coin_detail') as ListScreen} /> }],
          { initialEntries: ['/coin_detail'] },
        )}
      />,
    );
    const gained = await view.findByText('+7（余额 7）');
    const spent = view.getByText('−2（余额 5）');
    expect(gained.className).toBe('list-tone-success');
    expect(spent.className).toBe('list-tone-danger');
  });

  it('order statuses are tags, and a date in a row is one unbreakable part', async () => {
    call.mockResolvedValue(
      page([
        {
          id: 1,
          orderNo: 'O202611230001',
          coinName: '很长很长的套餐名称也能完整看到',
          amount: 990,
          addCoin: 100,
          status: 'pending',
          userAccount: 'me',
          createdAt: 1795000000000,
          paidAt: null,
        },
      ]),
    );
    const { container } = render(
      <RouterProvider
        router={createMemoryRouter(
          [{ path: '/my_orders', element: <ListRenderer screen={find('/my_orders') as ListScreen} /> }],
          { initialEntries: ['/my_orders'] },
        )}
      />,
    );
    const tag = await view.findByText('待付款');
    expect(tag.closest('.adm-tag')).not.toBeNull();
    const parts = [...container.querySelectorAll('.list-seg')].map((s) => s.textContent);
    // Then the second line: how the order is paid (this one offline).
    expect(parts).toEqual(['O202611230001', expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/), '线下付款']);
  });
});
