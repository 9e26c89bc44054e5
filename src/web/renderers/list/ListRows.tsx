import { Button, ErrorBlock, InfiniteScroll, List, Skeleton, SwipeAction } from 'antd-mobile';
import { useNavigate } from 'react-router-dom';
import type { ListItem, RowAction } from '../../config/types';
import { actionSheet } from '../../feedback';
import { messages as t } from '../../i18n/zh-CN';
import { sessionStore } from '../../state/session';
import { useStore } from '../../state/store';
import { StateTag } from '../StateTag';
import { actionsFor, useRowAction } from './row-actions';
import type { PagedList } from './usePagedList';
import './list.css';

const SWIPE_COLORS = {
  primary: 'primary',
  warning: 'warning',
  danger: 'danger',
  light: 'light',
  success: 'success',
} as const;

/**
 * Rows are opaque here: screens.config.ts typed each list's row callbacks against its own operation, so the rows
 * only go back to them.
 */
type Row = unknown;

/** The rows of a paged list: loading, failure and empty states, swipe or tap actions, and more pages on scroll. */
export function ListRows({
  list,
  item,
  rowActions,
  empty,
}: {
  list: PagedList<Row>;
  item: ListItem<Row>;
  rowActions?: readonly RowAction<Row>[];
  empty?: string;
}) {
  const navigate = useNavigate();
  const { role } = useStore(sessionStore);
  const runAction = useRowAction();

  const act = async (action: RowAction<Row>, row: Row) => {
    if ('to' in action) return navigate(action.to(row));
    if (await runAction(action, row)) await list.reload();
  };

  const openSheet = (row: Row, actions: RowAction<Row>[]) =>
    actionSheet(
      actions.map((a) => ({ text: a.label, danger: a.color === 'danger', onAction: () => void act(a, row) })),
    );

  if (list.status === 'loading' && list.rows.length === 0) {
    return (
      <div className="list-skeleton" aria-busy="true" aria-label={t.shell.loading}>
        <Skeleton.Title animated />
        <Skeleton.Paragraph lineCount={5} animated />
      </div>
    );
  }
  if (list.status === 'error' && list.rows.length === 0) {
    return (
      <ErrorBlock status="default" title={t.shell.loadFailed} description={t.fetchFailedTryLater}>
        <Button color="primary" onClick={list.reload}>
          {t.shell.retry}
        </Button>
      </ErrorBlock>
    );
  }
  if (list.rows.length === 0) return <ErrorBlock status="empty" title={t.list.empty} description={empty ?? ''} />;
  return (
    <>
      <div className="list-total">{t.list.total(list.total)}</div>
      <List>
        {list.rows.map((row, index) => {
          const actions = actionsFor(rowActions, row, role);
          const tag = item.tag?.(row);
          const extra = item.extra?.(row);
          const entry = (
            <List.Item
              description={item.description?.(row)}
              extra={
                tag ? (
                  <span className="list-extra">
                    {extra}
                    <StateTag value={tag} />
                  </span>
                ) : (
                  extra
                )
              }
              arrowIcon={actions.length > 0}
              onClick={actions.length > 0 ? () => openSheet(row, actions) : undefined}
            >
              {item.title(row)}
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
              {entry}
            </SwipeAction>
          ) : (
            <div key={key}>{entry}</div>
          );
        })}
      </List>
      <InfiniteScroll loadMore={list.loadMore} hasMore={list.hasMore}>
        {list.hasMore ? t.shell.loading : t.list.noMore}
      </InfiniteScroll>
    </>
  );
}
