import { useEffect, useRef } from 'react';
import { useStore } from '../state/store';
import { liveStatus, subscribeLive, type LiveKind } from './stream';

/** Several events in a burst (a batch's chunks, a run claimed then finished) are one read. */
const COALESCE_MS = 250;
/** How often a screen that follows events reads again while the stream is unavailable, unless it says otherwise. */
export const FALLBACK_POLL_MS = 20_000;

export interface LiveOptions {
  /** Without the stream: read every `everyMs` (while `wanted`); `false`: never poll (a rarely changing record). */
  fallback?: { everyMs: number; wanted?: boolean } | false;
}

/**
 * Reads again (`refetch`) when an event of `kinds` arrives, or a resync asks for everything; while the stream cannot
 * open, on a timer instead (not while the tab is hidden). No kinds: nothing at all.
 */
export function useLive(kinds: readonly LiveKind[] | undefined, refetch: () => unknown, options: LiveOptions = {}) {
  const latest = useRef(refetch);
  useEffect(() => {
    latest.current = refetch;
  });
  const key = kinds?.join(',') ?? '';
  useEffect(() => {
    if (key === '') return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unsubscribe = subscribeLive(key.split(',') as LiveKind[], () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        void latest.current();
      }, COALESCE_MS);
    });
    return () => {
      unsubscribe();
      clearTimeout(timer);
    };
  }, [key]);

  const status = useStore(liveStatus);
  const { fallback } = options;
  const polling = key !== '' && fallback !== false && status !== 'open';
  const everyMs = fallback ? fallback.everyMs : FALLBACK_POLL_MS;
  const wanted = fallback ? (fallback.wanted ?? true) : true;
  useEffect(() => {
    if (!polling || !wanted) return;
    const timer = setInterval(() => {
      if (document.visibilityState !== 'hidden') void latest.current();
    }, everyMs);
    return () => clearInterval(timer);
  }, [polling, wanted, everyMs]);
}
