import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { toast } from './index';

/** Copies a text (an invitation code, an order number) and says so; where the clipboard is refused, shows the text. */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    toast(w.user.copied);
  } catch {
    toast(text);
  }
}

/**
 * Copies a long text (every problem of a refused file, thousands of lines) and says so with `done`; where the
 * clipboard is refused, `failed` says so: a text this long is never put in a toast.
 */
export async function copyLong(text: string, done: string, failed: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    toast(done);
  } catch {
    toast(failed);
  }
}
