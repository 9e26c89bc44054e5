import type { Schemas } from '../../api/operations';
import type { LiveKind } from '../config/types';
import { createStore } from '../state/store';

export type { LiveKind };
export type LiveEvent = Schemas['LiveEvent'];

/**
 * `off`: signed out, no stream; `connecting`: opening or reconnecting; `open`: events arrive; `fallback`: the stream
 * cannot open or carries nothing (a refusal, a proxy that buffers it), so screens read again on a timer.
 */
export type LiveStatus = 'off' | 'connecting' | 'open' | 'fallback';
export const liveStatus = createStore<LiveStatus>('off');

/** How long an opened stream may take to deliver its `ready` before it counts as held back by a proxy. */
export const READY_TIMEOUT_MS = 8000;
/** Failures in a row (each without a `ready` between) after which the screens stop waiting and poll. */
const FAILURES_BEFORE_FALLBACK = 3;
/** While falling back, how often the stream is tried again. */
export const RETRY_AFTER_FALLBACK_MS = 60_000;

type Listener = { kinds: ReadonlySet<string> | null; call: (event: LiveEvent) => void };
const listeners = new Set<Listener>();

/**
 * Calls `call` with each event of `kinds` (every event when null), and with `{kind: 'resync'}` whenever events may
 * have been missed (the server said so, or the stream came back after a fallback).
 */
export function subscribeLive(kinds: readonly LiveKind[] | null, call: (event: LiveEvent) => void): () => void {
  const listener: Listener = { kinds: kinds ? new Set(kinds) : null, call };
  listeners.add(listener);
  return () => listeners.delete(listener);
}

let signedOutListener: (message: string) => void = () => undefined;

/** Called when the server ends this tab's session (a ban, a reset, 登录设备 on another phone): the stream's last event. */
export function onSignedOut(listener: (message: string) => void): void {
  signedOutListener = listener;
}

function dispatch(event: LiveEvent) {
  for (const listener of [...listeners])
    if (event.kind === 'resync' || !listener.kinds || listener.kinds.has(event.kind)) listener.call(event);
}

let source: EventSource | null = null;
let readyTimer: ReturnType<typeof setTimeout> | undefined;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let failures = 0;

function clearTimers() {
  clearTimeout(readyTimer);
  clearTimeout(retryTimer);
}

function fallBack() {
  source?.close();
  source = null;
  clearTimers();
  liveStatus.set('fallback');
  retryTimer = setTimeout(connect, RETRY_AFTER_FALLBACK_MS);
}

function connect() {
  clearTimers();
  if (typeof EventSource === 'undefined') {
    liveStatus.set('fallback');
    return;
  }
  const wasFallback = liveStatus.get() === 'fallback';
  liveStatus.set('connecting');
  const stream = new EventSource('/api/events');
  source = stream;
  // No `ready` in time: something between holds the stream back (a buffering proxy); poll instead.
  readyTimer = setTimeout(fallBack, READY_TIMEOUT_MS);
  stream.onmessage = (message: MessageEvent<string>) => {
    let event: LiveEvent;
    try {
      event = JSON.parse(message.data) as LiveEvent;
    } catch {
      return;
    }
    if (event.kind === 'signedOut') {
      // The session is gone: no reconnect (it would be refused), the sign-in page with the reason instead.
      stopLive();
      signedOutListener(event.message);
      return;
    }
    if (event.kind === 'ready') {
      clearTimeout(readyTimer);
      failures = 0;
      const previous = liveStatus.get();
      liveStatus.set('open');
      // Screens that were polling may have read just before a change: one more read closes the gap.
      if (wasFallback || previous === 'fallback') dispatch({ kind: 'resync' });
      return;
    }
    dispatch(event);
  };
  stream.onerror = () => {
    if (source !== stream) return;
    failures++;
    // CLOSED: refused (429 over a cap, 401 signed out) and the browser will not retry; otherwise it reconnects itself.
    if (stream.readyState === EventSource.CLOSED || failures >= FAILURES_BEFORE_FALLBACK) fallBack();
    else {
      liveStatus.set('connecting');
      clearTimeout(readyTimer);
      readyTimer = setTimeout(fallBack, READY_TIMEOUT_MS);
    }
  };
}

/** Opens this tab's one stream (signed in). */
export function startLive(): void {
  if (source || liveStatus.get() !== 'off') return;
  failures = 0;
  connect();
}

/** Closes it (signed out). */
export function stopLive(): void {
  source?.close();
  source = null;
  clearTimers();
  liveStatus.set('off');
}
