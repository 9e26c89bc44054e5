import { act, renderHook, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '../../src/web/api';
import { usePagedList } from '../../src/web/renderers/list/usePagedList';
import type { ListQuery } from '../../src/web/renderers/list/list-query';

// A list with `paging: 'cursor'` asks for each next page with the cursor the last page handed out, not a number.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

const entry = (id: number) => ({ id });
const page = (ids: number[], nextCursor: string | null, total = 5) => ({
  records: ids.map(entry),
  total,
  current: 1,
  pageSize: 2,
  nextCursor,
});

const query = (current = 1): ListQuery => ({ pageSize: 2, current, filters: { userId: '7' } });

beforeEach(() => call.mockReset());

describe('usePagedList with cursor paging', () => {
  it('asks for the next page with the last page’s cursor, and stops when none is handed out', async () => {
    call
      .mockResolvedValueOnce(page([5, 4], 'c1'))
      .mockResolvedValueOnce(page([3, 2], 'c2'))
      .mockResolvedValueOnce(page([1], null));
    const { result } = renderHook(() => usePagedList<{ id: number }>('coinEntries', query(), () => {}, 'cursor'));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(call).toHaveBeenLastCalledWith('coinEntries', { query: { userId: 7, current: 1, pageSize: 2 } });
    await act(() => result.current.loadMore());
    expect(call).toHaveBeenLastCalledWith('coinEntries', { query: { userId: 7, pageSize: 2, cursor: 'c1' } });
    await act(() => result.current.loadMore());
    expect(call).toHaveBeenLastCalledWith('coinEntries', { query: { userId: 7, pageSize: 2, cursor: 'c2' } });
    expect(result.current.rows.map((r) => r.id)).toEqual([5, 4, 3, 2, 1]);
    expect(result.current.hasMore).toBe(false);
  });

  it('loads the pages a URL asks for by following the cursors', async () => {
    call.mockResolvedValueOnce(page([5, 4], 'c1')).mockResolvedValueOnce(page([3, 2], 'c2'));
    const { result } = renderHook(() => usePagedList<{ id: number }>('coinEntries', query(2), () => {}, 'cursor'));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(call.mock.calls.map((c) => c[1])).toEqual([
      { query: { userId: 7, current: 1, pageSize: 2 } },
      { query: { userId: 7, pageSize: 2, cursor: 'c1' } },
    ]);
    expect(result.current.hasMore).toBe(true);
  });
});
