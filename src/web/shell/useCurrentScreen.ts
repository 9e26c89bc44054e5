import { useMatches } from 'react-router-dom';
import type { FrameScreen } from '../config/types';

/**
 * The screen config of the deepest matched route (its `handle`, set when the route's chunk has loaded), so the frame
 * never compares paths by hand.
 */
export function useCurrentScreen(): FrameScreen | undefined {
  const matches = useMatches();
  for (let i = matches.length - 1; i >= 0; i--) {
    const handle = matches[i]!.handle as { screen?: FrameScreen } | undefined;
    if (handle?.screen) return handle.screen;
  }
  return undefined;
}
