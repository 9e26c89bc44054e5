import { useEffect, useMemo, useRef } from 'react';
import type { ListItem, ListPart, RowAction } from '../../config/types';
import type { ListQuery } from '../list/list-query';
import { DEFAULT_PAGE_SIZE } from '../list/list-query';
import { ListRows } from '../list/ListRows';
import { usePagedList } from '../list/usePagedList';

type Data = unknown;
type ErasedListPart = Omit<ListPart<Data>, 'filter' | 'item' | 'rowActions'> & {
  filter?: (data: Data) => Record<string, unknown> | null;
  item: ListItem<unknown>;
  rowActions?: readonly RowAction<unknown>[];
  live?: (row: unknown) => boolean;
};

/** How often a list with rows under way looks again. */
export const LIVE_POLL_MS = 3000;

const keepPages = () => {};

/** A paged list under the record, filtered by it (a service's runs); the page count stays out of the URL. */
export function ListPartView({
  part: typed,
  data,
  onSettled,
}: {
  part: ListPart<Data>;
  data: Data;
  /** Rows that were under way have all finished: the record above (its counts) is read again. */
  onSettled: () => void;
}) {
  const part = typed as unknown as ErasedListPart;
  const filter = part.filter ? part.filter(data) : {};
  // No filter (no service yet): nothing to list, and nothing is asked of the server.
  if (filter === null) return null;
  return <FilteredList part={part} filter={filter} onSettled={onSettled} />;
}

function FilteredList({
  part,
  filter,
  onSettled,
}: {
  part: ErasedListPart;
  filter: Record<string, unknown>;
  onSettled: () => void;
}) {
  const key = JSON.stringify(filter);
  const query = useMemo<ListQuery>(
    () => ({
      current: 1,
      pageSize: DEFAULT_PAGE_SIZE,
      filters: Object.fromEntries(
        Object.entries(JSON.parse(key) as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
      ),
    }),
    [key],
  );
  const list = usePagedList<unknown>(part.operation, query, keepPages);
  const live = list.status === 'ready' && part.live !== undefined && list.rows.some(part.live);
  const wasLive = useRef(false);
  const { reload } = list;
  useEffect(() => {
    // Judged on loaded pages only: a reload in flight says nothing about the rows.
    if (list.status !== 'ready') return;
    if (wasLive.current && !live) onSettled();
    wasLive.current = live;
    if (!live) return;
    const timer = setTimeout(() => void reload(), LIVE_POLL_MS);
    return () => clearTimeout(timer);
  }, [live, list.rows, list.status, reload, onSettled]);
  return (
    <section className="composed-list">
      {part.title ? <h3 className="composed-heading">{part.title}</h3> : null}
      <ListRows list={list} item={part.item} rowActions={part.rowActions} empty={part.empty} />
    </section>
  );
}
