import { useEffect } from 'react';
import { api } from '../api';
import { sessionStore, signIn } from '../state/session';
import { useStore } from '../state/store';
import { startLive, stopLive } from './stream';
import { useLive } from './useLive';

/** The balance (and the rest of the signed-in user) read again; quiet: nothing the user asked for failed. */
const refreshUser = () => api.call('userGetLogin', { quiet: true }).then(signIn, () => undefined);

/**
 * One event stream per signed-in tab: opened at sign-in, closed at sign-out. Coins that move (a transfer received, an
 * order confirmed, a run charged) update the balance wherever it shows.
 */
export function useLiveSession(): void {
  const { role } = useStore(sessionStore);
  const signedIn = role !== 'notLogin';
  useEffect(() => {
    if (signedIn) startLive();
    else stopLive();
  }, [signedIn]);
  useLive(signedIn ? ['balance'] : undefined, refreshUser, { fallback: false });
}
