import { useEffect } from 'react';
import { useLocation } from 'react-router-dom';
import { api } from '../api';
import { sessionStore } from './session';
import { createStore, useStore } from './store';

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

/** The count, read again whenever the route changes (cheap: one indexed count per navigation). */
export function useUnreadCount(): number {
  const { pathname } = useLocation();
  const { role } = useStore(sessionStore);
  useEffect(() => {
    void refreshUnread();
  }, [pathname, role]);
  return useStore(unreadStore);
}
