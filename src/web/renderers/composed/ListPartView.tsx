import { useContext, useEffect, useMemo, useRef } from 'react';
import type { ListItem, ListPart, RowAction } from '../../config/types';
import type { ListQuery } from '../list/list-query';
import { DEFAULT_PAGE_SIZE } from '../list/list-query';
import { ListRows } from '../list/ListRows';
import { usePagedList } from '../list/usePagedList';
import { liveStatus } from '../../live/stream';
import { useStore } from '../../state/store';
import { LiveTick } from './live-tick';

type Data = unknown;
type ErasedListPart = Omit<ListPart<Data>, 'filter' | 'item' | 'rowActions'> & {
  filter?: (data: Data) => Record<string, unknown> | null;
  item: ListItem<unknown>;
  rowActions?: readonly RowAction<unknown>[];
  live?: (row: unknown) => boolean;
};

/** How often a list with rows under way looks again, without the event stream. */
export const LIVE_POLL_MS = 3000;

const keepPages = () => {};

/** A paged list under the record, filtered by it (a service's runs); the page count stays out of the URL. */
export function ListPartView({
  part: typed,
  data,
  onSettled,
  onChanged,
}: {
  part: ListPart<Data>;
  data: Data;
  /** Rows that were under way have all finished: the record above (its counts) is read again. */
  onSettled: () => void;
  /**
   * A row action changed something: the record above and every part read again quietly (a channel switched off
   * changes the settings' warning too), this list among them. Without it, the list alone reloads.
   */
  onChanged?: () => void;
}) {
  const part = typed as unknown as ErasedListPart;
  const filter = part.filter ? part.filter(data) : {};
  // No filter (no service yet): nothing to list, and nothing is asked of the server.
  if (filter === null) return null;
  return <FilteredList part={part} filter={filter} onSettled={onSettled} onChanged={onChanged} />;
}

function FilteredList({
  part,
  filter,
  onSettled,
  onChanged,
}: {
  part: ErasedListPart;
  filter: Record<string, unknown>;
  onSettled: () => void;
  onChanged?: () => void;
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
  const { reload, refresh } = list;
  // The screen heard of a change (a run claimed or finished): the rows read again behind what is shown.
  const tick = useContext(LiveTick);
  const heard = useRef(tick);
  useEffect(() => {
    if (heard.current === tick) return;
    heard.current = tick;
    void refresh();
  }, [tick, refresh]);
  const streaming = useStore(liveStatus) === 'open';
  useEffect(() => {
    // Judged on loaded pages only: a reload in flight says nothing about the rows.
    if (list.status !== 'ready') return;
    // With the stream, the screen's own live read already brought the record's counts up to date.
    if (wasLive.current && !live && !streaming) onSettled();
    wasLive.current = live;
    if (!live || streaming) return;
    const timer = setTimeout(() => void reload(), LIVE_POLL_MS);
    return () => clearTimeout(timer);
  }, [live, list.rows, list.status, reload, onSettled, streaming]);
  return (
    <section className="composed-list">
      {part.title ? <h3 className="composed-heading">{part.title}</h3> : null}
      <ListRows
        list={list}
        item={part.item}
        rowActions={part.rowActions}
        empty={part.empty}
        onChanged={onChanged && (async () => onChanged())}
      />
    </section>
  );
}
