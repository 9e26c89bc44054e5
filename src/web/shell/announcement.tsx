import { useEffect } from 'react';
import { dialogFlags, markRead } from '../state/dialog-flags';
import { siteStore } from '../state/site';
import { useStore } from '../state/store';
import { openAnnouncement } from './AnnouncementDialog';

// The announcement, apart from the bubble that reopens it: the frame shows it once per browser session as soon as the
// site record is there, while the bubble (and its gesture and animation libraries) may still be downloading.

/** The announcement in a dialog with one OK button; OK, Escape and a tap on the mask all close it. */
export function showAnnouncement(title: string, content: string) {
  openAnnouncement.set({ title, content });
}

/** Shows the site's announcement once per browser session (flag `isRead`). */
export function useAnnouncementOnce() {
  const site = useStore(siteStore);
  const { isRead } = useStore(dialogFlags);
  const hasAnnouncement = Boolean(site && (site.noticeAnnouncementTitle || site.noticeAnnouncement));
  useEffect(() => {
    if (!site || isRead || !hasAnnouncement) return;
    markRead('isRead');
    showAnnouncement(site.noticeAnnouncementTitle, site.noticeAnnouncement);
  }, [site, isRead, hasAnnouncement]);
}
