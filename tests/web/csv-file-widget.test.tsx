import { cleanup, fireEvent, render, screen as view, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { screens } from '../../screens.config';
import { api } from '../../src/web/api';
import { FormRenderer, type AnyFormScreen } from '../../src/web/renderers/FormRenderer';
import { signIn } from '../../src/web/state/session';
import { anAdmin } from './users';

// The quota batch's form: a CSV pasted or read from a chosen file into the same field, and sent as the request's csv.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
vi.mock('../../src/web/feedback', () => ({ toast: vi.fn() }));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

beforeEach(() => {
  call.mockReset();
  signIn(anAdmin());
});
afterEach(cleanup);

it('reads a chosen CSV file into the field, shows it, and submits it', async () => {
  call.mockImplementation(async (op: string) =>
    op === 'platformListPage' ? { records: [], total: 0, current: 1, pageSize: 100 } : {},
  );
  const screen = screens.find((s) => s.path === '/tasks/quota') as AnyFormScreen;
  const router = createMemoryRouter([{ path: '/tasks/quota', element: <FormRenderer screen={screen} /> }], {
    initialEntries: ['/tasks/quota'],
  });
  const { container } = render(<RouterProvider router={router} />);
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

it('chooses the file with one styled button and shows the expected header, column names beside their meaning', async () => {
  call.mockImplementation(async () => ({ records: [], total: 0, current: 1, pageSize: 100 }));
  const screen = screens.find((s) => s.path === '/tasks/quota') as AnyFormScreen;
  const router = createMemoryRouter([{ path: '/tasks/quota', element: <FormRenderer screen={screen} /> }], {
    initialEntries: ['/tasks/quota'],
  });
  render(<RouterProvider router={router} />);
  const input = await view.findByLabelText('选择 CSV 文件');
  // The browser's own file input (with its English words) is out of sight, behind the one styled label.
  expect(input.className).toContain('visually-hidden');
  expect(input.closest('label')?.className).toContain('csv-file-pick');
  const header = view.getByRole('table', { name: '表头（第一行）' });
  const rows = [...header.querySelectorAll('tbody tr')].map((r) =>
    [...r.querySelectorAll('td')].map((c) => c.textContent),
  );
  expect(rows).toEqual([
    ['userAccount', '用户账号', 'alice_01'],
    ['amount', '发放数量', '5'],
  ]);
});
