import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { AppError } from '../../lib/errors.js';
import * as limits from '../../support/limits/service.js';
import { emailOf } from '../users/repo.js';
import type { NewNotice } from './repo.js';

/** At most this many notice mails per user an hour: a service failing every minute must not flood a mailbox. */
export const NOTICE_MAILS_PER_HOUR = 10;

export const noticeMailLimit = (userId: number): limits.Limit => ({
  bucket: `notice-mail:${userId}`,
  max: NOTICE_MAILS_PER_HOUR,
  windowMs: 3_600_000,
  message: '通知邮件过于频繁',
});

/** Whether a service's notice channel (services/notification.ts) asks for notices at all; a success is told only then. */
export const wantsNotice = (channel: Schemas['NotifyChannel']) => channel === 'inbox' || channel === 'email';

/**
 * A copy of an inbox notice by e-mail, for services whose settings ask for it (`notify: email`) and whose owner has
 * bound an address, within the per-user limit (over it, the inbox alone tells). Sent after the notice's transaction
 * committed; a mail failure is logged, never undoes the run.
 */
export async function mailNotice(app: AppContext, channel: Schemas['NotifyChannel'], notice: NewNotice): Promise<void> {
  if (channel !== 'email') return;
  try {
    const email = await emailOf(app.db, notice.userId);
    if (!email) return;
    await limits.consume(app.db, noticeMailLimit(notice.userId), app.now());
    await app.mailer.send({ to: email, subject: notice.title, text: notice.body });
  } catch (err) {
    if (err instanceof AppError) app.log.info({ userId: notice.userId }, 'notice mail over the limit, inbox only');
    else app.log.warn({ err, userId: notice.userId }, 'notice mail failed');
  }
}
