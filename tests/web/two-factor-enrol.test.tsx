import { cleanup, fireEvent, render, screen as view, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '../../src/web/api';
import TwoFactor from '../../src/web/screens/TwoFactor';
import { signIn } from '../../src/web/state/session';
import { anAdmin } from './users';

// Issue 35: the enrolment an admin must finish first gives its key in groups of four with a copy button, and its
// recovery codes with copy and download. The API is faked.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
vi.mock('../../src/web/feedback', () => ({ toast: vi.fn(), confirm: vi.fn(), alert: vi.fn(), actionSheet: vi.fn() }));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

const KEY = 'JBSWY3DPEHPK3PXPJBSWY3DP';
const CODES = ['AAAA-1111', 'BBBB-2222', 'CCCC-3333'];
const writeText = vi.fn(async () => undefined);
const createObjectURL = vi.fn((file: Blob) => (file.size > 0 ? 'blob:codes' : 'blob:empty'));

beforeEach(() => {
  call.mockReset();
  writeText.mockClear();
  createObjectURL.mockClear();
  Object.assign(navigator, { clipboard: { writeText } });
  Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
  signIn(anAdmin({ userAccount: 'boss_01', enrolTwoFactor: true }));
  call.mockImplementation(async (op: string) => {
    if (op === 'twoFactorGet') return { enabled: false, required: true, enabledAt: null, recoveryCodesLeft: 0 };
    if (op === 'twoFactorSetup') return { key: KEY, qrSvg: '<svg xmlns="http://www.w3.org/2000/svg"/>' };
    if (op === 'twoFactorEnable') return { codes: CODES };
    throw new Error(`unexpected ${op}`);
  });
});
afterEach(cleanup);

describe('two-factor enrolment', () => {
  it('shows the key in fours with a copy button, then the recovery codes with copy and download', async () => {
    const router = createMemoryRouter([{ path: '/two_factor', element: <TwoFactor /> }], {
      initialEntries: ['/two_factor'],
    });
    render(<RouterProvider router={router} />);
    fireEvent.click(await view.findByRole('button', { name: '开始设置' }));
    expect((await view.findByTestId('two-factor-key')).textContent).toBe('JBSW Y3DP EHPK 3PXP JBSW Y3DP');
    fireEvent.click(view.getByRole('button', { name: '复制密钥' }));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(KEY));

    fireEvent.change(view.getByLabelText('验证码'), { target: { value: '123456' } });
    fireEvent.click(view.getByRole('button', { name: '确认开启' }));
    expect((await view.findByTestId('recovery-codes')).textContent).toBe(CODES.join(''));
    fireEvent.click(view.getByRole('button', { name: '复制全部' }));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(CODES.join('\n')));
    fireEvent.click(view.getByRole('button', { name: '下载为文件' }));
    expect(createObjectURL).toHaveBeenCalledTimes(1);
    const file = createObjectURL.mock.calls[0]![0];
    const text = await file.text();
    expect(text).toContain('boss_01');
    for (const code of CODES) expect(text).toContain(code);
  });
});
