import { cleanup, fireEvent, render, screen as view, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screens } from '../../screens.config';
import { api } from '../../src/web/api';
import type { ListScreen } from '../../src/web/config/types';
import { alert, choose, confirm, toast } from '../../src/web/feedback';
import { FormRenderer, type AnyFormScreen } from '../../src/web/renderers/FormRenderer';
import { ListRenderer } from '../../src/web/renderers/ListRenderer';
import { signIn } from '../../src/web/state/session';
import { anAdmin } from './users';

// The vocabulary grown for free quotas and the AI configuration, on their real screens with the API faked: the
// password widget (masked, blank keeps the saved key), a form action (测试连接), a field action (AI 润色, taken
// only when accepted) and a list's filter tabs.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
vi.mock('../../src/web/feedback', () => ({
  toast: vi.fn(),
  alert: vi.fn(),
  choose: vi.fn(),
  confirm: vi.fn(),
  actionSheet: vi.fn(),
}));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

const byPath = (path: string) => screens.find((s) => s.path === path)!;

function openForm(path: string) {
  const router = createMemoryRouter(
    [
      { path, element: <FormRenderer screen={byPath(path) as AnyFormScreen} /> },
      { path: '*', element: <p>elsewhere</p> },
    ],
    { initialEntries: ['/', path], initialIndex: 1 },
  );
  return render(<RouterProvider router={router} />);
}

const input = (label: string | RegExp) => view.getByLabelText<HTMLInputElement>(label);

const aiConfig = {
  enabled: 1,
  baseUrl: 'http://127.0.0.1:11434/v1',
  model: 'qwen2.5:7b',
  timeoutMs: 15000,
  dailyBudget: 100,
  apiKeySet: true,
  usedToday: 2,
  updatedAt: 1795000000000,
};

beforeEach(() => {
  call.mockReset();
  vi.mocked(toast).mockReset();
  vi.mocked(alert).mockReset().mockResolvedValue();
  vi.mocked(choose).mockReset();
});

afterEach(() => {
  cleanup();
});

describe('/ai/config', () => {
  it('shows the key masked and empty, saying blank keeps it; a blank key is not sent', async () => {
    call.mockResolvedValueOnce(aiConfig).mockResolvedValueOnce(true);
    openForm('/ai/config');
    await view.findByDisplayValue('qwen2.5:7b');
    const key = input(/API Key/);
    expect(key.type).toBe('password');
    expect(key.value).toBe('');
    expect(key.placeholder).toBe('已保存的不会显示；留空表示不修改');
    expect(key.autocomplete).toBe('off');

    fireEvent.click(view.getByRole('button', { name: /提交/ }));
    await waitFor(() => expect(call).toHaveBeenCalledTimes(2));
    const [operation, { body }] = call.mock.calls[1] as [string, { body: Record<string, unknown> }];
    expect(operation).toBe('aiConfigUpdate');
    expect(body).toEqual({
      enabled: 1,
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'qwen2.5:7b',
      timeoutMs: 15000,
      dailyBudget: 100,
    });
  });

  it('sends a typed key', async () => {
    call.mockResolvedValueOnce(aiConfig).mockResolvedValueOnce(true);
    openForm('/ai/config');
    await view.findByDisplayValue('qwen2.5:7b');
    fireEvent.change(input(/API Key/), { target: { value: 'sk-new-key' } });
    fireEvent.click(view.getByRole('button', { name: /提交/ }));
    await waitFor(() => expect(call).toHaveBeenCalledTimes(2));
    expect((call.mock.calls[1]![1] as { body: { apiKey?: string } }).body.apiKey).toBe('sk-new-key');
  });

  it('测试连接 calls the test and shows the model’s answer, or the reason it failed', async () => {
    call
      .mockResolvedValueOnce(aiConfig)
      .mockResolvedValueOnce({ ok: true, message: '连接成功', reply: '你好！' })
      .mockResolvedValueOnce({ ok: false, message: 'AI 接口响应超时', reply: null });
    openForm('/ai/config');
    await view.findByDisplayValue('qwen2.5:7b');
    const test = view.getByRole('button', { name: /测试连接/ });
    fireEvent.click(test);
    await waitFor(() => expect(alert).toHaveBeenCalledWith('连接成功', '你好！'));
    expect(call.mock.calls[1]![0]).toBe('aiConfigTest');
    fireEvent.click(test);
    await waitFor(() => expect(alert).toHaveBeenCalledWith('连接失败', 'AI 接口响应超时'));
    // Testing saves nothing.
    expect(call.mock.calls.map((c) => c[0])).not.toContain('aiConfigUpdate');
  });
});

describe('/system: AI 润色 beside the site texts', () => {
  const site = {
    id: 1,
    websiteName: '积分商城',
    noticeBar: '周六维护 停服务',
    noticeAnnouncementTitle: '公告',
    noticeAnnouncement: '内容',
    pointsNotification: '联系管理员',
    coinName: '积分',
    addCoin: 10,
    amount: 0,
    status: 1,
    analyticsUrl: '',
    userId: null,
    updatedAt: 1795000000000,
  };
  const polishButtons = () => view.getAllByRole('button', { name: 'AI 润色' });

  it('sends the field’s own words, and puts the draft in the field only when the admin accepts it', async () => {
    call
      .mockResolvedValueOnce(site)
      .mockResolvedValueOnce({ ok: true, message: '已生成', text: '本周六系统维护，暂停服务。' })
      .mockResolvedValueOnce({ ok: true, message: '已生成', text: '另一个版本' });
    openForm('/system');
    await view.findByDisplayValue('积分商城');
    expect(polishButtons()).toHaveLength(3);

    vi.mocked(choose).mockResolvedValueOnce(true);
    fireEvent.click(polishButtons()[0]!);
    await waitFor(() => expect(input('滚动通知').value).toBe('本周六系统维护，暂停服务。'));
    expect(call.mock.calls[1]!.slice(0, 2)).toEqual([
      'aiPolish',
      expect.objectContaining({ body: { field: 'noticeBar', text: '周六维护 停服务' } }),
    ]);
    expect(vi.mocked(choose).mock.calls[0]!.slice(0, 2)).toEqual(['AI 润色结果', '本周六系统维护，暂停服务。']);

    vi.mocked(choose).mockResolvedValueOnce(false);
    fireEvent.click(polishButtons()[0]!);
    await waitFor(() => expect(choose).toHaveBeenCalledTimes(2));
    expect(input('滚动通知').value).toBe('本周六系统维护，暂停服务。');
    // Nothing was saved: the admin still submits the form themselves.
    expect(call.mock.calls.map((c) => c[0])).not.toContain('basicInformationUpdate');
  });

  it('says why there is no draft, and asks for words first when the field is empty', async () => {
    call
      .mockResolvedValueOnce({ ...site, noticeAnnouncementTitle: '' })
      .mockResolvedValueOnce({ ok: false, message: 'AI 接口拒绝了 API Key（401），请检查密钥', text: null });
    openForm('/system');
    await view.findByDisplayValue('积分商城');
    fireEvent.click(polishButtons()[0]!);
    await waitFor(() => expect(toast).toHaveBeenCalledWith('AI 接口拒绝了 API Key（401），请检查密钥'));
    fireEvent.click(polishButtons()[1]!);
    await waitFor(() => expect(toast).toHaveBeenCalledWith('先写下你想说的话，再让 AI 润色'));
    expect(call).toHaveBeenCalledTimes(2);
    expect(choose).not.toHaveBeenCalled();
  });
});

describe('/clockVip', () => {
  const grant = (id: number, extra: object = {}) => ({
    id,
    userId: 2,
    userAccount: `user_${id}`,
    platformId: null,
    platformName: null,
    unit: 'runs',
    amount: 5,
    remaining: 3,
    used: 2,
    reason: '体验',
    expiresAt: null,
    revokedAt: null,
    status: 'active',
    actorAccount: 'admin',
    createdAt: 1795000000000,
    ...extra,
  });
  const page = (records: unknown[]) => ({ records, total: records.length, current: 1, pageSize: 20 });

  it('filters by status from tabs kept in the URL, and offers revoke only where something is left', async () => {
    signIn(anAdmin({ invitationCode: 'BBBBBBBB', createdAt: 1795000000000 }));
    call.mockResolvedValue(page([grant(1), grant(2, { remaining: 0, status: 'used' })]));
    const router = createMemoryRouter(
      [{ path: '/clockVip', element: <ListRenderer screen={byPath('/clockVip') as ListScreen<never>} /> }],
      { initialEntries: ['/clockVip'] },
    );
    render(<RouterProvider router={router} />);
    expect(await view.findByText('user_1 · 剩余 3/5 次')).toBeTruthy();
    expect(call).toHaveBeenCalledWith('quotaListPage', { body: { current: 1, pageSize: 20 } });

    fireEvent.click(view.getByRole('button', { name: '已过期' }));
    await waitFor(() =>
      expect(call).toHaveBeenLastCalledWith('quotaListPage', { body: { status: 'expired', current: 1, pageSize: 20 } }),
    );
    expect(router.state.location.search).toBe('?status=expired');
    expect(view.getByRole('button', { name: '已过期' }).getAttribute('aria-pressed')).toBe('true');
    fireEvent.click(view.getByRole('button', { name: '全部状态' }));
    await waitFor(() => expect(router.state.location.search).toBe(''));

    vi.mocked(confirm).mockResolvedValue(true);
    // Swipe actions render their buttons in the DOM: one revoke, for the row with units left.
    expect(view.getAllByText('收回')).toHaveLength(1);
  });
});
