import { lazy } from 'react';

/**
 * The draggable bubble brings a gesture and an animation library (23 KB): it comes after the page, never before it.
 * Its lazy import lives here rather than in Frame.tsx so that it is made from the frame's shared chunk
 * (vite/frame-chunk.ts), which already holds the entry's modules: the import then preloads only the bubble's own
 * files, never the entry's stylesheet that index.html carries inline.
 */
export const AnnouncementBubble = lazy(async () => ({
  default: (await import('./AnnouncementBubble')).AnnouncementBubble,
}));
