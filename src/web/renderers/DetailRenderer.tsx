import { useEffect, useState } from 'react';
import { Button, ErrorBlock, List } from 'antd-mobile';
import { useSearchParams } from 'react-router-dom';
import type { DetailField, DetailScreen } from '../config/types';
import { api } from '../api';
import { messages as t } from '../i18n/zh-CN';
import { Loading } from '../shell/Loading';

function display(value: unknown, field: DetailField): string {
  if (value === null || value === undefined || value === '') return '—';
  if (field.format === 'time' && typeof value === 'number') return t.format.dateTime(value);
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : JSON.stringify(value);
  return field.labels?.[text] ?? text;
}

/** One record as label/value rows; every value is rendered as text (never as HTML). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the map's details, each checked by detailScreen()
export function DetailRenderer({ screen }: { screen: DetailScreen<any> }) {
  const [params] = useSearchParams();
  const [state, setState] = useState<{ status: 'loading' | 'ready' | 'error'; data?: Record<string, unknown> }>({
    status: 'loading',
  });
  const [attempt, setAttempt] = useState(0);
  const search = params.toString();

  useEffect(() => {
    let live = true;
    setState({ status: 'loading' });
    // The screen map checked args and fields against the operation (detailScreen); here the record is just shown.
    api.call(screen.operation, screen.args(new URLSearchParams(search))).then(
      (data: Record<string, unknown>) => live && setState({ status: 'ready', data }),
      () => live && setState({ status: 'error' }),
    );
    return () => {
      live = false;
    };
  }, [screen, search, attempt]);

  if (state.status === 'loading') return <Loading />;
  if (state.status === 'error' || !state.data) {
    return (
      <ErrorBlock status="default" title={t.shell.loadFailed} description={t.fetchFailedTryLater}>
        <Button color="primary" onClick={() => setAttempt((n) => n + 1)}>
          {t.shell.retry}
        </Button>
      </ErrorBlock>
    );
  }
  return (
    <List mode="card">
      {screen.fields.map((field) => (
        <List.Item key={field.key} extra={display(state.data![field.key], field)}>
          {field.label}
        </List.Item>
      ))}
    </List>
  );
}
