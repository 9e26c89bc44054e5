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
