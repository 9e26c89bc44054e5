import { act, cleanup, render, screen as view, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screens } from '../../screens.config';
import { api } from '../../src/web/api';
import type { ComposedScreen, ListScreen } from '../../src/web/config/types';
import { ComposedRenderer } from '../../src/web/renderers/ComposedRenderer';
import { liveStatus, READY_TIMEOUT_MS, startLive, stopLive } from '../../src/web/live/stream';
import { ListRenderer } from '../../src/web/renderers/ListRenderer';
import { useLiveSession } from '../../src/web/live/useLiveSession';
import { signIn, signOut } from '../../src/web/state/session';
import { useUnreadCount } from '../../src/web/state/unread';
import { anAdmin } from './users';

// The web side of GET /api/events: one EventSource per tab, screens that read again on the kinds they follow instead
// of polling, and polling again by themselves when the stream cannot open or carries nothing.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
vi.mock('../../src/web/feedback', () => ({ toast: vi.fn(), confirm: vi.fn(), actionSheet: vi.fn(), alert: vi.fn() }));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

/** A stand-in for the browser's EventSource: the test says what the server sends. */
class FakeEventSource {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSED = 2;
  static opened: FakeEventSource[] = [];
  readyState = FakeEventSource.CONNECTING;
  onmessage: ((message: MessageEvent<string>) => void) | null = null;
  onerror: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeEventSource.opened.push(this);
  }
  send(data: object) {
    this.readyState = FakeEventSource.OPEN;
    act(() => this.onmessage?.({ data: JSON.stringify(data) } as MessageEvent<string>));
  }
  refuse() {
    this.readyState = FakeEventSource.CLOSED;
    act(() => this.onerror?.());
  }
  close() {
    this.readyState = FakeEventSource.CLOSED;
  }
}

const tasks = screens.find((s) => s.path === '/tasks') as ListScreen<any>;
const page = (done: number) => ({
  records: [
    {
      id: 7,
      kind: 'broadcast',
      title: '群发「测试」给全部用户',
      state: 'running',
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
    },
  ],
  total: 1,
  current: 1,
  pageSize: 20,
});

function openTasks() {
  render(
    <RouterProvider
      router={createMemoryRouter([{ path: '/tasks', element: <ListRenderer screen={tasks} /> }], {
        initialEntries: ['/tasks'],
      })}
    />,
  );
}

const progress = () => view.getByRole('progressbar').getAttribute('aria-valuenow');

beforeEach(() => {
  vi.useFakeTimers({ shouldAdvanceTime: true });
  FakeEventSource.opened = [];
  vi.stubGlobal('EventSource', FakeEventSource);
  call.mockReset();
  signIn(anAdmin());
});
afterEach(() => {
  cleanup();
  stopLive();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('the event stream in the web app', () => {
  it('is opened by the signed-in frame, and a sign-out closes it even after the frame is gone (/login has none)', () => {
    call.mockImplementation(() => Promise.resolve(null));
    function FrameStandIn() {
      useLiveSession();
      return null;
    }
    const frame = render(<FrameStandIn />);
    expect(FakeEventSource.opened).toHaveLength(1);
    FakeEventSource.opened[0]!.send({ kind: 'ready' });
    expect(liveStatus.get()).toBe('open');
    // The frame goes (a sign-out navigates to the bare login page) before or after the store says so.
    frame.unmount();
    signOut();
    expect(liveStatus.get()).toBe('off');
    expect(FakeEventSource.opened[0]!.readyState).toBe(FakeEventSource.CLOSED);
  });

  it('opens one stream; a task event reads the list again at once, and nothing polls while it is open', async () => {
    let done = 40;
    call.mockImplementation(() => Promise.resolve(page(done)));
    startLive();
    startLive();
    expect(FakeEventSource.opened).toHaveLength(1);
    expect(FakeEventSource.opened[0]!.url).toBe('/api/events');
    FakeEventSource.opened[0]!.send({ kind: 'ready' });
    expect(liveStatus.get()).toBe('open');
    openTasks();
    await view.findByRole('progressbar');
    const reads = call.mock.calls.length;
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(call.mock.calls.length).toBe(reads);
    done = 80;
    FakeEventSource.opened[0]!.send({ kind: 'task', taskId: 7 });
    await act(() => vi.advanceTimersByTimeAsync(300));
    await waitFor(() => expect(progress()).toBe('80'));
    // An event of a kind the screen does not follow reads nothing.
    const after = call.mock.calls.length;
    FakeEventSource.opened[0]!.send({ kind: 'balance' });
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(call.mock.calls.length).toBe(after);
  });

  it('falls back to polling when the stream is refused (429 over a cap), and reads again on a resync', async () => {
    let done = 10;
    call.mockImplementation(() => Promise.resolve(page(done)));
    startLive();
    FakeEventSource.opened[0]!.refuse();
    expect(liveStatus.get()).toBe('fallback');
    openTasks();
    await view.findByRole('progressbar');
    done = 20;
    await act(() => vi.advanceTimersByTimeAsync(1600));
    await waitFor(() => expect(progress()).toBe('20'));
  });

  it('falls back to polling when the stream opens but its ready never comes (a proxy that buffers)', async () => {
    call.mockImplementation(() => Promise.resolve(page(10)));
    startLive();
    expect(liveStatus.get()).toBe('connecting');
    await act(() => vi.advanceTimersByTimeAsync(READY_TIMEOUT_MS + 100));
    expect(liveStatus.get()).toBe('fallback');
    expect(FakeEventSource.opened[0]!.readyState).toBe(FakeEventSource.CLOSED);
  });

  it('moves the unread badge when a notice is created, without a navigation', async () => {
    let unread = 1;
    call.mockImplementation((op: string) =>
      op === 'noticeUnread' ? Promise.resolve({ count: unread }) : Promise.reject(new Error(op)),
    );
    function Badge() {
      return <span data-testid="badge">{useUnreadCount()}</span>;
    }
    startLive();
    FakeEventSource.opened[0]!.send({ kind: 'ready' });
    render(
      <RouterProvider router={createMemoryRouter([{ path: '/', element: <Badge /> }], { initialEntries: ['/'] })} />,
    );
    await waitFor(() => expect(view.getByTestId('badge').textContent).toBe('1'));
    unread = 2;
    FakeEventSource.opened[0]!.send({ kind: 'notice', action: 'created' });
    await act(() => vi.advanceTimersByTimeAsync(300));
    await waitFor(() => expect(view.getByTestId('badge').textContent).toBe('2'));
  });

  it('a platform page reads its record, calendar and runs again in place when a run finishes', async () => {
    const platform = {
      id: 3,
      kind: 'gxy',
      kindTitle: '工学云',
      settingsSchema: 'ClockInSettings',
      name: '工学云专业版',
      description: '',
      price: 2,
      billingUnit: 'per_run',
      retryLimit: 3,
      status: 1,
      sort: 0,
      services: 1,
      createdAt: 0,
      updatedAt: 0,
    };
    const service = {
      id: 11,
      userId: 1,
      userAccount: 'me_0001',
      platformId: 3,
      platformName: '工学云专业版',
      kind: 'gxy',
      settings: { days: [1], checkInTime: '08:30', notify: 'inbox' },
      state: 'active',
      nextRunAt: null,
      succeeded: 0,
      failed: 0,
      lastRunState: null,
      lastRunAt: null,
      sandboxMode: 'auto',
      createdAt: 0,
      updatedAt: 0,
    };
    let today = 0;
    call.mockImplementation(async (op: string) => {
      if (op === 'platformOverview')
        return {
          kind: { code: 'gxy', title: '工学云', settings: 'ClockInSettings' },
          platform,
          service,
          today,
          total: today,
          quota: { runs: 0, days: 0 },
        };
      if (op === 'runMy') return { records: [], total: 0, current: 1, pageSize: 20 };
      if (op === 'runCalendar') return { month: '2026-11', days: [] };
      throw new Error(`unexpected ${op}`);
    });
    startLive();
    FakeEventSource.opened[0]!.send({ kind: 'ready' });
    const page = screens.find((s) => s.path === '/gxy') as ComposedScreen<'platformOverview'>;
    render(
      <RouterProvider
        router={createMemoryRouter([{ path: '/gxy', element: <ComposedRenderer screen={page} /> }], {
          initialEntries: ['/gxy'],
        })}
      />,
    );
    const todayRow = () => view.getByText('今日成功').closest('.adm-list-item')!.textContent;
    await waitFor(() => expect(todayRow()).toContain('0'));
    await waitFor(() => expect(call.mock.calls.map(([op]) => op)).toContain('runCalendar'));
    const before = call.mock.calls.map(([op]) => op);
    today = 1;
    FakeEventSource.opened[0]!.send({ kind: 'run', action: 'finished', runId: 5, serviceId: 11, platformId: 3 });
    // The record stays on screen while it is read again (no loading state), then shows the new count.
    expect(view.getByText('工学云专业版')).toBeTruthy();
    await act(() => vi.advanceTimersByTimeAsync(300));
    await waitFor(() => expect(todayRow()).toContain('1'));
    const again = call.mock.calls.map(([op]) => op).slice(before.length);
    expect(again).toEqual(expect.arrayContaining(['platformOverview', 'runMy', 'runCalendar']));
  });
});
