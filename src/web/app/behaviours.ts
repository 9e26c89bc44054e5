import type { Behaviour } from '../config/types';
import { siteChanged } from '../state/site';
import { refreshUnread } from '../state/unread';
import { signOut } from '../state/session';

/**
 * What a screen's `onSaved` or `onChange` names in the map. A record over every name, so a name without its behaviour
 * fails the type check; the map imports no state module, and the state modules never import the map.
 */
export const behaviours: Record<Behaviour, () => Promise<void>> = {
  siteChanged,
  refreshUnread,
  // The form ended the account's sessions (注销账号): this page forgets the user too.
  signedOut: async () => signOut(),
};
