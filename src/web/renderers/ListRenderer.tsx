import { useCallback } from 'react';
import { Button, PullToRefresh } from 'antd-mobile';
import { Link, useSearchParams } from 'react-router-dom';
import type { ActionCall, ListChip, ListItem, ListScreen, Progress, RowAction } from '../config/types';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { readListQuery, writeListQuery, type ListQuery } from './list/list-query';
import { ListRows } from './list/ListRows';
import { SearchBox } from './list/SearchBox';
import { ListToolbar } from './list/ListToolbar';
import { usePagedList } from './list/usePagedList';
import { useChipChoices } from './list/chip-choices';
import { behaviours } from '../app/behaviours';
import { useLive } from '../live/useLive';
import './list/list.css';

/**
 * Rows are opaque here: screens.config.ts typed each list's row callbacks against its own operation, so the renderer
 * only passes rows back to them.
 */
type Row = unknown;
type ErasedListScreen = Omit<ListScreen, 'item' | 'rowActions' | 'highlight' | 'open' | 'progress' | 'poll'> & {
  item: ListItem<Row>;
  rowActions?: readonly RowAction<Row>[];
  highlight?: (row: Row) => boolean;
  open?: { call: ActionCall<Row>; dialog: (row: Row) => { title: string; content: string } };
  progress?: (row: Row) => Progress;
  poll?: { everyMs: number; while?: (row: Row) => boolean };
};

/** A row of toggle buttons: one per choice, the active one pressed. */
function Toggles({
  label,
  items,
  onPick,
}: {
  label: string;
  items: { key: string; text: string; active: boolean }[];
  onPick: (key: string) => void;
}) {
  return (
    <div className="list-sort" role="group" aria-label={label}>
      {items.map(({ key, text, active }) => (
        <button
          key={key}
          type="button"
          className={active ? 'list-sort-item active' : 'list-sort-item'}
          aria-pressed={active}
          onClick={() => onPick(key)}
        >
          {text}
        </button>
      ))}
    </div>
  );
}

/** One filter's row of choices: 全部 first, then the chip's own (fixed, then read from its `from` list). */
function ChipToggles({
  chip,
  value,
  onPick,
}: {
  chip: ListChip;
  value: string | undefined;
  onPick: (value: string) => void;
}) {
  const choices = useChipChoices(chip);
  return (
    <Toggles
      label={chip.label}
      items={[
        { key: '', text: w.list.all(chip.label), active: !value },
        ...choices.map((c) => ({ key: c.value, text: c.label, active: value === c.value })),
      ]}
      onPick={onPick}
    />
  );
}

/** Any paged operation as an infinite list: search, filters, sort, pull to refresh, and row actions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the map's lists, each typed by its own operation
export function ListRenderer({ screen: typed }: { screen: ListScreen<any> }) {
  const screen = typed as unknown as ErasedListScreen;
  const [params, setParams] = useSearchParams();
  const query = readListQuery(params, screen);
  const update = (patch: Partial<ListQuery>) =>
    setParams(writeListQuery({ ...query, current: 1, ...patch }), { replace: true });
  const onPagesLoaded = useCallback(
    (current: number) => setParams((p) => writeListQuery({ ...readListQuery(p, screen), current }), { replace: true }),
    [setParams, screen],
  );
  const list = usePagedList<Row>(screen.operation, query, onPagesLoaded, screen.paging);
  // Fresh as things change (liveOn); without the stream, on the screen's poll while a row asks for it.
  const { poll } = screen;
  useLive(
    screen.liveOn,
    list.refresh,
    poll && { fallback: { everyMs: poll.everyMs, wanted: poll.while ? list.rows.some(poll.while) : true } },
  );
  /** Sets one filter (undefined: leaves it out) and loads again from the first page. */
  const setFilter = (field: string, value: string | undefined) => {
    const others = Object.entries(query.filters).filter(([name]) => name !== field);
    update({ filters: Object.fromEntries(value === undefined ? others : [...others, [field, value]]) });
  };
  const changed = async () => {
    // Not awaited: the list reloads meanwhile (the unread count is the frame's, not this list's).
    if (screen.onChange) void behaviours[screen.onChange]();
    await list.reload();
  };

  return (
    <div className="list-screen">
      {screen.toolbar && <ListToolbar actions={screen.toolbar} onDone={changed} />}
      {(screen.search || screen.addLink || screen.download) && (
        <div className="list-toolbar">
          {screen.search && (
            <SearchBox
              initial={query.searchText ?? ''}
              placeholder={screen.searchPlaceholder}
              onSearch={(searchText) => update({ searchText })}
            />
          )}
          {screen.download && (
            <a className="list-download" href={screen.download.href(params)} download>
              {screen.download.label}
            </a>
          )}
          {screen.addLink && (
            <Link to={screen.addLink.to}>
              <Button size="small" color="primary">
                {screen.addLink.label}
              </Button>
            </Link>
          )}
        </div>
      )}
      {screen.chips?.map((chip) => (
        <ChipToggles
          key={chip.field}
          chip={chip}
          value={query.filters[chip.field]}
          onPick={(value) => setFilter(chip.field, value || undefined)}
        />
      ))}
      {screen.switches && (
        <Toggles
          label={w.list.switches}
          items={screen.switches.map(({ field, label }) => ({
            key: field,
            text: label,
            active: query.filters[field] === 'true',
          }))}
          onPick={(field) => setFilter(field, query.filters[field] === 'true' ? undefined : 'true')}
        />
      )}
      {screen.sortFields && (
        <Toggles
          label={w.list.sort}
          items={screen.sortFields.map(({ field, label }) => {
            const active = query.sortField === field;
            const order = active && query.sortOrder === 'ascend' ? 'ascend' : 'descend';
            return { key: field, text: `${label}${active ? (order === 'ascend' ? ' ↑' : ' ↓') : ''}`, active };
          })}
          onPick={(field) => {
            const active = query.sortField === field;
            const ascending = active && query.sortOrder === 'ascend';
            update({ sortField: field, sortOrder: active ? (ascending ? 'descend' : 'ascend') : 'descend' });
          }}
        />
      )}
      <PullToRefresh
        onRefresh={list.reload}
        pullingText={w.list.pullToRefresh}
        canReleaseText={w.list.releaseToRefresh}
        refreshingText={w.list.refreshing}
        completeText={w.list.refreshed}
      >
        <ListRows
          list={list}
          item={screen.item}
          rowActions={screen.rowActions}
          empty={screen.empty}
          highlight={screen.highlight}
          open={screen.open}
          progress={screen.progress}
          onChanged={changed}
          swipeMax={screen.swipeMax}
        />
      </PullToRefresh>
    </div>
  );
}
