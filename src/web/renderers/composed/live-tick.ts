import { createContext } from 'react';

/**
 * Counts the changes a composed screen has heard of (its `liveOn` events): each part reads its data again, quietly,
 * when it moves. 0 until the first.
 */
export const LiveTick = createContext(0);
