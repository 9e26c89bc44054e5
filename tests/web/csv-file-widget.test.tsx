import { cleanup, fireEvent, render, screen as view, waitFor, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { screens } from '../../screens.config';
import { ApiError } from '../../src/api/client';
import { api } from '../../src/web/api';
import { confirm, toast } from '../../src/web/feedback';
import { FormRenderer, type AnyFormScreen } from '../../src/web/renderers/FormRenderer';
import { signIn } from '../../src/web/state/session';
import { anAdmin } from './users';

// The quota batch's form: a CSV pasted or read from a chosen file into the same field, and sent as the request's csv;
// a refused file's bad lines listed under it (not in a toast), the first 100 with the total, all of them to copy.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
vi.mock('../../src/web/feedback', () => ({ toast: vi.fn(), confirm: vi.fn(async () => true) }));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

beforeEach(() => {
  call.mockReset();
  vi.mocked(toast).mockReset();
  signIn(anAdmin());
});
afterEach(cleanup);

const quotaScreen = () => screens.find((s) => s.path === '/tasks/quota') as AnyFormScreen;

function renderForm(screen = quotaScreen()) {
  const router = createMemoryRouter(
    [
      { path: '/tasks/quota', element: <FormRenderer screen={screen} /> },
      { path: '/tasks', element: <p>任务列表</p> },
    ],
    { initialEntries: ['/tasks/quota'] },
  );
  return render(<RouterProvider router={router} />);
}

/** The server's refusal of a file of `count` unknown accounts (lines 2 …), as the envelope carries it. */
function refusal(count: number) {
  const problems = Array.from({ length: count }, (_, i) => ({
    line: i + 2,
    account: `ghost_${i}`,
    reason: '账号不存在或已注销',
  }));
  const message = `CSV 有 ${count.toLocaleString('en-US')} 处错误，任务未开始，请按下方列表改正后重新上传`;
  return new ApiError(message, 'envelope', {
    status: 400,
    code: 40000,
    body: { code: 40000, message, data: null, problems },
  });
}

async function chooseFile(text: string) {
  const file = new File([text], 'grants.csv', { type: 'text/csv' });
  fireEvent.change(await view.findByLabelText('选择 CSV 文件'), { target: { files: [file] } });
}

it('reads a chosen CSV file into the field, shows it, and submits it', async () => {
  call.mockImplementation(async (op: string) =>
    op === 'platformListPage' ? { records: [], total: 0, current: 1, pageSize: 100 } : {},
  );
  const { container } = renderForm();
  const text = 'userAccount,amount\nalice_01,5\n';
  const file = new File([text], 'grants.csv', { type: 'text/csv' });
  fireEvent.change(await view.findByLabelText('选择 CSV 文件'), { target: { files: [file] } });
  await waitFor(() => expect(container.querySelector('textarea')?.value).toBe(text));
  fireEvent.change(view.getByLabelText(/原因/), { target: { value: '活动' } });
  fireEvent.click(view.getByRole('button', { name: /提交/ }));
  await waitFor(() => expect(call).toHaveBeenCalledWith('taskQuotaGrant', expect.anything()));
  const sent = call.mock.calls.find(([op]) => op === 'taskQuotaGrant')!;
  expect(sent[1].body).toMatchObject({ csv: text, unit: 'runs', reason: '活动' });
});

it('asks before granting to many users, with the number of accounts and the total from the file; no sends nothing', async () => {
  call.mockImplementation(async (op: string) =>
    op === 'platformListPage' ? { records: [], total: 0, current: 1, pageSize: 100 } : {},
  );
  vi.mocked(confirm).mockResolvedValueOnce(false);
  renderForm();
  await chooseFile('userAccount,amount\nalice_01,5\nbob_0002,10\n\n');
  await waitFor(() => expect(document.querySelector('textarea')?.value).toContain('bob_0002'));
  fireEvent.change(view.getByLabelText(/原因/), { target: { value: '活动' } });
  fireEvent.click(view.getByRole('button', { name: /提交/ }));
  await waitFor(() =>
    expect(confirm).toHaveBeenCalledWith(
      '确定给 2 个账号发放全部平台的免费额度（次数，合计 15）吗？每个账号都会收到通知。',
      { ok: '开始发放', cancel: '再想想' },
    ),
  );
  expect(call).not.toHaveBeenCalledWith('taskQuotaGrant', expect.anything());
  fireEvent.click(view.getByRole('button', { name: /提交/ }));
  await waitFor(() => expect(call).toHaveBeenCalledWith('taskQuotaGrant', expect.anything()));
});

it('chooses the file with one styled button and shows the expected header, column names beside their meaning', async () => {
  call.mockImplementation(async () => ({ records: [], total: 0, current: 1, pageSize: 100 }));
  renderForm();
  const input = await view.findByLabelText('选择 CSV 文件');
  // The browser's own file input (with its English words) is out of sight, behind the one styled label.
  expect(input.className).toContain('visually-hidden');
  expect(input.closest('label')?.className).toContain('csv-file-pick');
  const header = view.getByRole('table', { name: '表头（第一行）' });
  const rows = [...header.querySelectorAll('tbody tr')].map((r) =>
    [...r.querySelectorAll('td')].map((c) => c.textContent),
  );
  expect(rows).toEqual([
    ['userAccount', '用户账号（4–16 位字母、数字或下划线）', 'zhangsan'],
    ['amount', '发放数量（1–10000 的整数）', '10'],
  ]);
  // The rules before any upload, the one-account-per-line rule among them.
  expect(view.getByText('每个账号只能出现一次')).toBeTruthy();
  // The empty field's hint says it is an example, not a value already filled in.
  const area = document.querySelector('textarea')!;
  expect(area.value).toBe('');
  expect(area.placeholder).toContain('格式示例');
  // A template with the header only.
  const template = view.getByRole('link', { name: '下载模板' });
  expect(decodeURIComponent(template.getAttribute('href')!)).toBe('data:text/csv;charset=utf-8,userAccount,amount\n');
  expect(template.getAttribute('download')).toMatch(/\.csv$/);
});

it('lists a refused file’s problems under the field, not in a toast: the first 100 with the total, all to copy', async () => {
  const writeText = vi.fn<(text: string) => Promise<void>>(async () => {});
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
  let answer: () => Promise<unknown> = () => Promise.reject(refusal(19_997));
  call.mockImplementation(async (op: string) =>
    op === 'taskQuotaGrant' ? answer() : { records: [], total: 0, current: 1, pageSize: 100 },
  );
  renderForm();
  await chooseFile('userAccount,amount\nghost_0,1\n');
  await waitFor(() => expect(document.querySelector('textarea')?.value).toContain('ghost_0'));
  fireEvent.change(view.getByLabelText(/原因/), { target: { value: '活动' } });
  fireEvent.click(view.getByRole('button', { name: /提交/ }));

  const list = await view.findByRole('region', { name: '文件中的错误' });
  // Under the CSV field itself, not somewhere else on the page.
  expect(document.getElementById('root_csv')?.closest('.adm-list-item')?.contains(list)).toBe(true);
  expect(within(list).getByRole('alert').textContent).toBe(
    'CSV 有 19,997 处错误，任务未开始，请按下方列表改正后重新上传',
  );
  expect(list.textContent).toContain('共 19,997 处错误，下面列出前 100 处');
  const rows = [...list.querySelectorAll('tbody tr')].map((r) =>
    [...r.querySelectorAll('td')].map((c) => c.textContent),
  );
  expect(rows).toHaveLength(100);
  expect(rows[0]).toEqual(['第 2 行', 'ghost_0', '账号不存在或已注销']);
  expect(rows[99]).toEqual(['第 101 行', 'ghost_99', '账号不存在或已注销']);
  // The list is the message: no toast says it again.
  expect(toast).not.toHaveBeenCalled();

  // 复制全部 copies every problem, one a line, not only the 100 shown.
  fireEvent.click(within(list).getByRole('button', { name: '复制全部' }));
  await waitFor(() => expect(writeText).toHaveBeenCalledTimes(1));
  const copied = writeText.mock.calls[0]![0].split('\n');
  expect(copied).toHaveLength(19_997);
  expect(copied[0]).toBe('第 2 行\tghost_0\t账号不存在或已注销');
  expect(copied.at(-1)).toBe('第 19998 行\tghost_19996\t账号不存在或已注销');
  await waitFor(() => expect(toast).toHaveBeenCalledWith('已复制全部 19,997 处错误'));

  // A fixed file chosen: the old list goes, and the form can be sent again.
  await chooseFile('userAccount,amount\nalice_01,1\n');
  await waitFor(() => expect(view.queryByRole('region', { name: '文件中的错误' })).toBeNull());
  answer = async () => ({ id: 1 });
  const submit = view.getByRole('button', { name: /提交/ });
  expect(submit.hasAttribute('disabled')).toBe(false);
  fireEvent.click(submit);
  await waitFor(() => expect(call.mock.calls.filter(([op]) => op === 'taskQuotaGrant')).toHaveLength(2));
  expect(call.mock.calls.filter(([op]) => op === 'taskQuotaGrant')[1]![1].body.csv).toContain('alice_01');
  expect(await view.findByText('任务列表')).toBeTruthy();
});

it('says a short refusal in full, and puts the list above the submit button on a form naming no field for it', async () => {
  call.mockImplementation(async (op: string) =>
    op === 'taskQuotaGrant' ? Promise.reject(refusal(3)) : { records: [], total: 0, current: 1, pageSize: 100 },
  );
  const { problems: _field, ...screen } = quotaScreen();
  renderForm(screen as AnyFormScreen);
  await chooseFile('userAccount,amount\nghost_0,1\n');
  await waitFor(() => expect(document.querySelector('textarea')?.value).toContain('ghost_0'));
  fireEvent.change(view.getByLabelText(/原因/), { target: { value: '活动' } });
  fireEvent.click(view.getByRole('button', { name: /提交/ }));
  const list = await view.findByRole('region', { name: '文件中的错误' });
  expect(list.closest('.adm-list-item')).toBeNull();
  expect(list.textContent).toContain('共 3 处错误，全部列在下面');
  expect(list.querySelectorAll('tbody tr')).toHaveLength(3);
  expect(toast).not.toHaveBeenCalled();
});
