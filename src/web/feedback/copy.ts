import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { toast } from './index';

/**
 * Copies a text (an invitation code, an order number) and says so; where the clipboard is refused, shows the text.
 * A long text (every problem of a refused file, thousands of lines) brings its own words: `failed` then says the copy
 * did not happen, since a text that long is never put in a toast.
 */
export async function copyText(text: string, said?: { done: string; failed: string }): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    toast(said?.done ?? w.user.copied);
  } catch {
    toast(said?.failed ?? text);
  }
}
