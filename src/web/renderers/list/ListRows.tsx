import { copyText } from '../../feedback/copy';
import { ErrorBlock, InfiniteScroll, List, Skeleton, SwipeAction } from 'antd-mobile';
import { LoadFailed } from '../../shell/LoadFailed';
import { Fragment } from 'react';
import { useNavigate } from 'react-router-dom';
import type { ActionCall, ListItem, Progress, RowAction, TagValue } from '../../config/types';
import { SWIPE_MAX } from '../../config/constants';
import { actionSheet, alert } from '../../feedback';
import { messages as t } from '../../i18n/zh-CN';
import { signedInMessages as w } from '../../i18n/zh-CN-signed-in';
import { sessionStore } from '../../state/session';
import { useStore } from '../../state/store';
import { ProgressLine } from '../ProgressLine';
import { StateTag } from '../StateTag';
import { actionsFor, splitForSwipe, useRowAction } from './row-actions';
import { useChoiceAction } from '../choice-action';
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

/**
 * A row's line of ' · '-separated parts (an order number, a date and time, a note): each part stays whole on a line
 * when it fits, so a narrow phone breaks between parts, not inside a date.
 */
function Segments({ text }: { text: string }) {
  return (
    <>
      {text.split('\n').map((line, i) => (
        <span key={i} className="list-line">
          {line.split(' · ').map((part, j) => (
            <Fragment key={j}>
              {j > 0 && ' · '}
              <span className="list-seg">{part}</span>
            </Fragment>
          ))}
        </span>
      ))}
    </>
  );
}

/** The rows of a paged list: loading, failure and empty states, swipe or tap actions, and more pages on scroll. */
export function ListRows({
  list,
  item,
  rowActions,
  empty,
  highlight,
  open,
  progress,
  onChanged,
  swipeMax = SWIPE_MAX,
}: {
  list: PagedList<Row>;
  item: ListItem<Row>;
  rowActions?: readonly RowAction<Row>[];
  empty?: string;
  /** Rows that stand out (unread notices): bold, with a dot. */
  highlight?: (row: Row) => boolean;
  /** A tap opens the row in a dialog and makes this call quietly behind it (marks a notice read). */
  open?: { call: ActionCall<Row>; dialog: (row: Row) => { title: string; content: string } };
  /** A progress bar under each row (batch tasks). */
  progress?: (row: Row) => Progress;
  /** After a call from a row succeeded; reloads the rows when not given. */
  onChanged?: () => Promise<void>;
  /** Actions the swipe shows at most; the rest behind '更多'. */
  swipeMax?: number;
}) {
  const navigate = useNavigate();
  const { role } = useStore(sessionStore);
  const runAction = useRowAction();
  const choice = useChoiceAction<Row>(() => (onChanged ?? list.reload)());

  const act = async (action: RowAction<Row>, row: Row) => {
    if ('to' in action) return navigate(action.to(row));
    if ('copy' in action) return copyText(action.copy(row));
    if ('choose' in action) {
      choice.start(action.choose, row);
      return;
    }
    if (await runAction(action, row)) await (onChanged ?? list.reload)();
  };

  /** Opening a row: the dialog at once, the call (mark read) quietly behind it. */
  const openRow = async (row: Row, opening: NonNullable<typeof open>) => {
    const { title, content } = opening.dialog(row);
    void alert(title, content);
    if (await runAction({ call: opening.call }, row, { quiet: true })) await (onChanged ?? list.reload)();
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
    return <LoadFailed retry={list.reload} />;
  }
  if (list.rows.length === 0) return <ErrorBlock status="empty" title={w.list.empty} description={empty ?? ''} />;
  return (
    <>
      <div className="list-total">{w.list.total(list.total)}</div>
      <List>
        {list.rows.map((row, index) => {
          const actions = actionsFor(rowActions, row, role);
          const tagged = item.tag?.(row);
          const tags: readonly TagValue[] = !tagged ? [] : Array.isArray(tagged) ? tagged : [tagged as TagValue];
          const tone = item.extraTone?.(row);
          const plainExtra = item.extra?.(row);
          const extra = tone && plainExtra ? <span className={`list-tone-${tone}`}>{plainExtra}</span> : plainExtra;
          const text = item.description?.(row);
          const description = text === undefined ? undefined : <Segments text={text} />;
          const title = item.title(row);
          const entry = (
            <List.Item
              description={
                progress ? (
                  <>
                    {description}
                    <ProgressLine {...progress(row)} />
                  </>
                ) : (
                  description
                )
              }
              extra={
                tags.length > 0 ? (
                  // Several tags stand under the amount, so the row's lines keep their width.
                  <span className={tags.length > 1 ? 'list-extra list-extra-stacked' : 'list-extra'}>
                    {extra}
                    {tags.map((tag) => (
                      <StateTag key={tag.text} value={tag} />
                    ))}
                  </span>
                ) : (
                  extra
                )
              }
              arrowIcon={open !== undefined || actions.length > 0}
              onClick={
                open
                  ? () => void openRow(row, open)
                  : actions.length === 1 && 'to' in actions[0]!
                    ? // A sheet whose only entry is a link would be a tap for nothing: the row opens it.
                      () => void act(actions[0]!, row)
                    : actions.length > 0
                      ? () => openSheet(row, actions)
                      : undefined
              }
            >
              {highlight?.(row) ? (
                <span className="list-row-highlight">
                  <span className="list-row-dot" aria-hidden="true" />
                  {title}
                </span>
              ) : (
                title
              )}
            </List.Item>
          );
          const key = (row as { id?: number }).id ?? index;
          const { swipe, more } = splitForSwipe(actions, swipeMax);
          return actions.length > 0 ? (
            <SwipeAction
              key={key}
              rightActions={[
                ...swipe.map((a, i) => ({
                  key: String(i),
                  text: a.label,
                  color: SWIPE_COLORS[a.color ?? 'light'],
                  onClick: () => void act(a, row),
                })),
                ...(more.length > 0
                  ? [{ key: 'more', text: w.list.more, color: 'light' as const, onClick: () => openSheet(row, more) }]
                  : []),
              ]}
            >
              {entry}
            </SwipeAction>
          ) : (
            <div key={key}>{entry}</div>
          );
        })}
      </List>
      <InfiniteScroll loadMore={list.loadMore} hasMore={list.hasMore}>
        {list.hasMore ? t.shell.loading : w.list.noMore}
      </InfiniteScroll>
      {choice.dialog}
    </>
  );
}
