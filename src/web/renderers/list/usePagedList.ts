import { useCallback, useEffect, useRef, useState } from 'react';
import type { CallInit } from '../../../api/client';
import { OPERATIONS } from '../../../api/generated/operations.gen';
import type { PageOperation, Paging } from '../../config/types';
import { api } from '../../api';
import { pageArgs, type ListQuery } from './list-query';

type Page = { records: unknown[]; total: number; nextCursor?: string | null };

export interface PagedList<R> {
  rows: R[];
  total: number;
  status: 'loading' | 'ready' | 'error';
  hasMore: boolean;
  loadMore: () => Promise<void>;
  /** Loads the pages shown again (after an action changed a row, or a pull to refresh). */
  reload: () => Promise<void>;
  /** The same, quietly: the rows shown stay until the new ones are in (a live update, a poll). */
  refresh: () => Promise<void>;
}

function fetchPage(operation: PageOperation, query: ListQuery, current: number, cursor?: string): Promise<Page> {
  const args: Record<string, unknown> = pageArgs(query, current);
  if (cursor !== undefined) {
    delete args.current;
    args.cursor = cursor;
  }
  // The contract's method says whether the page request is the query or the body, and PageOperation is by definition
  // an operation answering a Page; the type system follows neither through the union, so both are asserted here.
  const init = (OPERATIONS[operation].method === 'get' ? { query: args } : { body: args }) as CallInit<PageOperation>;
  return api.call(operation, init);
}

/**
 * Headless list state (react-admin's lesson: keep it apart from the UI kit): pages of an operation for a query,
 * appended as the user scrolls. A newer query wins over answers still in flight for an older one.
 */
export function usePagedList<R>(
  operation: PageOperation,
  query: ListQuery,
  onPagesLoaded: (pages: number) => void,
  paging: Paging = 'pages',
): PagedList<R> {
  const [rows, setRows] = useState<R[]>([]);
  /** With cursor paging: where the next page starts; null once the last page is in. */
  const [cursor, setCursor] = useState<string | null>(null);
  const [total, setTotal] = useState(0);
  const [pages, setPages] = useState(0);
  const [status, setStatus] = useState<PagedList<R>['status']>('loading');
  const generation = useRef(0);
  const key = JSON.stringify({ ...query, current: 0 });

  const loadPages = useCallback(
    async (count: number, quiet = false) => {
      const mine = ++generation.current;
      if (!quiet) setStatus('loading');
      try {
        const loaded: R[] = [];
        let lastTotal = 0;
        let next: string | null = null;
        for (let p = 1; p <= count; p++) {
          const page = await fetchPage(operation, query, p, paging === 'cursor' && p > 1 ? (next ?? '') : undefined);
          loaded.push(...(page.records as R[]));
          lastTotal = page.total;
          next = page.nextCursor ?? null;
          if (loaded.length >= page.total || (paging === 'cursor' && next === null)) break;
        }
        if (mine !== generation.current) return;
        setRows(loaded);
        setCursor(next);
        setTotal(lastTotal);
        setPages(Math.max(1, Math.ceil(loaded.length / query.pageSize)));
        setStatus('ready');
      } catch {
        // A quiet read that fails keeps what is shown; the next event or poll tries again.
        if (mine === generation.current && !quiet) setStatus('error');
      }
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `key` stands for `query`, a new object on every render
    [operation, key, paging],
  );

  useEffect(() => {
    void loadPages(query.current);
    // Only a new query reloads; `current` in the URL follows the pages loaded.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a new query reloads; `current` follows the pages loaded
  }, [loadPages]);

  const loadMore = useCallback(async () => {
    const mine = generation.current;
    if (paging === 'cursor' && cursor === null) return;
    const page = await fetchPage(operation, query, pages + 1, paging === 'cursor' ? (cursor ?? '') : undefined);
    if (mine !== generation.current) return;
    setRows((r) => [...r, ...(page.records as R[])]);
    setCursor(page.nextCursor ?? null);
    setTotal(page.total);
    setPages(pages + 1);
    onPagesLoaded(pages + 1);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `key` stands for `query`, a new object on every render
  }, [operation, key, pages, onPagesLoaded, paging, cursor]);

  return {
    rows,
    total,
    status,
    // Counted lists end at their total; a cursor list ends when the server hands out no further cursor.
    hasMore: status === 'ready' && rows.length < total && (paging === 'pages' || cursor !== null),
    loadMore,
    reload: () => loadPages(Math.max(pages, 1)),
    refresh: () => loadPages(Math.max(pages, 1), true),
  };
}
