import { useMatches } from 'react-router-dom';
import type { Screen } from '../config/types';

/** The screen config of the deepest matched route (its `handle`), so the frame never compares paths by hand. */
export function useCurrentScreen(): Screen | undefined {
  const matches = useMatches();
  for (let i = matches.length - 1; i >= 0; i--) {
    const handle = matches[i]!.handle as { screen?: Screen } | undefined;
    if (handle?.screen) return handle.screen;
  }
  return undefined;
}
