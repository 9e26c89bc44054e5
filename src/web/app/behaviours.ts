import type { Behaviour } from '../config/types';
import { siteChanged } from '../state/site';
import { refreshUnread } from '../state/unread';

/**
 * What a screen's `onSaved` or `onChange` names in the map. A record over every name, so a name without its behaviour
 * fails the type check; the map imports no state module, and the state modules never import the map.
 */
export const behaviours: Record<Behaviour, () => Promise<void>> = {
  siteChanged,
  refreshUnread,
};
