import type { AppContext } from '../../context.js';
import type { NewNotice } from './repo.js';

/**
 * A copy of an inbox notice by e-mail, for services whose settings ask for it (`notify: email`) and whose owner has
 * bound an address. Sent after the notice's transaction committed; a mail failure is logged, never undoes the run.
 */
export async function mailNotice(app: AppContext, settings: unknown, notice: NewNotice): Promise<void> {
  if ((settings as { notify?: string } | null)?.notify !== 'email') return;
  try {
    const user = await app.db.selectFrom('users').select('email').where('id', '=', notice.userId).executeTakeFirst();
    if (!user?.email) return;
    await app.mailer.send({ to: user.email, subject: notice.title, text: notice.body });
  } catch (err) {
    app.log.warn({ err, userId: notice.userId }, 'notice mail failed');
  }
}
