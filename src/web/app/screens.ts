import { matchPath } from 'react-router-dom';
import { screens } from '../../../screens.config';
import type { Screen, SignedInRole } from '../config/types';

export { screens };

export const isPublic = (screen: Screen) => screen.access === 'public';

export function canOpen(screen: Screen, role: SignedInRole | 'notLogin'): boolean {
  if (screen.access === 'public') return true;
  return role !== 'notLogin' && screen.access.includes(role);
}

export const findScreen = (pathname: string): Screen | undefined => screens.find((s) => matchPath(s.path, pathname));
