import { api } from '../api';
import { signIn } from './session';

/**
 * Reads the signed-in user again (the balance after a coin movement). A failure is the client's to show (it is not
 * quiet): the screen's own work is done by then.
 */
export async function refreshSession(): Promise<void> {
  try {
    signIn(await api.call('userGetLogin'));
  } catch {
    // the client has shown it
  }
}
