import type { MenuGroup, Screen, SignedInRole } from '../config/types';
import { canOpen, screens } from './screens';

export interface MenuSection {
  group: MenuGroup;
  entries: Screen[];
}

const ORDER: readonly MenuGroup[] = ['service', 'coins', 'agent', 'admin', 'account'];

/** The entries a role may open, grouped as the screen map says: home and my page are built from this. */
export function menuFor(role: SignedInRole | 'notLogin', groups: readonly MenuGroup[] = ORDER): MenuSection[] {
  return groups
    .map((group) => ({ group, entries: screens.filter((s) => s.menu === group && canOpen(s, role)) }))
    .filter((section) => section.entries.length > 0);
}
