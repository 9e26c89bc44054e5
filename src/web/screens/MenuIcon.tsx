import { menuIcons } from '../app/menu-icons';
import type { MenuEntryIcon } from '../config/types';

const FALLBACK: MenuEntryIcon = { name: 'AppOutline', tint: 'blue' };

/** A menu entry's icon, as the screen map declares it: the glyph in its tint on a soft square of the same hue. */
export function MenuIcon({ icon = FALLBACK, size = 'large' }: { icon?: MenuEntryIcon; size?: 'large' | 'small' }) {
  const Glyph = menuIcons[icon.name];
  return (
    <span className={`menu-icon menu-icon-${size}`} data-tint={icon.tint} aria-hidden>
      <Glyph />
    </span>
  );
}
