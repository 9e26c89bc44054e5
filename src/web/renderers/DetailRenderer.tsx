import { copyText } from '../feedback/copy';
import { useEffect, useRef, useState } from 'react';
import { LoadFailed } from '../shell/LoadFailed';
import { Button, List, Result } from 'antd-mobile';
import { useNavigate, useSearchParams } from 'react-router-dom';
import type { DetailField, DetailScreen, ListScreen, Progress, RowAction } from '../config/types';
import { api } from '../api';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { Loading } from '../shell/Loading';
import { sessionStore } from '../state/session';
import { useStore } from '../state/store';
import { useLive } from '../live/useLive';
import { ListRenderer } from './ListRenderer';
import { MissingRecord, namesRecord } from './MissingRecord';
import { actionsFor, useActionButtons } from './list/row-actions';
import { useChoiceAction } from './choice-action';
import { ProgressLine } from './ProgressLine';
import './list/list.css';

function display(value: unknown, field: DetailField): string {
  if (value === null || value === undefined || value === '') return '—';
  if (field.format === 'time' && typeof value === 'number') return w.format.dateTime(value);
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : JSON.stringify(value);
  return field.labels?.[text] ?? text;
}

type Data = Record<string, unknown>;
/** The map checked every callback against the operation's answer (detailScreen); here the record is only passed on. */
type ErasedDetail = Omit<DetailScreen, 'progress' | 'poll' | 'actions' | 'downloads' | 'instead'> & {
  progress?: (data: Data) => Progress;
  instead?: (data: Data) => string | null;
  poll?: { everyMs: number; while: (data: Data) => boolean };
  actions?: readonly RowAction<Data>[];
  downloads?: readonly { label: string; href: (data: Data) => string; when?: (data: Data) => boolean }[];
};

/**
 * One record as label/value rows (every value as text, never HTML), with an optional progress bar, actions, file
 * downloads and a list composed below; read again on `liveOn` events (on a timer while `poll.while` holds, without
 * the event stream).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the map's details, each checked by detailScreen()
export function DetailRenderer({ screen: typed }: { screen: DetailScreen<any> }) {
  const screen = typed as unknown as ErasedDetail;
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const { role } = useStore(sessionStore);
  const { runAction, pending, press } = useActionButtons();
  const [state, setState] = useState<{ status: 'loading' | 'ready' | 'error'; data?: Data }>({
    status: 'loading',
  });
  const [attempt, setAttempt] = useState(0);
  const choice = useChoiceAction<Data>(() => setAttempt((n) => n + 1));
  const search = params.toString();
  const loaded = useRef(false);
  // Asking the server for record 0 would only answer '编号不能小于 1': the link lost its record, say that instead.
  const missing = !namesRecord(params.get(screen.recordParam ?? 'id'));

  useEffect(() => {
    if (missing) return;
    let live = true;
    // A poll reads again behind the record shown; only the first read shows the loading state.
    if (!loaded.current) setState({ status: 'loading' });
    api.call(screen.operation, screen.args(new URLSearchParams(search))).then(
      (answer) => {
        if (!live) return;
        loaded.current = true;
        setState({ status: 'ready', data: answer as Data });
      },
      () => live && !loaded.current && setState({ status: 'error' }),
    );
    return () => {
      live = false;
    };
  }, [screen, search, attempt, missing]);

  // Read again (quietly: the record stays shown) as things change; without the stream, on the poll while it holds.
  const { poll } = screen;
  useLive(
    screen.liveOn,
    () => setAttempt((n) => n + 1),
    poll && { fallback: { everyMs: poll.everyMs, wanted: state.data !== undefined && poll.while(state.data) } },
  );

  if (missing) return <MissingRecord listPath={screen.recordOf} purpose="view" />;
  if (state.status === 'loading') return <Loading />;
  if (state.status === 'error' || !state.data) {
    return <LoadFailed retry={() => setAttempt((n) => n + 1)} />;
  }
  const data = state.data;
  const actions = actionsFor(screen.actions, data, role);
  const downloads = (screen.downloads ?? []).filter((d) => d.when?.(data) ?? true);
  const act = (action: RowAction<Data>) =>
    press(action.label, async () => {
      if ('to' in action) return navigate(action.to(data));
      if ('copy' in action) return copyText(action.copy(data));
      if ('choose' in action) {
        choice.start(action.choose, data);
        return;
      }
      if (await runAction(action, data)) setAttempt((n) => n + 1);
    });
  const insteadOfBelow = screen.instead?.(data);
  return (
    <>
      {screen.progress && (
        <div className="detail-progress">
          <ProgressLine {...screen.progress(data)} />
        </div>
      )}
      <List mode="card">
        {screen.fields.map((field) => (
          <List.Item key={field.key} extra={display(data[field.key], field)}>
            {field.label}
          </List.Item>
        ))}
      </List>
      {(actions.length > 0 || downloads.length > 0) && (
        <div className="detail-actions">
          {actions.map((a) => (
            <Button
              key={a.label}
              size="small"
              color={a.color === 'light' || a.color === 'success' ? 'default' : (a.color ?? 'default')}
              loading={pending === a.label}
              disabled={pending !== null}
              onClick={() => void act(a)}
            >
              {a.label}
            </Button>
          ))}
          {downloads.map((d) => (
            <a key={d.label} className="list-download" href={d.href(data)} download>
              {d.label}
            </a>
          ))}
        </div>
      )}
      {insteadOfBelow ? (
        <Result status="success" title={insteadOfBelow} className="detail-instead" />
      ) : (
        screen.below?.kind === 'list' && <ListRenderer screen={screen.below as ListScreen} />
      )}
      {choice.dialog}
    </>
  );
}
