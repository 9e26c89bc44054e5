import { screens } from '../../../screens.config';
import type { Screen, SignedInRole } from '../config/types';

export { screens };

export function canOpen(screen: Pick<Screen, 'access'>, role: SignedInRole | 'notLogin'): boolean {
  if (screen.access === 'public') return true;
  return role !== 'notLogin' && screen.access.includes(role);
}
