import { useEffect } from 'react';
import { dialogFlags, markRead } from '../state/dialog-flags';
import { siteStore } from '../state/site';
import { useStore } from '../state/store';
import { openAnnouncement, type Announcement } from './AnnouncementDialog';

// The announcement, apart from the bubble that reopens it: the frame shows it once per browser session as soon as the
// site record is there, while the bubble (and its gesture and animation libraries) may still be downloading.

/** The announcement in a dialog with one OK button; OK, Escape and a tap on the mask all close it. */
export function showAnnouncement(title: string, content: string) {
  openAnnouncement.set({ title, content });
}

/**
 * Shows the site's announcement once per browser session (flag `isRead`). Answers the announcement that is due, for
 * the frame to draw in this very render: the dialog's own subscription to the open announcement starts only after
 * the frame's first paint, so opening it from an effect alone would paint the page first and the dialog a frame later.
 * The flag and the open announcement are then stored from a passive effect, after that paint: stores set in a layout
 * effect re-render synchronously inside the commit, which also runs every pending passive effect of the first screen
 * there, in one long task before the page can paint.
 */
export function useAnnouncementOnce(allowed = true): Announcement | null {
  const site = useStore(siteStore);
  const { isRead } = useStore(dialogFlags);
  const hasAnnouncement = Boolean(site && (site.noticeAnnouncementTitle || site.noticeAnnouncement));
  // Not on an error page or the forced enrolment: it stays due, for the next page that can show it.
  const due = allowed && site && !isRead && hasAnnouncement;
  useEffect(() => {
    if (!site || !due) return;
    markRead('isRead');
    showAnnouncement(site.noticeAnnouncementTitle, site.noticeAnnouncement);
  }, [site, due]);
  return due ? { title: site.noticeAnnouncementTitle, content: site.noticeAnnouncement } : null;
}
