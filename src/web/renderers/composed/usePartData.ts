import { useEffect, useState } from 'react';
import type { OperationId } from '../../../api/operations';
import { api } from '../../api';

export type PartData<T> = { status: 'loading' } | { status: 'error'; retry: () => void } | { status: 'ready'; data: T };

/**
 * Reads what a part shows with one operation, again whenever `key` (its arguments as text) changes; a newer read
 * cancels the older one, so a fast range or month switch never shows a stale answer. A null `input` reads nothing.
 */
export function usePartData<T>(operation: OperationId, input: object | null): PartData<T> {
  const key = input === null ? null : JSON.stringify(input);
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<PartData<T>>({ status: 'loading' });
  useEffect(() => {
    if (key === null) return;
    const controller = new AbortController();
    setState({ status: 'loading' });
    const args = JSON.parse(key) as object;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the part's config checked the arguments against the operation
    (api.call as (op: OperationId, init: any) => Promise<unknown>)(operation, {
      ...args,
      signal: controller.signal,
      quiet: true,
    }).then(
      (data) => !controller.signal.aborted && setState({ status: 'ready', data: data as T }),
      () => !controller.signal.aborted && setState({ status: 'error', retry: () => setAttempt((n) => n + 1) }),
    );
    return () => controller.abort();
  }, [operation, key, attempt]);
  return state;
}
