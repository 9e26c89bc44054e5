import { useContext, useEffect, useRef, useState } from 'react';
import type { OperationId } from '../../../api/operations';
import { api } from '../../api';
import { LiveTick } from './live-tick';

export type PartData<T> = { status: 'loading' } | { status: 'error'; retry: () => void } | { status: 'ready'; data: T };

/**
 * Reads what a part shows with one operation, again whenever `key` (its arguments as text) changes; a newer read
 * cancels the older one, so a fast range or month switch never shows a stale answer. A null `input` reads nothing.
 */
export function usePartData<T>(operation: OperationId, input: object | null): PartData<T> {
  const key = input === null ? null : JSON.stringify(input);
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<PartData<T>>({ status: 'loading' });
  // A live change reads the same arguments again behind what is shown; new arguments show the loading state.
  const tick = useContext(LiveTick);
  const shown = useRef<string | null>(null);
  useEffect(() => {
    if (key === null) return;
    const controller = new AbortController();
    const quiet = shown.current === key;
    if (!quiet) setState({ status: 'loading' });
    const args = JSON.parse(key) as object;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the part's config checked the arguments against the operation
    (api.call as (op: OperationId, init: any) => Promise<unknown>)(operation, {
      ...args,
      signal: controller.signal,
      quiet: true,
    }).then(
      (data) => {
        if (controller.signal.aborted) return;
        shown.current = key;
        setState({ status: 'ready', data: data as T });
      },
      () =>
        !controller.signal.aborted && !quiet && setState({ status: 'error', retry: () => setAttempt((n) => n + 1) }),
    );
    return () => controller.abort();
  }, [operation, key, attempt, tick]);
  return state;
}
