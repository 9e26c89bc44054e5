import { useCallback, useEffect, useRef } from 'react';
import { Button, ErrorBlock, InfiniteScroll, List, PullToRefresh, SearchBar, Skeleton, SwipeAction } from 'antd-mobile';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import type { ActionCall, ListScreen, Progress, RowAction } from '../config/types';
import { actionSheet, alert } from '../feedback';
import { messages as t } from '../i18n/zh-CN';
import { sessionStore } from '../state/session';
import { useStore } from '../state/store';
import { readListQuery, writeListQuery, type ListQuery } from './list/list-query';
import { actionsFor, useRowAction } from './list/row-actions';
import { usePagedList } from './list/usePagedList';
import { ListToolbar } from './list/ListToolbar';
import { ProgressLine } from './ProgressLine';
import './list/list.css';

const SWIPE_COLORS = {
  primary: 'primary',
  warning: 'warning',
  danger: 'danger',
  light: 'light',
  success: 'success',
} as const;

/**
 * Rows are opaque here: screens.config.ts typed each list's row callbacks against its own operation, so the renderer
 * only passes rows back to them.
 */
type Row = unknown;
type ErasedListScreen = Omit<ListScreen, 'item' | 'rowActions' | 'highlight' | 'open' | 'progress' | 'poll'> & {
  item: { title(row: Row): string; description?(row: Row): string; extra?(row: Row): string };
  rowActions?: readonly RowAction<Row>[];
  highlight?: (row: Row) => boolean;
  open?: { call: ActionCall<Row>; dialog: (row: Row) => { title: string; content: string } };
  progress?: (row: Row) => Progress;
  poll?: { everyMs: number; while?: (row: Row) => boolean };
};

/**
 * Reloads the pages shown every `everyMs` while some row still asks for it (a job running), and not while the tab
 * is hidden. The latest reload is kept in a ref, so the timer is not restarted on every render.
 */
function usePolling(poll: ErasedListScreen['poll'], rows: unknown[], reload: () => Promise<void>) {
  const latest = useRef(reload);
  useEffect(() => {
    latest.current = reload;
  });
  const wanted = poll !== undefined && (poll.while ? rows.some(poll.while) : true);
  const everyMs = poll?.everyMs ?? 0;
  useEffect(() => {
    if (!wanted) return;
    const timer = setInterval(() => {
      if (document.visibilityState !== 'hidden') void latest.current();
    }, everyMs);
    return () => clearInterval(timer);
  }, [wanted, everyMs]);
}

/** One URL filter as a row of choices, '全部' first; styled as the sort row. */
function FilterTabs({
  tabs,
  value,
  onChange,
}: {
  tabs: NonNullable<ListScreen['filterTabs']>;
  value: string | undefined;
  onChange: (value: string | undefined) => void;
}) {
  const options = [{ value: undefined, label: t.list.all }, ...tabs.options];
  return (
    <div className="list-sort" role="group" aria-label={tabs.label}>
      {options.map((option) => (
        <button
          key={option.value ?? ''}
          type="button"
          className={value === option.value ? 'list-sort-item active' : 'list-sort-item'}
          aria-pressed={value === option.value}
          onClick={() => onChange(option.value)}
        >
          {option.label}
        </button>
      ))}
    </div>
  );
}

/** Any paged operation as an infinite list: search, sort, pull to refresh, and row actions by swipe or tap. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the map's lists, each typed by its own operation
export function ListRenderer({ screen: typed }: { screen: ListScreen<any> }) {
  const screen = typed as unknown as ErasedListScreen;
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const { role } = useStore(sessionStore);
  const query = readListQuery(params, screen);
  const update = (patch: Partial<ListQuery>) =>
    setParams(writeListQuery({ ...query, current: 1, ...patch }), { replace: true });
  const onPagesLoaded = useCallback(
    (current: number) => setParams((p) => writeListQuery({ ...readListQuery(p, screen), current }), { replace: true }),
    [setParams, screen],
  );
  const list = usePagedList<unknown>(screen.operation, query, onPagesLoaded);
  const runAction = useRowAction();
  usePolling(screen.poll, list.rows, list.reload);

  const changed = async () => {
    screen.onChange?.();
    await list.reload();
  };

  const act = async (action: RowAction<unknown>, row: unknown) => {
    if ('to' in action) return navigate(action.to(row));
    if (await runAction(action, row)) await changed();
  };

  /** Opening a row: the dialog at once, the call (mark read) quietly behind it. */
  const open = async (row: unknown) => {
    const { title, content } = screen.open!.dialog(row);
    void alert(title, content);
    if (await runAction({ call: screen.open!.call }, row, { quiet: true })) await changed();
  };

  const openSheet = (row: unknown, actions: RowAction<unknown>[]) =>
    actionSheet(
      actions.map((a) => ({ text: a.label, danger: a.color === 'danger', onAction: () => void act(a, row) })),
    );

  return (
    <div className="list-screen">
      {screen.toolbar && <ListToolbar actions={screen.toolbar} onDone={changed} />}
      {(screen.search || screen.addLink || screen.download) && (
        <div className="list-toolbar">
          {screen.search && (
            <SearchBar
              placeholder={t.list.searchPlaceholder}
              defaultValue={query.searchText ?? ''}
              onSearch={(v) => update({ searchText: v.trim() || undefined })}
              onClear={() => update({ searchText: undefined })}
              style={{ flex: 1 }}
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
      {screen.filterTabs && (
        <FilterTabs
          tabs={screen.filterTabs}
          value={query.filters[screen.filterTabs.param]}
          onChange={(value) => {
            const { [screen.filterTabs!.param]: _old, ...rest } = query.filters;
            update({ filters: value === undefined ? rest : { ...rest, [screen.filterTabs!.param]: value } });
          }}
        />
      )}
      {screen.sortFields && (
        <div className="list-sort" role="group" aria-label={t.list.sort}>
          {screen.sortFields.map(({ field, label }) => {
            const active = query.sortField === field;
            const order = active && query.sortOrder === 'ascend' ? 'ascend' : 'descend';
            return (
              <button
                key={field}
                type="button"
                className={active ? 'list-sort-item active' : 'list-sort-item'}
                aria-pressed={active}
                onClick={() =>
                  update({
                    sortField: field,
                    sortOrder: active ? (order === 'ascend' ? 'descend' : 'ascend') : 'descend',
                  })
                }
              >
                {label}
                {active ? (order === 'ascend' ? ' ↑' : ' ↓') : ''}
              </button>
            );
          })}
        </div>
      )}
      <PullToRefresh
        onRefresh={list.reload}
        pullingText={t.list.pullToRefresh}
        canReleaseText={t.list.releaseToRefresh}
        refreshingText={t.list.refreshing}
        completeText={t.list.refreshed}
      >
        {list.status === 'loading' && list.rows.length === 0 ? (
          <div className="list-skeleton" aria-busy="true" aria-label={t.shell.loading}>
            <Skeleton.Title animated />
            <Skeleton.Paragraph lineCount={5} animated />
          </div>
        ) : list.status === 'error' && list.rows.length === 0 ? (
          <ErrorBlock status="default" title={t.shell.loadFailed} description={t.fetchFailedTryLater}>
            <Button color="primary" onClick={list.reload}>
              {t.shell.retry}
            </Button>
          </ErrorBlock>
        ) : list.rows.length === 0 ? (
          <ErrorBlock status="empty" title={t.list.empty} description={screen.empty ?? ''} />
        ) : (
          <>
            <div className="list-total">{t.list.total(list.total)}</div>
            <List>
              {list.rows.map((row, index) => {
                const actions = actionsFor(screen.rowActions, row, role);
                const highlighted = screen.highlight?.(row) ?? false;
                const description = screen.item.description?.(row);
                const item = (
                  <List.Item
                    description={
                      screen.progress ? (
                        <>
                          {description}
                          <ProgressLine {...screen.progress(row)} />
                        </>
                      ) : (
                        description
                      )
                    }
                    extra={screen.item.extra?.(row)}
                    arrowIcon={screen.open !== undefined || actions.length > 0}
                    onClick={
                      screen.open
                        ? () => void open(row)
                        : actions.length > 0
                          ? () => openSheet(row, actions)
                          : undefined
                    }
                  >
                    {highlighted ? (
                      <span className="list-row-highlight">
                        <span className="list-row-dot" aria-hidden="true" />
                        {screen.item.title(row)}
                      </span>
                    ) : (
                      screen.item.title(row)
                    )}
                  </List.Item>
                );
                const key = (row as { id?: number }).id ?? index;
                return actions.length > 0 ? (
                  <SwipeAction
                    key={key}
                    rightActions={actions.map((a, i) => ({
                      key: String(i),
                      text: a.label,
                      color: SWIPE_COLORS[a.color ?? 'light'],
                      onClick: () => void act(a, row),
                    }))}
                  >
                    {item}
                  </SwipeAction>
                ) : (
                  <div key={key}>{item}</div>
                );
              })}
            </List>
            <InfiniteScroll loadMore={list.loadMore} hasMore={list.hasMore}>
              {list.hasMore ? t.shell.loading : t.list.noMore}
            </InfiniteScroll>
          </>
        )}
      </PullToRefresh>
    </div>
  );
}
