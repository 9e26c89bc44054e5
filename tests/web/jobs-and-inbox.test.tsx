import { act, cleanup, fireEvent, render, screen as view, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screens } from '../../screens.config';
import { api } from '../../src/web/api';
import type { DetailScreen, ListScreen } from '../../src/web/config/types';
import { actionSheet, alert, confirm } from '../../src/web/feedback';
import { DetailRenderer } from '../../src/web/renderers/DetailRenderer';
import { ListRenderer } from '../../src/web/renderers/ListRenderer';
import { signIn } from '../../src/web/state/session';
import { unreadStore } from '../../src/web/state/unread';
import { anAdmin } from './users';

// The vocabulary the inbox and the batch tasks added to the generic renderers: a row that opens (and marks read),
// highlighted rows, toolbar calls, progress bars, polling while a job runs, and a detail with a list composed below.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
vi.mock('../../src/web/feedback', () => ({ toast: vi.fn(), confirm: vi.fn(), actionSheet: vi.fn(), alert: vi.fn() }));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

const byPath = (path: string) => screens.find((s) => s.path === path)!;
const page = (records: unknown[]) => ({ records, total: records.length, current: 1, pageSize: 20 });
const notice = (id: number, read: boolean) => ({
  id,
  kind: 'broadcast',
  title: `通知${id}`,
  body: `内容${id}`,
  read,
  createdAt: 0,
});
const task = (state: string, done: number) => ({
  id: 7,
  kind: 'broadcast',
  title: '群发「测试」给全部用户',
  state,
  total: 100,
  done,
  failed: 0,
  result: '',
  createdBy: 1,
  createdByAccount: 'admin',
  createdAt: 0,
  startedAt: null,
  finishedAt: null,
  hasOutput: false,
});

function open(path: string, element: React.ReactNode, search = '') {
  render(<RouterProvider router={createMemoryRouter([{ path, element }], { initialEntries: [path + search] })} />);
}

beforeEach(() => {
  call.mockReset();
  vi.mocked(confirm).mockReset();
  vi.mocked(alert).mockReset();
  vi.mocked(actionSheet).mockReset();
  signIn(anAdmin());
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('the inbox list', () => {
  it('opens a notice: shows it whole, marks it read, refreshes the unread count and the list', async () => {
    call.mockImplementation((op: string) =>
      op === 'noticeMy'
        ? Promise.resolve(page([notice(2, false), notice(1, true)]))
        : op === 'noticeUnread'
          ? Promise.resolve({ count: 0 })
          : Promise.resolve(notice(2, true)),
    );
    unreadStore.set(1);
    open('/notice', <ListRenderer screen={byPath('/notice') as ListScreen<any>} />);
    const unread = await view.findByText('通知2');
    // Only the unread one stands out.
    expect(unread.closest('.list-row-highlight')).not.toBeNull();
    expect(view.getByText('通知1').closest('.list-row-highlight')).toBeNull();
    fireEvent.click(unread);
    expect(alert).toHaveBeenCalledWith('通知2', '内容2');
    await waitFor(() => expect(call).toHaveBeenCalledWith('noticeRead', { body: { id: 2 }, quiet: true }));
    await waitFor(() => expect(unreadStore.get()).toBe(0));
    expect(call.mock.calls.filter(([op]) => op === 'noticeMy').length).toBe(2);
  });

  it('marks all read from the toolbar after asking', async () => {
    call.mockImplementation((op: string) =>
      op === 'noticeMy' ? Promise.resolve(page([notice(1, false)])) : Promise.resolve({ count: 1 }),
    );
    vi.mocked(confirm).mockResolvedValue(true);
    open('/notice', <ListRenderer screen={byPath('/notice') as ListScreen<any>} />);
    fireEvent.click(await view.findByText('全部已读'));
    await waitFor(() => expect(call).toHaveBeenCalledWith('noticeReadAll', { quiet: true }));
    expect(confirm).toHaveBeenCalledWith('把全部消息标为已读？');
  });
});

describe('the batch tasks list', () => {
  it('shows each batch with a progress bar and, without the event stream, reads again while one is running, then stops', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const answers = [task('running', 40), task('running', 80), task('done', 100)];
    call.mockImplementation(() => Promise.resolve(page([answers.shift() ?? task('done', 100)])));
    open('/tasks', <ListRenderer screen={byPath('/tasks') as ListScreen<any>} />);
    const bar = await view.findByRole('progressbar');
    expect(bar.getAttribute('aria-valuenow')).toBe('40');
    await act(() => vi.advanceTimersByTimeAsync(1600));
    await waitFor(() => expect(view.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('80'));
    await act(() => vi.advanceTimersByTimeAsync(1600));
    await waitFor(() => expect(view.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100'));
    expect(view.getByText('已完成')).toBeTruthy();
    const calls = call.mock.calls.length;
    await act(() => vi.advanceTimersByTimeAsync(5000));
    expect(call.mock.calls.length).toBe(calls);
  });
});

describe('tapping a task row', () => {
  it('opens a finished task’s detail at once; a running one offers 详情 and 取消任务 in a sheet', async () => {
    call.mockImplementation(() => Promise.resolve(page([task('done', 100)])));
    const router = createMemoryRouter(
      [
        { path: '/tasks', element: <ListRenderer screen={byPath('/tasks') as ListScreen<any>} /> },
        { path: '*', element: <p>elsewhere</p> },
      ],
      { initialEntries: ['/tasks'] },
    );
    render(<RouterProvider router={router} />);
    fireEvent.click(await view.findByText('群发「测试」给全部用户'));
    await waitFor(() =>
      expect(router.state.location.pathname + router.state.location.search).toBe('/tasks/detail?id=7'),
    );
    expect(actionSheet).not.toHaveBeenCalled();
    cleanup();

    call.mockImplementation(() => Promise.resolve(page([task('running', 10)])));
    open('/tasks', <ListRenderer screen={byPath('/tasks') as ListScreen<any>} />);
    fireEvent.click(await view.findByText('群发「测试」给全部用户'));
    await waitFor(() => expect(actionSheet).toHaveBeenCalledTimes(1));
    expect(vi.mocked(actionSheet).mock.calls[0]![0].map((a) => a.text)).toEqual(['详情', '取消任务']);
  });
});

describe('the task detail', () => {
  it('shows progress, the cancel action while running, and the failed items below', async () => {
    call.mockImplementation((op: string) =>
      op === 'taskGet'
        ? Promise.resolve({ ...task('running', 10), failed: 2 })
        : Promise.resolve(page([{ seq: 3, label: 'bob_01', error: '账号不存在或已注销' }])),
    );
    open('/tasks/detail', <DetailRenderer screen={byPath('/tasks/detail') as DetailScreen<any>} />, '?id=7');
    expect(await view.findByText('取消任务')).toBeTruthy();
    expect(view.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('12');
    expect(await view.findByText('bob_01')).toBeTruthy();
    // The description's parts are kept whole (one piece each), so the line is read as a whole.
    expect(view.getAllByText((_, el) => el?.textContent === '第 3 项 · 账号不存在或已注销').length).toBeGreaterThan(0);
    expect(call).toHaveBeenCalledWith('taskFailures', { body: { id: 7, current: 1, pageSize: 20 } });
    expect(view.getByText('下载失败条目').getAttribute('href')).toBe('/api/task/failures/export?id=7');
  });
});
