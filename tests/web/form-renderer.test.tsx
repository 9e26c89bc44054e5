import { act, cleanup, fireEvent, render, screen as view, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider, useLocation } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/api/client';
import { screens } from '../../screens.config';
import { api } from '../../src/web/api';
import { toast } from '../../src/web/feedback';
import { FormRenderer, type AnyFormScreen } from '../../src/web/renderers/FormRenderer';
import { siteStore } from '../../src/web/state/site';

// The generic form renderer against real screens of screens.config.ts, with the API faked: what it shows, what it
// refuses to send, what it sends, and where it goes after.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
vi.mock('../../src/web/feedback', () => ({ toast: vi.fn() }));

const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

const formScreen = (path: string) => {
  const found = screens.find((s) => s.path === path);
  if (!found || found.kind !== 'form') throw new Error(`no form screen ${path}`);
  return found as AnyFormScreen;
};

function Where() {
  const { pathname } = useLocation();
  return <p data-testid="where">{pathname}</p>;
}

/** Renders the screen at `entry`, with `from` as the page before it in history. */
function open(path: string, { entry = path, from = '/user_management' }: { entry?: string; from?: string } = {}) {
  const screen = formScreen(path);
  const router = createMemoryRouter(
    [
      { path: screen.path, element: <FormRenderer screen={screen} /> },
      { path: '*', element: <Where /> },
    ],
    { initialEntries: [from, entry], initialIndex: 1 },
  );
  return { router, ...render(<RouterProvider router={router} />) };
}

const labels = (container: HTMLElement) => [...container.querySelectorAll('label')].map((l) => l.textContent);
const input = (label: string) => view.getByLabelText<HTMLInputElement>(label);
const type = (label: string, value: string) => fireEvent.change(input(label), { target: { value } });
const submit = () => fireEvent.click(view.getByRole('button', { name: /提交/ }));
/** The error shown under a field, if any. */
const errorOf = (label: string) => document.getElementById(`${input(label).id}__error`)?.textContent ?? undefined;

const site = {
  id: 1,
  websiteName: '积分商城',
  noticeBar: '欢迎使用',
  noticeAnnouncementTitle: '公告',
  noticeAnnouncement: '第一行\n第二行',
  pointsNotification: '联系管理员',
  coinName: '积分',
  addCoin: 10,
  amount: 0,
  status: 1,
  analyticsUrl: '',
  userId: null,
  updatedAt: 1795000000000,
};

let toasts: string[];

beforeEach(() => {
  call.mockReset();
  toasts = [];
  vi.mocked(toast).mockImplementation((content) => {
    toasts.push(content);
  });
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('/system: load, fixed values, textareas', () => {
  it('shows the listed fields in order, prefilled from the load, and nothing else', async () => {
    call.mockResolvedValueOnce(site);
    const { container } = open('/system');
    expect(view.getByRole('status').textContent).toContain('加载中...');
    await view.findByDisplayValue('积分商城');

    expect(call).toHaveBeenCalledWith(
      'basicInformationGet',
      expect.objectContaining({ query: { id: 1 }, quiet: true }),
    );
    expect(labels(container)).toEqual([
      '站点名称',
      '滚动通知',
      '公告标题',
      '公告内容',
      '购买积分须知',
      '积分名称',
      '注册赠送积分',
      '单笔转账上限（0 为不限）',
      '代理返利比例（%）',
      '统计脚本地址',
    ]);
    expect(view.queryByLabelText('状态')).toBeNull();
    expect(view.queryByLabelText('编号')).toBeNull();
    expect(input('公告内容').tagName).toBe('TEXTAREA');
    expect(input('公告内容').value).toBe('第一行\n第二行');
    expect(input('注册赠送积分').type).toBe('number');
    expect(input('注册赠送积分').value).toBe('10');
  });

  it('submits the shown fields with the fixed id merged, toasts, stays, and refreshes what the frame shows', async () => {
    const saved = { ...site, websiteName: '新的商城', noticeBar: '新的滚动通知' };
    call.mockResolvedValueOnce(site).mockResolvedValueOnce(true).mockResolvedValueOnce(saved);
    open('/system');
    await view.findByDisplayValue('积分商城');
    type('站点名称', '新的商城');
    type('注册赠送积分', '20');
    submit();

    // The frame's site record is read again after the save (the notice bar shows the new text at once).
    await waitFor(() => expect(siteStore.get()).toEqual(saved));
    expect(call).toHaveBeenCalledWith('basicInformationUpdate', {
      body: {
        websiteName: '新的商城',
        noticeBar: '欢迎使用',
        noticeAnnouncementTitle: '公告',
        noticeAnnouncement: '第一行\n第二行',
        pointsNotification: '联系管理员',
        coinName: '积分',
        addCoin: 20,
        amount: 0,
        analyticsUrl: '',
        id: 1,
      },
      quiet: true,
    });
    expect(call).toHaveBeenLastCalledWith('basicInformationGet', { query: { id: 1 }, quiet: true });
    expect(toasts).toEqual(['保存成功']);
    // A settings page: the admin stays on it (not sent home, not back).
    expect(view.queryByTestId('where')).toBeNull();
    expect(view.getByDisplayValue('新的商城')).toBeTruthy();
  });

  it('says so when the record cannot be loaded, and loads again on retry', async () => {
    call
      .mockRejectedValueOnce(new ApiError('服务器开小差了，请稍后再试', 'envelope', { code: 50000 }))
      .mockResolvedValueOnce(site);
    open('/system');
    expect(await view.findByText('服务器开小差了，请稍后再试')).toBeTruthy();
    expect(view.getByText('加载失败')).toBeTruthy();

    fireEvent.click(view.getByRole('button', { name: '重试' }));
    await view.findByDisplayValue('积分商城');
    expect(call).toHaveBeenCalledTimes(2);
  });

  it('shows a client-side error in Chinese for a value the contract refuses', async () => {
    call.mockResolvedValueOnce(site);
    open('/system');
    await view.findByDisplayValue('积分商城');
    type('统计脚本地址', 'http://example.com/a.js');
    type('站点名称', '');
    submit();

    await waitFor(() =>
      expect(errorOf('统计脚本地址')).toBe('统计脚本地址须为 https:// 开头、带有效域名的地址，或留空'),
    );
    expect(call).toHaveBeenCalledTimes(1); // the load only
  });
});

describe('/add_user: every field of the operation, client-side validation', () => {
  it('shows the operation fields in contract order, the password as a password input and the role as choices', async () => {
    const { container } = open('/add_user');
    await view.findByLabelText('账号');
    expect(labels(container)).toEqual(['账号', '昵称', '密码', '角色']);
    expect(input('密码').type).toBe('password');
    expect(view.getByText('普通用户')).toBeTruthy();
    expect(view.getByText('管理员')).toBeTruthy();
    expect(call).not.toHaveBeenCalled();
  });

  it('does not show errors before a submit, then shows them in Chinese per field and sends nothing', async () => {
    open('/add_user');
    await view.findByLabelText('账号');
    type('账号', 'ab');
    expect(errorOf('账号')).toBeUndefined();

    submit();
    await waitFor(() => expect(errorOf('账号')).toBe('账号至少 4 个字符'));
    expect(errorOf('密码')).toBe('请填写密码');
    expect(errorOf('昵称')).toBeUndefined();
    expect(call).not.toHaveBeenCalled();

    // After the first submit the form checks as the user types.
    type('账号', 'ab-cd');
    await waitFor(() => expect(errorOf('账号')).toBe('账号只能包含字母、数字和下划线'));
    type('账号', 'abcd');
    await waitFor(() => expect(errorOf('账号')).toBeUndefined());
  });

  it('shows a 40000 answer on the field it names, and other failures as a toast', async () => {
    open('/add_user');
    await view.findByLabelText('账号');
    type('账号', 'alice_01');
    type('密码', 'Passw0rd!');
    fireEvent.click(view.getByText('代理'));

    call.mockRejectedValueOnce(new ApiError('密码不能与账号相同', 'envelope', { code: 40000 }));
    submit();
    await waitFor(() => expect(errorOf('密码')).toBe('密码不能与账号相同'));
    expect(call).toHaveBeenLastCalledWith('userAdd', {
      body: { userAccount: 'alice_01', userPassword: 'Passw0rd!', userRole: 'agent' },
      quiet: true,
    });
    expect(toasts).toEqual([]);

    // Editing the field clears the server's message.
    type('密码', 'An0ther!pass');
    await waitFor(() => expect(errorOf('密码')).toBeUndefined());

    call.mockRejectedValueOnce(new ApiError('账号已被占用', 'envelope', { code: 40900 }));
    submit();
    await waitFor(() => expect(toasts).toEqual(['账号已被占用']));
    expect(errorOf('账号')).toBeUndefined();
    expect(view.queryByTestId('where')).toBeNull();
  });

  it('disables the submit button and shows it loading while the request is in flight', async () => {
    open('/add_user');
    await view.findByLabelText('账号');
    type('账号', 'alice_01');
    type('密码', 'Passw0rd!');
    let answer!: (value: unknown) => void;
    call.mockReturnValueOnce(new Promise((resolve) => (answer = resolve)));
    const button = view.getByRole<HTMLButtonElement>('button', { name: '提交' });
    fireEvent.click(button);

    await waitFor(() => expect(button.disabled).toBe(true));
    expect(button.className).toContain('adm-button-loading');
    expect(button.textContent).toBe('提交');
    fireEvent.submit(button.closest('form')!); // a second submit (the Enter key) while in flight sends nothing
    expect(call).toHaveBeenCalledTimes(1);

    await act(async () => answer(12));
    await waitFor(() => expect(view.getByTestId('where').textContent).toBe('/user_management'));
    expect(toasts).toEqual(['新增成功']);
  });
});

describe('/update_password and /update_user', () => {
  it('submits the password change and goes to screen.after (我的: this device stays signed in)', async () => {
    open('/update_password', { from: '/' });
    await view.findByLabelText('原密码');
    expect(input('原密码').type).toBe('password');
    expect(input('原密码').autocomplete).toBe('current-password');
    type('原密码', 'Passw0rd!');
    type('新密码', 'N3w-passw0rd');
    type('确认密码', 'N3w-passw0rd');
    call.mockResolvedValueOnce(true);
    submit();

    await waitFor(() => expect(view.getByTestId('where').textContent).toBe('/about'));
    expect(call).toHaveBeenCalledWith('userUpdatePassword', {
      body: { oldPassword: 'Passw0rd!', newPassword: 'N3w-passw0rd', checkPassword: 'N3w-passw0rd' },
      quiet: true,
    });
    expect(toasts).toEqual(['密码已修改，其他设备已退出登录']);
  });

  it('reads the id from the URL for the load and the submission, and goes to the users list when there is no page to go back to', async () => {
    call.mockResolvedValueOnce({
      id: 7,
      userAccount: 'bob_01',
      userName: '小明',
      userRole: 'user',
      status: 'active',
      email: null,
    });
    const screen = formScreen('/update_user');
    const router = createMemoryRouter(
      [
        { path: screen.path, element: <FormRenderer screen={screen} /> },
        { path: '*', element: <Where /> },
      ],
      { initialEntries: ['/update_user?id=7'] },
    );
    const { container } = render(<RouterProvider router={router} />);
    await view.findByDisplayValue('小明');
    expect(call).toHaveBeenCalledWith('userGet', expect.objectContaining({ query: { id: 7 } }));
    expect(labels(container)).toEqual(['昵称']);

    call.mockResolvedValueOnce(true);
    type('昵称', '小红');
    submit();
    await waitFor(() => expect(view.getByTestId('where').textContent).toBe('/user_management'));
    expect(call).toHaveBeenLastCalledWith('userUpdate', { body: { userName: '小红', id: 7 }, quiet: true });
  });
});
