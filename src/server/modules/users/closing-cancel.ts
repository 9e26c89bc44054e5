import type { Db } from '../../db/database.js';
import type { UserRow } from '../../db/types.js';
import { writeAudit } from '../../support/audit/repo.js';
import { closingCancelled } from '../notices/events.js';
import * as repo from './repo.js';

/**
 * 注销's way back (modules/closing starts the 7-day cooling-off): every sign-in (password, second step, passkey)
 * passes here just before its session starts, so a user signing in during its cooling-off keeps the account. Told in
 * the inbox, and audited. Here rather than in modules/closing, which builds on users: nothing in users imports it.
 */
export async function cancelClosingOnSignIn(db: Db, user: Pick<UserRow, 'id' | 'closingAt'>, now: number) {
  if (user.closingAt === null) return;
  await db.transaction().execute(async (trx) => {
    if (!(await repo.clearClosing(trx, user.id, now))) return;
    await writeAudit(
      trx,
      { actorId: user.id, action: 'user.closing.cancel', targetType: 'user', targetId: user.id },
      now,
    );
    await closingCancelled(trx, { userId: user.id }, now);
  });
}
