import { cleanup, fireEvent, render, screen as view, waitFor, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screens } from '../../screens.config';
import { api } from '../../src/web/api';
import type { ComposedScreen, FormScreen, ListScreen } from '../../src/web/config/types';
import { actionSheet, confirm } from '../../src/web/feedback';
import { ComposedRenderer } from '../../src/web/renderers/ComposedRenderer';
import { FormRenderer } from '../../src/web/renderers/FormRenderer';
import { ListRenderer } from '../../src/web/renderers/ListRenderer';
import { signIn } from '../../src/web/state/session';
import { anAdmin, aUser } from './users';

// The composed renderer on the screens the platform entries of screens.config.ts generate: a platform page in each of
// its states (off shelf, on shelf without a service, with a running one), /clockInfo's cards, and the edit page's
// settings form. The API is faked.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
vi.mock('../../src/web/feedback', () => ({ toast: vi.fn(), confirm: vi.fn(), actionSheet: vi.fn(), alert: vi.fn() }));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

const screenAt = (path: string) => screens.find((s) => s.path === path);

const PLATFORM = {
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
const SERVICE = {
  id: 11,
  userId: 1,
  userAccount: 'me_0001',
  platformId: 3,
  platformName: '工学云专业版',
  kind: 'gxy',
  settings: { days: [1, 2, 3, 4, 5], checkInTime: '08:30', notify: 'inbox' },
  state: 'active',
  nextRunAt: new Date(2026, 10, 24, 8, 30).getTime(),
  succeeded: 4,
  failed: 1,
  lastRunState: 'succeeded',
  lastRunAt: new Date(2026, 10, 23, 8, 30).getTime(),
  sandboxMode: 'auto',
  createdAt: 0,
  updatedAt: 0,
};
const run = (id: number, state: string) => ({
  id,
  serviceId: 11,
  userId: 1,
  userAccount: 'me_0001',
  platformId: 3,
  platformName: '工学云专业版',
  kind: 'gxy',
  trigger: 'schedule',
  scheduledAt: new Date(2026, 10, 20 + id, 8, 30).getTime(),
  state,
  attempts: 1,
  startedAt: null,
  finishedAt: null,
  nextAttemptAt: null,
  result: '',
  charged: 2,
  chargeReference: null,
  refundReference: null,
  createdAt: 0,
});
const overview = (platform: unknown, service: unknown) => ({
  kind: { code: 'gxy', title: '工学云', settings: 'ClockInSettings' },
  platform,
  service,
  today: 1,
  total: 4,
  quota: { runs: 3, days: 0 },
});

/** Every call answers the overview, but the calendar, which answers an empty month. */
const answerOverview = (platform: unknown, service: unknown) =>
  call.mockImplementation(async (op: string) =>
    op === 'runCalendar' ? { month: '2026-11', days: [] } : overview(platform, service),
  );

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
const openPlatform = () =>
  open('/gxy', <ComposedRenderer screen={screenAt('/gxy') as ComposedScreen<'platformOverview'>} />);

beforeEach(() => {
  call.mockReset();
  vi.mocked(confirm).mockReset();
  vi.mocked(actionSheet).mockReset();
  signIn(aUser({ coin: 10 }));
});
afterEach(cleanup);

describe('a platform page (/gxy)', () => {
  it('says the platform is not open yet when nothing is on shelf, and reads no runs', async () => {
    answerOverview(null, null);
    openPlatform();
    expect(await view.findByText('该平台暂未开放')).toBeTruthy();
    expect(call).toHaveBeenCalledWith('platformOverview', expect.objectContaining({ query: { kind: 'gxy' } }));
    expect(call.mock.calls.map(([op]) => op)).not.toContain('runMy');
    expect(view.queryByText('启动')).toBeNull();
  });

  it('on shelf without a service: shows the price and leads to the settings before anything can start', async () => {
    answerOverview(PLATFORM, null);
    const router = openPlatform();
    expect(await view.findByText('工学云专业版')).toBeTruthy();
    expect(view.getByText('2 积分 / 每次执行')).toBeTruthy();
    expect(view.getByText('3 次 · 0 天')).toBeTruthy();
    expect(view.getAllByText('未开通').length).toBeGreaterThan(0);
    expect(view.getByText('还没有设置，请先填写设置再启动服务。')).toBeTruthy();
    expect(view.queryByText('启动')).toBeNull();
    expect(view.queryByText('立即执行')).toBeNull();
    expect(call.mock.calls.map(([op]) => op)).not.toContain('runMy');
    fireEvent.click(view.getByText('去设置'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/gxy/update'));
  });

  it('with a running service: state, counts, runs with their outcomes in words, and run now through the hook', async () => {
    call.mockImplementation(async (op: string) => {
      if (op === 'platformOverview') return overview(PLATFORM, SERVICE);
      if (op === 'runMy')
        return { records: [run(2, 'succeeded'), run(1, 'refunded')], total: 2, current: 1, pageSize: 20 };
      if (op === 'serviceRunNow') return run(3, 'due');
      if (op === 'runCalendar') return { month: '2026-11', days: [] };
      throw new Error(`unexpected ${op}`);
    });
    vi.mocked(confirm).mockResolvedValue(true);
    openPlatform();
    expect(await view.findByText('运行中')).toBeTruthy();
    expect(view.getByText('2026-11-24 08:30')).toBeTruthy();
    // The counts, on the record's card (the calendar below has days numbered 1 and 4 too).
    const card = within(document.querySelector<HTMLElement>('.composed-detail')!);
    expect(card.getByText('1 次')).toBeTruthy();
    expect(card.getByText('4 次')).toBeTruthy();
    for (const label of ['立即执行', '暂停', '停止', '修改设置']) expect(view.getByText(label)).toBeTruthy();
    expect(view.queryByText('启动')).toBeNull();
    // Outcomes are tags that say the state in words, not colour alone.
    expect(await view.findAllByText('成功')).toBeTruthy();
    expect(view.getAllByText('失败已退款').length).toBeGreaterThan(0);
    expect(call).toHaveBeenCalledWith('runMy', { body: { serviceId: 11, current: 1, pageSize: 20 } });

    const reads = call.mock.calls.filter(([op]) => op === 'platformOverview').length;
    fireEvent.click(view.getByText('立即执行'));
    await waitFor(() =>
      expect(call).toHaveBeenCalledWith(
        'serviceRunNow',
        expect.objectContaining({ body: { id: 11 }, idempotencyKey: expect.any(String) }),
      ),
    );
    expect(confirm).toHaveBeenCalled();
    // The page reads its record again after the action.
    await waitFor(() =>
      expect(call.mock.calls.filter(([op]) => op === 'platformOverview').length).toBeGreaterThan(reads),
    );
  });

  it('does not run a refused confirmation', async () => {
    call.mockImplementation(async (op: string) => {
      if (op === 'platformOverview') return overview(PLATFORM, { ...SERVICE, state: 'paused' });
      if (op === 'runMy') return { records: [], total: 0, current: 1, pageSize: 20 };
      throw new Error(`unexpected ${op}`);
    });
    vi.mocked(confirm).mockResolvedValue(false);
    openPlatform();
    expect(await view.findByText('已暂停')).toBeTruthy();
    expect(view.getByText('启动')).toBeTruthy();
    fireEvent.click(view.getByText('停止'));
    await waitFor(() => expect(confirm).toHaveBeenCalled());
    expect(call.mock.calls.map(([op]) => op)).not.toContain('serviceStop');
  });
});

describe('/clockInfo', () => {
  const hub = () => open('/clockInfo', <ComposedRenderer screen={screenAt('/clockInfo') as ComposedScreen} />);

  it('shows one card per service that leads to its platform page', async () => {
    call.mockImplementation(async (op: string) => {
      if (op === 'quotaMy') return { runs: 5, days: 2 };
      if (op === 'serviceMy') return [SERVICE];
      if (op === 'platformList') return [PLATFORM];
      if (op === 'runCalendar') return { month: '2026-11', days: [] };
      throw new Error(`unexpected ${op}`);
    });
    const router = hub();
    expect(await view.findByText('成功 4 次 · 失败 1 次')).toBeTruthy();
    expect(view.getByText('5 次')).toBeTruthy();
    expect(view.getByText('2 天')).toBeTruthy();
    expect(view.getByText('运行中')).toBeTruthy();
    expect(view.getByText('下次执行：2026-11-24 08:30')).toBeTruthy();
    fireEvent.click(view.getAllByText('工学云专业版')[0]!);
    await waitFor(() => expect(router.state.location.pathname).toBe('/gxy'));
  });

  it('without services, says so and lists the platforms on shelf', async () => {
    call.mockImplementation(async (op: string) =>
      op === 'quotaMy'
        ? { runs: 0, days: 0 }
        : op === 'platformList'
          ? [PLATFORM]
          : op === 'runCalendar'
            ? { month: '2026-11', days: [] }
            : [],
    );
    hub();
    expect(await view.findByText('还没有开通任何平台服务。从下面已开放的平台中选一个开始吧。')).toBeTruthy();
    expect(await view.findByText('工学云专业版')).toBeTruthy();
    expect(view.getByText('2 积分 / 每次执行')).toBeTruthy();
  });

  it("marks success days and failed-or-skipped-only days with two signs, and lists a tapped day's runs", async () => {
    const month = new Date().toISOString().slice(0, 7);
    call.mockImplementation(async (op: string, init: { query?: { month?: string } }) => {
      if (op === 'quotaMy') return { runs: 0, days: 0 };
      if (op === 'serviceMy' || op === 'platformList') return [];
      if (op === 'runCalendar') {
        return {
          month: init.query?.month,
          days: [
            { day: `${month}-03`, succeeded: 1, failed: 1, skipped: 0, mark: 'succeeded' },
            { day: `${month}-04`, succeeded: 0, failed: 1, skipped: 1, mark: 'unsuccessful' },
          ],
        };
      }
      if (op === 'runMy') return { records: [run(7, 'failed')], total: 1, current: 1, pageSize: 20 };
      throw new Error(`unexpected ${op}`);
    });
    hub();
    await waitFor(() => expect(document.querySelector(`[data-day="${month}-03"]`)?.textContent).toBe('✓'));
    expect(document.querySelector(`[data-day="${month}-04"]`)?.textContent).toBe('✕');
    expect(document.querySelector(`[data-day="${month}-05"]`)).toBeNull();
    expect(call).toHaveBeenCalledWith('runCalendar', expect.objectContaining({ query: { month } }));
    // The legend says what each sign means in words.
    expect(view.getByText('有成功')).toBeTruthy();
    expect(view.getByText('只有失败或跳过')).toBeTruthy();

    // jsdom lays nothing out: record what is brought into view.
    const scrolled: Element[] = [];
    Element.prototype.scrollIntoView = function (this: Element) {
      scrolled.push(this);
    };
    fireEvent.click(document.querySelector(`[data-day="${month}-04"]`)!);
    await waitFor(() =>
      expect(call).toHaveBeenCalledWith('runMy', { body: { day: `${month}-04`, current: 1, pageSize: 20 } }),
    );
    expect(await view.findByText(`${month}-04 的执行`)).toBeTruthy();
    // The day's runs sit under the calendar, below the fold on a phone: the tap brings them into view.
    expect(scrolled.some((e) => e.contains(view.getByText(`${month}-04 的执行`)))).toBe(true);
  });
});

describe('the edit page (/gxy/update)', () => {
  it('loads the current settings and saves them as the service settings of the platform on shelf', async () => {
    call.mockImplementation(async (op: string) => {
      if (op === 'platformOverview') return overview(PLATFORM, SERVICE);
      if (op === 'serviceSave') return SERVICE;
      throw new Error(`unexpected ${op}`);
    });
    const form = screenAt('/gxy/update') as FormScreen<'serviceSave'>;
    const router = open('/gxy/update', <FormRenderer screen={form} />);
    // The check-in time is picked on a wheel, never typed: an hour later, then 15 from the minutes column.
    fireEvent.click(await view.findByRole('button', { name: '签到时间 08:30' }, { timeout: 5000 }));
    fireEvent.click(await view.findByRole('button', { name: '选择下一项：09' }));
    const minutes = document.querySelectorAll('.adm-picker-view-column')[1]!;
    fireEvent.click([...minutes.querySelectorAll('.adm-picker-view-column-item')].find((i) => i.textContent === '15')!);
    // The wheel reports its choice after a tick (antd-mobile debounces it), then 确定 takes it.
    await waitFor(() => expect(view.getByRole('button', { name: '当前选择的是：15' })).toBeTruthy());
    await new Promise((resolve) => setTimeout(resolve, 10));
    fireEvent.click(view.getByText('确定'));
    expect(await view.findByRole('button', { name: '签到时间 09:15' })).toBeTruthy();
    // No typing anywhere: the time fields have no text input.
    expect(document.querySelector('input[id^="root_check"]')).toBeNull();
    fireEvent.click(view.getByText('星期六'));
    fireEvent.click(view.getByText('提交'));
    await waitFor(() =>
      expect(call).toHaveBeenCalledWith(
        'serviceSave',
        expect.objectContaining({
          body: {
            platformId: 3,
            settings: { days: [1, 2, 3, 4, 5, 6], checkInTime: '09:15', notify: 'inbox' },
          },
        }),
      ),
    );
    await waitFor(() => expect(router.state.location.pathname).toBe('/gxy'));
  });
});

describe('runs named by their slot', () => {
  const slotted = [
    { ...run(3, 'due'), slot: 'checkOut', scheduledAt: new Date(2026, 10, 23, 17, 30).getTime() },
    { ...run(3, 'succeeded'), id: 4, slot: 'checkIn' },
    // Planned before runs knew their slot, or run by hand: its time alone.
    { ...run(2, 'succeeded'), slot: null },
  ];
  const page = { records: slotted, total: 3, current: 1, pageSize: 20 };

  it('the platform page tells 签到 from 签退', async () => {
    call.mockImplementation(async (op: string) => {
      if (op === 'platformOverview') return overview(PLATFORM, SERVICE);
      if (op === 'runMy') return page;
      if (op === 'runCalendar') return { month: '2026-11', days: [] };
      throw new Error(`unexpected ${op}`);
    });
    openPlatform();
    expect(await view.findByText('签退 · 2026-11-23 17:30 · 定时')).toBeTruthy();
    expect(view.getByText('签到 · 2026-11-23 08:30 · 定时')).toBeTruthy();
    expect(view.getByText('2026-11-22 08:30 · 定时')).toBeTruthy();
  });

  it("an admin's run list (/run_management) does too", async () => {
    signIn(anAdmin({ invitationCode: 'AAAAAAAA' }));
    call.mockImplementation(async (op: string) => {
      if (op === 'runListPage') return page;
      throw new Error(`unexpected ${op}`);
    });
    const list = screenAt('/run_management') as ListScreen<'runListPage'>;
    render(
      <RouterProvider
        router={createMemoryRouter([{ path: list.path, element: <ListRenderer screen={list} /> }], {
          initialEntries: [list.path],
        })}
      />,
    );
    // The list keeps each ' · ' part of a line whole: the row's line reads as one.
    await waitFor(() => expect(document.querySelectorAll('.adm-list-item-description').length).toBe(3));
    const lines = [...document.querySelectorAll('.adm-list-item-description')].map((e) => e.textContent);
    expect(lines).toEqual([
      '签退 · 2026-11-23 17:30 · 定时',
      '签到 · 2026-11-23 08:30 · 定时',
      '2026-11-22 08:30 · 定时',
    ]);
  });
});

describe('/service_management', () => {
  it("filters by the user in the URL and by a state chip, and pauses anyone's running service", async () => {
    signIn(anAdmin({ invitationCode: 'AAAAAAAA' }));
    call.mockImplementation(async (op: string) => {
      if (op === 'serviceListPage')
        return { records: [{ ...SERVICE, userAccount: 'bob_0002' }], total: 1, current: 1, pageSize: 20 };
      if (op === 'servicePause') return { ...SERVICE, state: 'paused' };
      throw new Error(`unexpected ${op}`);
    });
    vi.mocked(confirm).mockResolvedValue(true);
    const list = screenAt('/service_management') as ListScreen<'serviceListPage'>;
    const router = createMemoryRouter([{ path: list.path, element: <ListRenderer screen={list} /> }], {
      initialEntries: ['/service_management?userId=2'],
    });
    render(<RouterProvider router={router} />);
    expect(await view.findByText('bob_0002 · 工学云专业版')).toBeTruthy();
    expect(call).toHaveBeenCalledWith('serviceListPage', { body: { userId: 2, current: 1, pageSize: 20 } });

    fireEvent.click(view.getByRole('button', { name: '已暂停' }));
    await waitFor(() =>
      expect(call).toHaveBeenCalledWith('serviceListPage', {
        body: { userId: 2, state: 'paused', current: 1, pageSize: 20 },
      }),
    );
    expect(router.state.location.search).toBe('?userId=2&state=paused');

    fireEvent.click(view.getByText('bob_0002 · 工学云专业版'));
    await waitFor(() => expect(actionSheet).toHaveBeenCalled());
    const offered = vi.mocked(actionSheet).mock.calls[0]![0];
    expect(offered.map((a) => a.text)).toEqual([
      '暂停',
      '执行记录',
      '模拟结果：总是成功',
      '模拟结果：首次失败后成功',
      '模拟结果：永久失败',
    ]);
    offered[0]!.onAction();
    await waitFor(() =>
      expect(call).toHaveBeenCalledWith('servicePause', expect.objectContaining({ body: { id: 11 } })),
    );
  });
});
