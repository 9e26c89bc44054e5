import { useEffect } from 'react';
import { useLocation } from 'react-router-dom';
import { api } from '../api';
import { sessionStore } from './session';
import { createStore, useStore } from './store';
import { useLive } from '../live/useLive';

/** The caller's unread notices: one indexed count on the server, read on navigation and after marking read. */
export const unreadStore = createStore(0);

let inFlight: Promise<void> | undefined;

/** Reads the count again (one request at a time); a visitor has none, and a failure keeps the last count. */
export function refreshUnread(): Promise<void> {
  if (sessionStore.get().role === 'notLogin') {
    unreadStore.set(0);
    return Promise.resolve();
  }
  inFlight ??= api
    .call('noticeUnread', { quiet: true })
    .then(({ count }) => unreadStore.set(count))
    .catch(() => undefined)
    .finally(() => (inFlight = undefined));
  return inFlight;
}

/** Without the event stream, the badge still moves while the app stays on one screen: a count a minute. */
const UNREAD_FALLBACK_MS = 60_000;

/**
 * The count, read again whenever the route changes (cheap: one indexed count per navigation) and whenever a notice is
 * created or read, in this tab or another, on this phone or another.
 */
export function useUnreadCount(): number {
  const { pathname } = useLocation();
  const { role } = useStore(sessionStore);
  useEffect(() => {
    void refreshUnread();
  }, [pathname, role]);
  useLive(role === 'notLogin' ? undefined : ['notice'], refreshUnread, {
    fallback: { everyMs: UNREAD_FALLBACK_MS },
  });
  return useStore(unreadStore);
}
