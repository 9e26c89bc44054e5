import { useEffect, useId, useRef } from 'react';
import { createPortal } from 'react-dom';
import { messages as t } from '../i18n/zh-CN';
import { openAnnouncement, type Announcement } from '../state/announcement-open';
import { useStore } from '../state/store';
import { afterNextPaint } from './after-paint';
import { DialogButton, DialogFrame } from './DialogFrame';

export { openAnnouncement, type Announcement } from '../state/announcement-open';

const close = () => openAnnouncement.set(null);

/**
 * The announcement as a modal dialog of the app's own, drawn with the frame: named by its title, focus moved in and
 * given back on close, 确定, Escape and a tap on the mask close it, the page behind does not scroll.
 */
export function AnnouncementDialog({ due }: { due?: Announcement | null }) {
  const opened = useStore(openAnnouncement);
  const shown = opened ?? due;
  if (!shown) return null;
  return createPortal(<Dialog {...shown} withThePage={!opened} />, document.body);
}

/**
 * `withThePage`: drawn with the frame's first render rather than opened on a page already shown. Its focus then moves
 * in once that first frame has painted: focusing at once would make the browser lay out the whole new page inside
 * React's effects, one long task before the first paint, instead of in the paint itself.
 */
function Dialog({ title, content, withThePage }: Announcement & { withThePage: boolean }) {
  const titleId = useId();
  const contentId = useId();
  const ok = useRef<HTMLButtonElement>(null);
  // How it opened, as it opened: the open announcement moving from the frame's render to the store changes nothing.
  const focusAfterPaint = useRef(withThePage);
  useEffect(() => {
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const focus = () => ok.current?.focus();
    let cancelFocus: (() => void) | undefined;
    if (focusAfterPaint.current) cancelFocus = afterNextPaint(focus);
    else focus();
    document.body.classList.add('adm-overflow-hidden');
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') close();
      // One control: Tab stays on it (aria-modal promises the page behind is out of reach).
      if (event.key === 'Tab') {
        event.preventDefault();
        ok.current?.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      cancelFocus?.();
      document.removeEventListener('keydown', onKey);
      document.body.classList.remove('adm-overflow-hidden');
      before?.focus();
    };
  }, []);
  return (
    <DialogFrame
      title={title}
      titleId={titleId}
      contentId={contentId}
      onMaskTap={close}
      actions={
        <DialogButton ref={ok} onClick={close}>
          {t.shell.ok}
        </DialogButton>
      }
    >
      <div id={contentId} style={{ whiteSpace: 'pre-wrap', maxHeight: '50vh', overflowY: 'auto' }}>
        {content}
      </div>
    </DialogFrame>
  );
}
