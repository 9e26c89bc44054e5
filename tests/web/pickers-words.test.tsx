import { cleanup, fireEvent, render, screen as view, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screens } from '../../screens.config';
import { api } from '../../src/web/api';
import type { ComposedScreen, DetailScreen, FormScreen } from '../../src/web/config/types';
import { confirm, toast } from '../../src/web/feedback';
import { setSiteTimeZone, siteToday } from '../../src/web/i18n/site-zone';
import { signedInMessages as w } from '../../src/web/i18n/zh-CN-signed-in';
import { ComposedRenderer } from '../../src/web/renderers/ComposedRenderer';
import { DetailRenderer } from '../../src/web/renderers/DetailRenderer';
import { FormRenderer } from '../../src/web/renderers/FormRenderer';
import { upFrom } from '../../src/web/shell/up';
import { signIn } from '../../src/web/state/session';
import { anAdmin, aUser } from './users';

// Issue 21's pickers and words on the generic renderers: platforms picked by name, a destructive batch confirmed with
// what it touches, a course row's placeholders, an off-shelf platform's edit page, a task without failures, runs a
// free quota paid, times in the site's zone, and where the back arrow of a deep link leads. The API is faked.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
vi.mock('../../src/web/feedback', () => ({ toast: vi.fn(), confirm: vi.fn(), actionSheet: vi.fn(), alert: vi.fn() }));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;
const screenAt = (path: string) => screens.find((s) => s.path === path)!;

const platform = (id: number, name: string, status: 0 | 1, activeServices = 0) => ({
  id,
  kind: 'gxy',
  kindTitle: '工学云',
  settingsSchema: 'ClockInSettings',
  name,
  description: '',
  price: 2,
  billingUnit: 'per_run',
  retryLimit: 3,
  status,
  sort: 0,
  services: activeServices + 1,
  activeServices,
  createdAt: 0,
  updatedAt: 0,
});
const PLATFORMS = [platform(3, '工学云专业版', 1, 12), platform(4, '学习通', 0)];
const page = <T,>(records: T[]) => ({ records, total: records.length, current: 1, pageSize: 100 });

function open(path: string, element: React.ReactNode, entry = path) {
  const router = createMemoryRouter(
    [
      { path, element },
      { path: '*', element: <div>elsewhere</div> },
    ],
    { initialEntries: [entry] },
  );
  render(<RouterProvider router={router} />);
  return router;
}
const sent = (op: string) => call.mock.calls.find(([name]) => name === op)?.[1] as { body: unknown } | undefined;

beforeEach(() => {
  call.mockReset();
  vi.mocked(confirm).mockReset();
  vi.mocked(toast).mockReset();
  signIn(anAdmin());
  setSiteTimeZone(undefined);
});
afterEach(cleanup);

describe('a platform picked by name', () => {
  const grant = async () => {
    call.mockImplementation(async (op: string) => (op === 'platformListPage' ? page(PLATFORMS) : { id: 1 }));
    open(
      '/add_quota',
      <FormRenderer screen={screenAt('/add_quota') as FormScreen} />,
      '/add_quota?userAccount=bob_0002',
    );
    expect(await view.findByText('工学云专业版')).toBeTruthy();
    fireEvent.change(view.getByLabelText(/数量/), { target: { value: '5' } });
    fireEvent.change(view.getByLabelText(/原因/), { target: { value: '活动' } });
  };

  it('lists the platforms by name (off shelf said) and sends the id of the one tapped', async () => {
    await grant();
    // No box to type an id into: the platforms are chips with their names.
    expect(view.getByText('学习通（未上架）')).toBeTruthy();
    expect(view.queryByPlaceholderText(/平台编号/)).toBeNull();
    fireEvent.click(view.getByText('工学云专业版'));
    fireEvent.click(view.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(sent('quotaGrant')).toBeDefined());
    expect(sent('quotaGrant')!.body).toMatchObject({ userAccount: 'bob_0002', platformId: 3, amount: 5 });
  });

  it('starts on 全部平台 for a field the contract leaves optional, which sends no platform', async () => {
    await grant();
    expect(view.getByText('全部平台').closest('.adm-selector-item')?.className).toContain('active');
    fireEvent.click(view.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(sent('quotaGrant')).toBeDefined());
    expect(sent('quotaGrant')!.body).not.toHaveProperty('platformId');
  });
});

describe('a platform batch (/tasks/platform)', () => {
  const start = () => {
    call.mockImplementation(async (op: string) =>
      op === 'platformListPage' ? page(PLATFORMS) : op === 'platformGet' ? PLATFORMS[0] : { id: 9 },
    );
    return open('/tasks/platform', <FormRenderer screen={screenAt('/tasks/platform') as FormScreen} />);
  };

  it('pre-selects no action, and asks with the platform name and its running services before starting', async () => {
    start();
    fireEvent.click(await view.findByText('工学云专业版'));
    // Neither destructive choice is made for the admin: submitting without one is refused on the field.
    expect(document.querySelector('.adm-selector-item-active')?.textContent).toBe('工学云专业版');
    fireEvent.click(view.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(view.getByText(/请选择操作|操作/, { selector: '[role="alert"]' })).toBeTruthy());
    expect(sent('taskPlatform')).toBeUndefined();

    vi.mocked(confirm).mockResolvedValue(true);
    fireEvent.click(view.getByText('全部暂停'));
    fireEvent.click(view.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(sent('taskPlatform')).toBeDefined());
    expect(call).toHaveBeenCalledWith('platformGet', expect.objectContaining({ query: { id: 3 } }));
    expect(vi.mocked(confirm).mock.calls[0]![0]).toContain('「工学云专业版」上 12 个运行中的服务');
    expect(sent('taskPlatform')!.body).toEqual({ platformId: 3, action: 'pause' });
  });

  it('sends nothing when the question is declined', async () => {
    start();
    vi.mocked(confirm).mockResolvedValue(false);
    fireEvent.click(await view.findByText('工学云专业版'));
    fireEvent.click(view.getByText('全部立即执行一次'));
    fireEvent.click(view.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(confirm).toHaveBeenCalled());
    expect(vi.mocked(confirm).mock.calls[0]![0]).toContain('12 个运行中的服务各立即执行一次');
    expect(sent('taskPlatform')).toBeUndefined();
  });
});

describe('a broadcast (/tasks/broadcast)', () => {
  it('asks with how many users the chosen role reaches before sending, and sends nothing when declined', async () => {
    call.mockImplementation(async (op: string, init: { query?: { role?: string } }) =>
      op === 'noticeBroadcastRecipients'
        ? { role: init.query?.role, count: init.query?.role === 'agent' ? 7 : 128 }
        : { id: 9 },
    );
    open('/tasks/broadcast', <FormRenderer screen={screenAt('/tasks/broadcast') as FormScreen} />);
    fireEvent.change(await view.findByLabelText(/标题/), { target: { value: '维护通知' } });
    fireEvent.change(view.getByLabelText(/内容/), { target: { value: '今晚维护' } });
    vi.mocked(confirm).mockResolvedValue(false);
    fireEvent.click(view.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(confirm).toHaveBeenCalledTimes(1));
    expect(vi.mocked(confirm).mock.calls[0]![0]).toBe('确定把「维护通知」发给 128 位全部用户吗？发出后不能撤回。');
    expect(sent('noticeBroadcast')).toBeUndefined();

    vi.mocked(confirm).mockResolvedValue(true);
    fireEvent.click(view.getByText('代理'));
    fireEvent.click(view.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(sent('noticeBroadcast')).toBeDefined());
    expect(vi.mocked(confirm).mock.calls[1]![0]).toContain('发给 7 位代理');
    expect(sent('noticeBroadcast')!.body).toEqual({ title: '维护通知', body: '今晚维护', role: 'agent' });
  });
});

describe('platform edit pages', () => {
  it('an off-shelf platform says it is not open instead of a form that cannot be saved', async () => {
    signIn(aUser());
    call.mockImplementation(async () => ({ kind: {}, platform: null, service: null, today: 0, total: 0, quota: {} }));
    open('/gxy/update', <FormRenderer screen={screenAt('/gxy/update') as FormScreen} />);
    expect(await view.findByText('该平台暂未开放')).toBeTruthy();
    expect(view.queryByRole('button', { name: '提交' })).toBeNull();
  });

  it('a course row has placeholders and its times are picked, with a visible add and remove', async () => {
    signIn(aUser());
    call.mockImplementation(async () => ({
      kind: {},
      platform: platform(5, '网课', 1),
      service: null,
      today: 0,
      total: 0,
      quota: {},
    }));
    open('/wk/update', <FormRenderer screen={screenAt('/wk/update') as FormScreen} />);
    expect(await view.findByPlaceholderText('请输入课程名称')).toBeTruthy();
    expect(view.getAllByRole('button', { name: /时间 请选择时间$/ })).toHaveLength(2);
    expect(view.getByRole('button', { name: '删除' })).toBeTruthy();
    fireEvent.click(view.getByRole('button', { name: '添加一项' }));
    await waitFor(() => expect(view.getAllByPlaceholderText('请输入课程名称')).toHaveLength(2));
    expect(view.getAllByRole('button', { name: /时间 请选择时间$/ })).toHaveLength(4);
  });
});

describe('words', () => {
  it('a task that finished without failures says so instead of an empty list', async () => {
    const task = {
      id: 9,
      kind: 'platform_pause',
      title: '暂停工学云',
      state: 'done',
      total: 3,
      done: 3,
      failed: 0,
      result: '',
      createdBy: 1,
      createdByAccount: 'admin',
      createdAt: 0,
      startedAt: 0,
      finishedAt: 0,
      hasOutput: false,
    };
    call.mockImplementation(async (op: string) => (op === 'taskGet' ? task : page([])));
    open('/tasks/detail', <DetailRenderer screen={screenAt('/tasks/detail') as DetailScreen} />, '/tasks/detail?id=9');
    expect(await view.findByText('任务已完成：3 项全部成功，没有失败的条目')).toBeTruthy();
    expect(call.mock.calls.map(([op]) => op)).not.toContain('taskFailures');
  });

  it('a run a free quota paid says 免费额度, and the platform page gives its counts units', async () => {
    signIn(aUser());
    const run = {
      id: 7,
      serviceId: 11,
      userId: 1,
      userAccount: 'me_0001',
      platformId: 3,
      platformName: '工学云专业版',
      kind: 'gxy',
      trigger: 'schedule',
      scheduledAt: Date.UTC(2026, 10, 24, 0, 30),
      state: 'succeeded',
      attempts: 1,
      startedAt: null,
      finishedAt: null,
      nextAttemptAt: null,
      result: '平台已收到',
      charged: 0,
      paidByQuota: true,
      chargeReference: null,
      refundReference: null,
      createdAt: 0,
    };
    const service = { id: 11, state: 'active', nextRunAt: null, settings: {} };
    call.mockImplementation(async (op: string) =>
      op === 'runMy'
        ? page([run])
        : op === 'runCalendar'
          ? { month: '2026-11', days: [] }
          : { platform: platform(3, '工学云专业版', 1), service, today: 2, total: 5, quota: { runs: 1, days: 0 } },
    );
    open('/gxy', <ComposedRenderer screen={screenAt('/gxy') as ComposedScreen} />);
    expect(await view.findByText('免费额度')).toBeTruthy();
    expect(view.getByText('2 次')).toBeTruthy();
    expect(view.getByText('5 次')).toBeTruthy();
  });

  it('shows times in the site time zone, labelled when the phone is in another one', () => {
    const at = Date.UTC(2026, 10, 26, 10, 39);
    const phone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    // A site in another zone than this machine's (the phone here): its wall clock, and the zone's name.
    if (phone === 'Asia/Shanghai') {
      setSiteTimeZone('UTC');
      expect(w.format.dateTime(at)).toBe('2026-11-26 10:39（协调世界时）');
    } else {
      setSiteTimeZone('Asia/Shanghai');
      expect(w.format.dateTime(at)).toBe('2026-11-26 18:39（中国标准时间）');
    }
    // The phone in the site's zone: no label.
    setSiteTimeZone(phone);
    expect(w.format.dateTime(at)).not.toContain('（');
    // "Today" (the month a calendar opens on) is the site's: 17:00 UTC on 30 November is 1 December in Shanghai.
    const evening = Date.UTC(2026, 10, 30, 17, 0);
    setSiteTimeZone('Asia/Shanghai');
    expect(siteToday(evening)).toBe('2026-12-01');
    setSiteTimeZone('UTC');
    expect(siteToday(evening)).toBe('2026-11-30');
  });
});

describe('settings pages', () => {
  it('/ai/config stays where it is after saving, as /system does', () => {
    expect((screenAt('/ai/config') as FormScreen).after).toBe('stay');
    expect((screenAt('/system') as FormScreen).after).toBe('stay');
  });
});

describe('the back arrow of a deep link', () => {
  it('leads to the page the screen belongs to, not home', () => {
    expect(upFrom('/gxy/update')).toBe('/gxy');
    expect(upFrom('/tasks/detail')).toBe('/tasks');
    expect(upFrom('/update_platform', '/platform_management')).toBe('/platform_management');
    expect(upFrom('/transferCoin')).toBe('/');
  });
});
