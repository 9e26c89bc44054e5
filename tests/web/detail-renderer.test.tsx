import { cleanup, fireEvent, render, screen as view } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screens } from '../../screens.config';
import { api } from '../../src/web/api';
import type { DetailScreen } from '../../src/web/config/types';
import { DetailRenderer } from '../../src/web/renderers/DetailRenderer';

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;
const detail = screens.find((s) => s.path === '/user_detail') as DetailScreen;

function open(search: string) {
  const router = createMemoryRouter([{ path: detail.path, element: <DetailRenderer screen={detail} /> }], {
    initialEntries: [detail.path + search],
  });
  render(<RouterProvider router={router} />);
}

beforeEach(() => call.mockReset());
afterEach(cleanup);

describe('DetailRenderer on /user_detail', () => {
  it('reads the record named in the URL and shows labels, words for codes, times and dashes for empty values', async () => {
    call.mockResolvedValue({
      id: 9,
      userAccount: 'bob_0009',
      userName: '<b>鲍勃</b>',
      userRole: 'agent',
      status: 'banned',
      email: null,
      invitationCode: 'K7P2M9QX',
      inviterAccount: null,
      createdAt: new Date(2026, 10, 1, 8, 5).getTime(),
      lastLoginAt: null,
      banPausedServices: 0,
      twoFactor: true,
      passkeys: 1,
      closingAt: null,
      closedAt: null,
    });
    open('?id=9');
    expect(await view.findByText('bob_0009')).toBeTruthy();
    expect(call).toHaveBeenCalledWith('userGet', { query: { id: 9 } });
    expect(view.getByText('代理')).toBeTruthy();
    expect(view.getByText('已封禁')).toBeTruthy();
    expect(view.getByText('2026-11-01 08:05')).toBeTruthy();
    expect(view.getAllByText('—').length).toBe(5);
    expect(view.getByText('已开启')).toBeTruthy();
    // User text is shown as text, never as markup.
    expect(view.getByText('<b>鲍勃</b>')).toBeTruthy();
    expect(document.querySelector('b')).toBeNull();
  });

  it('offers a retry when the record cannot be loaded', async () => {
    call.mockRejectedValueOnce(new Error('down')).mockResolvedValue({ userAccount: 'bob_0009' });
    open('?id=9');
    fireEvent.click(await view.findByText('重试'));
    expect(await view.findByText('bob_0009')).toBeTruthy();
  });
});
