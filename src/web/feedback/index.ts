import { createElement, type ReactNode } from 'react';
import { NOTIFY_MS, TOAST_MS } from '../config/constants';
import { messages as t } from '../i18n/zh-CN';

/**
 * Toasts, dialogs and action sheets, loaded on first use (they are not part of any page's first download). A dialog is
 * named by its title (or its question) for screen readers: antd-mobile's role="dialog" has no name of its own.
 */
let kitLoaded = false;
const kit = () =>
  import('./kit').then((loaded) => {
    kitLoaded = true;
    return loaded;
  });

/** Closes every dialog still open (the session ended under it): the sign-in page shows nothing else. */
export function closeDialogs(): void {
  if (kitLoaded) void kit().then(({ Dialog }) => Dialog.clear());
}

export function toast(content: string, icon?: 'success' | 'fail'): void {
  void kit().then(({ Toast }) => Toast.show({ content, duration: TOAST_MS, ...(icon ? { icon } : {}) }));
}

/** A longer-lived notification (the seed's notify: 3000 ms). */
export function notify(content: string): void {
  void kit().then(({ Toast }) => Toast.show({ content, duration: NOTIFY_MS, position: 'top' }));
}

/** A yes-or-no question; `labels` name its buttons when 确定/取消 would not say what each does. */
export async function confirm(content: string, labels?: { ok: string; cancel: string }): Promise<boolean> {
  const { Dialog } = await kit();
  return Dialog.confirm({
    content,
    confirmText: labels?.ok ?? t.shell.ok,
    cancelText: labels?.cancel ?? t.shell.cancel,
    'aria-label': content,
  });
}

/** A dialog with one OK button; OK, Escape (cancel) and a tap on the overlay all close it. */
export async function alert(title: string, content: ReactNode): Promise<void> {
  const { Dialog } = await kit();
  // A text of several lines (what each payment channel answered) keeps its lines, read from the left.
  const shown =
    typeof content === 'string' && content.includes('\n')
      ? createElement('div', { style: { whiteSpace: 'pre-line', textAlign: 'left' } }, content)
      : content;
  return Dialog.alert({ title, content: shown, confirmText: t.shell.ok, closeOnMaskClick: true, 'aria-label': title });
}

/** A proposal the user takes or leaves (an AI draft): answers true when they take it. */
export async function choose(
  title: string,
  content: ReactNode,
  labels: { accept: string; discard: string },
): Promise<boolean> {
  const { Dialog } = await kit();
  return Dialog.confirm({
    title,
    content,
    confirmText: labels.accept,
    cancelText: labels.discard,
    'aria-label': title,
  });
}

export async function actionSheet(actions: { text: string; danger?: boolean; onAction: () => void }[]): Promise<void> {
  const { showActionMenu } = await kit();
  showActionMenu(actions, t.shell.cancel);
}
