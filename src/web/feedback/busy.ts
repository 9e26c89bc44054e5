import { BUSY_AFTER_MS } from '../config/constants';
import { messages as t } from '../i18n/zh-CN';

// Apart from ./index so that the component tests' stand-in for the toasts and dialogs leaves it in place.
const kit = () => import('./kit');

/**
 * '加载中...' over the page while an action without a button of its own (a swipe or action-sheet choice) is under way,
 * once it has taken longer than BUSY_AFTER_MS; its mask takes the taps meanwhile, so nothing is sent twice. Answers the
 * function that takes it away.
 */
export function busyWhile(): () => void {
  let done = false;
  let close: (() => void) | undefined;
  const timer = setTimeout(() => {
    void kit().then(({ Toast }) => {
      if (done) return;
      close = Toast.show({ icon: 'loading', content: t.shell.loading, duration: 0, maskClickable: false }).close;
    });
  }, BUSY_AFTER_MS);
  return () => {
    done = true;
    clearTimeout(timer);
    close?.();
  };
}
