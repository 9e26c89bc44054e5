import { FloatingBubble } from 'antd-mobile';
import { MessageFill } from 'antd-mobile-icons';
import { messages as t } from '../i18n/zh-CN';
import { siteStore } from '../state/site';
import { useStore } from '../state/store';
import { showAnnouncement } from './announcement';

/** The draggable chat bubble that opens the announcement again (the frame shows it once by itself). */
export function AnnouncementBubble() {
  const site = useStore(siteStore);
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
