import { useEffect } from 'react';
import { FloatingBubble } from 'antd-mobile';
import { alert } from '../feedback';
import { MessageFill } from 'antd-mobile-icons';
import { messages as t } from '../i18n/zh-CN';
import { dialogFlags, markRead } from '../state/dialog-flags';
import { siteStore } from '../state/site';
import { useStore } from '../state/store';

/** The announcement in a dialog with one OK button; OK, Escape (cancel) and a tap on the overlay all close it. */
export function showAnnouncement(title: string, content: string) {
  void alert(title, <div style={{ whiteSpace: 'pre-wrap', maxHeight: '50vh', overflowY: 'auto' }}>{content}</div>);
}

/** The draggable chat bubble, and the announcement shown once per browser session (flag `isRead`). */
export function AnnouncementBubble() {
  const site = useStore(siteStore);
  const { isRead } = useStore(dialogFlags);
  const hasAnnouncement = Boolean(site && (site.noticeAnnouncementTitle || site.noticeAnnouncement));

  useEffect(() => {
    if (!site || isRead || !hasAnnouncement) return;
    markRead('isRead');
    showAnnouncement(site.noticeAnnouncementTitle, site.noticeAnnouncement);
  }, [site, isRead, hasAnnouncement]);

  if (!site) return null;
  return (
    <FloatingBubble
      axis="xy"
      magnetic="x"
      style={{
        '--initial-position-bottom': '96px',
        '--initial-position-right': '16px',
        '--edge-distance': '16px',
        '--z-index': '20',
      }}
      onClick={() => showAnnouncement(site.noticeAnnouncementTitle, site.noticeAnnouncement)}
    >
      <MessageFill fontSize={28} aria-label={t.shell.chat} />
    </FloatingBubble>
  );
}
