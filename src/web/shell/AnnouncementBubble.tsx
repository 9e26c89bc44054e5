import { FloatingBubble } from 'antd-mobile';
import { MessageFill } from 'antd-mobile-icons';
import { messages as t } from '../i18n/zh-CN';
import { siteStore } from '../state/site';
import { useStore } from '../state/store';
import { showAnnouncement } from './announcement';

/**
 * The draggable chat bubble that opens the announcement again (the frame shows it once by itself). At rest it sits in
 * the right end of the tab bar, flush with the screen's edge, where the tabs leave it room (global.css,
 * .app-frame-bubble): it covers no tab, and no content, which scrolls behind the tab bar. Dragged, it snaps to the
 * nearer side edge (magnetic on x), the same distance from it.
 */
export function AnnouncementBubble() {
  const site = useStore(siteStore);
  if (!site) return null;
  return (
    <FloatingBubble
      axis="xy"
      magnetic="x"
      style={{
        // 44 px: the smallest target to tap, and within the tab bar's 49 px.
        '--size': '44px',
        '--initial-position-bottom': 'calc(3px + env(safe-area-inset-bottom))',
        '--initial-position-right': '3px',
        '--edge-distance': '3px',
        '--z-index': '20',
      }}
      onClick={() => showAnnouncement(site.noticeAnnouncementTitle, site.noticeAnnouncement)}
    >
      <MessageFill fontSize={26} aria-label={t.shell.chat} />
    </FloatingBubble>
  );
}
