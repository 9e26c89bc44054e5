import { createStore } from './store';

/** The site announcement, as a dialog shows it. */
export interface Announcement {
  title: string;
  content: string;
}

/**
 * The announcement on screen, if any: the frame opens it once a session, the bubble again on a tap. A page's own
 * pop-up (the mall's 购买须知) waits while it is open, so the two never stand on top of each other.
 */
export const openAnnouncement = createStore<Announcement | null>(null);
