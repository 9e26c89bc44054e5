import { menuLayout } from '../../../screens.config';
import type { MenuGroup, Screen, SignedInRole } from '../config/types';
import { canOpen, screens } from './screens';

export interface MenuSection {
  group: MenuGroup;
  entries: Screen[];
}

/**
 * The entries a role may open on one page (home or my page), in the sections and order the screen map's `menuLayout`
 * gives; sections the role has nothing in are left out.
 */
export function menuFor(role: SignedInRole | 'notLogin', page: keyof typeof menuLayout): MenuSection[] {
  return menuLayout[page]
    .map((group) => ({ group, entries: screens.filter((s) => s.menu === group && canOpen(s, role)) }))
    .filter((section) => section.entries.length > 0);
}
