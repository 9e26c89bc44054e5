import { useEffect } from 'react';
import { api, sessionEnded } from '../api';
import { sessionStore, signIn } from '../state/session';
import { reloadSite } from '../state/site';
import { useStore } from '../state/store';
import { onSignedOut, startLive, stopLive } from './stream';
import { useLive } from './useLive';

/** The balance (and the rest of the signed-in user) read again; quiet: nothing the user asked for failed. */
const refreshUser = () => api.call('userGetLogin', { quiet: true }).then(signIn, () => undefined);

// A sign-out closes the stream wherever it happens (the logout button, a 40001 answer, the route guard), whether or
// not the frame that opened it is still mounted: this module is loaded with the frame, and stays loaded.
sessionStore.subscribe(() => {
  if (sessionStore.get().role === 'notLogin') stopLive();
});
// The server ended this session (ban, reset, another device's 登录设备): the sign-in page, with why, at once.
onSignedOut((message) => sessionEnded(message));

/**
 * One event stream per signed-in tab, opened by the frame (only signed-in screens have one, and only they follow
 * events: /login and /register download none of this) and closed at sign-out. Coins that move (a transfer received,
 * an order confirmed, a run charged) update the balance wherever it shows; a save of the site record (another
 * admin's phone, another process) reaches the tab at once. The site record is never polled: it changes a few times a
 * year, and a return to the foreground reads it anyway (state/site.ts).
 */
export function useLiveSession(): void {
  const { role } = useStore(sessionStore);
  const signedIn = role !== 'notLogin';
  useEffect(() => {
    if (signedIn) startLive();
    else stopLive();
  }, [signedIn]);
  useLive(signedIn ? ['balance'] : undefined, refreshUser, { fallback: false });
  useLive(signedIn ? ['site'] : undefined, reloadSite, { fallback: false });
}
