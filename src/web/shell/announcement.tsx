import { useEffect } from 'react';
import { alert } from '../feedback';
import { dialogFlags, markRead } from '../state/dialog-flags';
import { siteStore } from '../state/site';
import { useStore } from '../state/store';

// The announcement, apart from the bubble that reopens it: the frame shows it once per browser session as soon as the
// site record is there, while the bubble (and its gesture and animation libraries) may still be downloading.

/** The announcement in a dialog with one OK button; OK, Escape (cancel) and a tap on the overlay all close it. */
export function showAnnouncement(title: string, content: string) {
  void alert(title, <div style={{ whiteSpace: 'pre-wrap', maxHeight: '50vh', overflowY: 'auto' }}>{content}</div>);
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
