import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import type { Db } from '../../db/database.js';
import { badParams } from '../../lib/errors.js';
import { writeAudit } from '../../support/audit/repo.js';
import * as passkeys from '../passkeys/repo.js';
import { pauseActiveOfUser } from '../services/repo.js';
import { endUserSessions, type SessionUser } from '../sessions/service.js';
import * as twoFactorRepo from '../two-factor/repo.js';
import { confirmSecondFactor } from '../two-factor/service.js';
import { findLiveById } from '../users/repo.js';
import { confirmOwnPassword } from '../users/service.js';
import * as repo from './repo.js';

/**
 * 注销: a user closes its own account. The request starts a 7-day cooling-off (every session ends at once, running
 * services pause); signing in during it cancels the request; after it the account is closed for good by the sweep
 * (sweeper.ts): personal data erased, the name masked, orders and ledger kept as they are.
 */
export const COOLING_OFF_MS = 7 * 24 * 60 * 60 * 1000;

/** The account name a closed account shows everywhere: unique (the id), and fits the account column. */
export const maskedAccount = (userId: number) => `已注销#${userId}`;

export async function requestClosing(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['UserCloseRequest'],
): Promise<Schemas['AccountClosing']> {
  const user = await findLiveById(app.db, actor.id);
  if (!user) throw badParams('账号不存在');
  await confirmOwnPassword(app, user.id, input.password, '密码错误');
  if (user.twoFactorAt !== null) {
    if (!input.code) throw badParams('你开启了两步验证，请输入验证器上的 6 位数字或一个恢复码');
    await confirmSecondFactor(app, user.id, input.code);
  }
  const now = app.now();
  const pausedServices = await app.db.transaction().execute(async (trx) => {
    if (!(await repo.markClosing(trx, user.id, now))) return null;
    // Nothing is charged during the cooling-off: the services pause with the request, and stay paused if it is
    // cancelled (the user resumes what it wants, as after a ban).
    const paused = await pauseActiveOfUser(trx, user.id, now);
    await endUserSessions(trx, user.id, 'closing', now);
    await writeAudit(
      trx,
      {
        actorId: user.id,
        action: 'user.closing',
        targetType: 'user',
        targetId: user.id,
        after: { closingAt: now, pausedServices: paused },
      },
      now,
    );
    return paused;
  });
  if (pausedServices === null) throw badParams('账号已在注销冷静期内');
  return { closesAt: now + COOLING_OFF_MS, pausedServices };
}

/**
 * Closes one account whose cooling-off is over, in one transaction: the name masked (the counterparties' entries
 * show it through coins/ledger-types shownDescription: the ledger itself is append-only), nickname and e-mail erased,
 * sessions, browsers, passkeys and two-factor data deleted; its services were paused with the request, and nothing
 * resumes them without a session. Orders and ledger entries stay (the balance is forfeited: no entry moves it, the
 * account can no longer be reached). Answers whether this call closed it (another process, or a sign-in just now,
 * may have come first).
 */
export async function closeForGood(db: Db, userId: number, now: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (!(await repo.closeAccount(trx, userId, now - COOLING_OFF_MS, maskedAccount(userId), now))) return false;
    await repo.eraseSignInTraces(trx, userId);
    await passkeys.removeAllOfUser(trx, userId);
    await twoFactorRepo.removeAll(trx, userId);
    await writeAudit(
      trx,
      { actorId: null, action: 'user.closed', targetType: 'user', targetId: userId, after: { closedAt: now } },
      now,
    );
    return true;
  });
}
