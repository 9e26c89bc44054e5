import { toString as qrSvg } from 'qrcode';
import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import type { Db } from '../../db/database.js';
import type { UserRow } from '../../db/types.js';
import { badParams, conflict, forbidden, notFound } from '../../lib/errors.js';
import { writeAudit } from '../../support/audit/repo.js';
import * as limits from '../../support/limits/service.js';
import { signInFactorChanged, twoFactorReset } from '../notices/events.js';
import { sealerFor } from '../../support/security/sealed.js';
import { takeChallenge } from '../../support/security/repo.js';
import { endUserSessions, startSession, type SessionUser, type SignInClient } from '../sessions/service.js';
import { liveSiteName } from '../site/repo.js';
import { cancelClosingOnSignIn } from '../users/closing-cancel.js';
import { toLoginUser } from '../users/dto.js';
import * as users from '../users/repo.js';
import { challengeHolds, challengeUserId, CHALLENGE_MS } from './challenge.js';
import { newRecoveryCode, recoveryCodeHash, RECOVERY_CODE_COUNT } from './recovery.js';
import * as passkeys from '../passkeys/repo.js';
import * as repo from './repo.js';
import { newKey, otpauthUri, stepOf } from './totp.js';

// Two-factor sign-in (TOTP, RFC 6238) for any account: enrolment (a key shown once, confirmed by a code), ten
// one-time recovery codes, the login's second step, and turning it off (by the user, or by another admin for a lost
// phone). The key is sealed at rest (security/sealed.ts) and never answered after enrolment.

const FIFTEEN_MINUTES = 15 * 60 * 1000;
const sealer = sealerFor('two-factor totp key v1', 'two_factor_keys.sealed_key');

/** Wrong codes lock like wrong passwords: 5 within 15 minutes lock the account's codes for 15 minutes. */
const codeFailures = (userId: number): limits.Lockout => ({
  bucket: `two-factor-fail:user:${userId}`,
  max: 5,
  windowMs: FIFTEEN_MINUTES,
  lockMs: FIFTEEN_MINUTES,
  message: '验证码错误次数过多，请 15 分钟后再试',
});

type Outcome = 'ok' | 'wrong' | 'replayed';

/** A code from the authenticator: valid within ±1 step, and of a step later than any code taken before. */
async function checkTotp(app: AppContext, userId: number, code: string): Promise<Outcome> {
  const row = await repo.findKey(app.db, userId);
  const key = row && sealer.open(app.config.sessionSecret, row.sealedKey);
  if (!key) return 'wrong';
  const step = stepOf(key, code, app.now());
  if (step === null) return 'wrong';
  return (await repo.takeStep(app.db, userId, step)) ? 'ok' : 'replayed';
}

const checkRecovery = async (app: AppContext, userId: number, code: string): Promise<Outcome> =>
  (await repo.useRecoveryCode(app.db, userId, recoveryCodeHash(app.config.sessionSecret, userId, code), app.now()))
    ? 'ok'
    : 'wrong';

/**
 * Checks a code under the account's lockout: a wrong or replayed code counts as a failure (the fifth locks), a right
 * one forgives the earlier failures. Throws the failure the user reads.
 */
async function withinLockout(app: AppContext, userId: number, check: () => Promise<Outcome>): Promise<void> {
  const attempt = await limits.beginAttempt(app.db, codeFailures(userId), app.now());
  let outcome: Outcome;
  try {
    outcome = await check();
  } catch (error) {
    await limits.cancelAttempt(app.db, attempt);
    throw error;
  }
  if (outcome === 'ok') return limits.forgiveFailures(app.db, attempt);
  await limits.failAttempt(app.db, attempt, app.now());
  throw badParams(outcome === 'replayed' ? '这个验证码已经用过，请等待验证器显示下一个' : '验证码错误');
}

const isTotpCode = (code: string) => /^[0-9]{6}$/.test(code);

/** A code the signed-in user gives to confirm a grave step (closing the account): a TOTP code or a recovery code. */
export const confirmSecondFactor = (app: AppContext, userId: number, code: string): Promise<void> =>
  withinLockout(app, userId, () =>
    isTotpCode(code) ? checkTotp(app, userId, code) : checkRecovery(app, userId, code),
  );

/** The login's second step: the challenge from the password step and a code or a recovery code start the session. */
export async function secondStep(
  app: AppContext,
  input: Schemas['UserLoginSecondStepRequest'],
  client: SignInClient,
): Promise<{ user: Schemas['LoginUser']; token: string }> {
  const userId = challengeUserId(input.challenge);
  const user = userId === null ? undefined : await users.findLiveById(app.db, userId);
  if (
    !user ||
    user.twoFactorAt === null ||
    !challengeHolds(app.config.sessionSecret, input.challenge, { ...user, userId: user.id }, app.now())
  )
    throw badParams('登录已过期，请重新输入密码');
  if (user.status === 'banned') throw forbidden('账号已被封禁，请联系管理员');
  await withinLockout(app, user.id, () =>
    isTotpCode(input.code) ? checkTotp(app, user.id, input.code) : checkRecovery(app, user.id, input.code),
  );
  // One challenge, one sign-in: taken now, in whichever process answers, so it takes no next code.
  if (!(await takeChallenge(app.db, 'loginChallengesUsed', input.challenge, app.now() + CHALLENGE_MS, app.now())))
    throw badParams('登录已过期，请重新输入密码');
  const now = app.now();
  await users.updateUser(app.db, user.id, { lastLoginAt: now });
  await cancelClosingOnSignIn(app.db, user, now);
  const token = await startSession(app.db, app.config.sessionSecret, user.id, now, client, 'two-factor');
  return { user: toLoginUser(user, app.config), token };
}

export async function status(app: AppContext, actor: SessionUser): Promise<Schemas['TwoFactorStatus']> {
  const user = await requireLive(app, actor.id);
  return {
    enabled: user.twoFactorAt !== null,
    enabledAt: user.twoFactorAt,
    recoveryCodesLeft: user.twoFactorAt === null ? 0 : await repo.recoveryCodesLeft(app.db, user.id),
    required: app.config.admin2fa === 'required' && user.userRole === 'admin',
  };
}

async function requireLive(app: AppContext, id: number): Promise<UserRow> {
  const user = await users.findLiveById(app.db, id);
  if (!user) throw notFound('用户不存在');
  return user;
}

/** Starts enrolment: a new key (replacing an unconfirmed one), answered this once as a QR code and as text. */
export async function setup(app: AppContext, actor: SessionUser): Promise<Schemas['TwoFactorSetup']> {
  const user = await requireLive(app, actor.id);
  if (user.twoFactorAt !== null) throw conflict('两步验证已开启');
  const key = newKey();
  await repo.putKey(app.db, user.id, sealer.seal(app.config.sessionSecret, key), app.now());
  const issuer = await liveSiteName(app.db);
  const uri = otpauthUri(key, user.userAccount, issuer);
  return { key, otpauthUri: uri, qrSvg: await qrSvg(uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }) };
}

async function newRecoveryCodes(db: Db, secret: string, userId: number): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await repo.replaceRecoveryCodes(
    db,
    userId,
    codes.map((c) => recoveryCodeHash(secret, userId, c)),
  );
  return codes;
}

/** Confirms enrolment with one valid code: two-factor sign-in counts from now, with ten fresh recovery codes. */
export async function enable(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['TwoFactorCodeRequest'],
): Promise<Schemas['RecoveryCodes']> {
  const user = await requireLive(app, actor.id);
  if (user.twoFactorAt !== null) throw conflict('两步验证已开启');
  if (!(await repo.findKey(app.db, user.id))) throw conflict('请先生成密钥');
  await withinLockout(app, user.id, () => checkTotp(app, user.id, input.code));
  return app.db.transaction().execute(async (trx) => {
    await repo.setEnabledAt(trx, user.id, app.now());
    return { codes: await newRecoveryCodes(trx, app.config.sessionSecret, user.id) };
  });
}

async function requireEnabled(app: AppContext, actor: SessionUser, code: string): Promise<UserRow> {
  const user = await requireLive(app, actor.id);
  if (user.twoFactorAt === null) throw conflict('两步验证尚未开启');
  await withinLockout(app, user.id, () => checkTotp(app, user.id, code));
  return user;
}

/** New recovery codes for a valid code: the old ones stop working. */
export async function regenerateRecoveryCodes(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['TwoFactorCodeRequest'],
): Promise<Schemas['RecoveryCodes']> {
  const user = await requireEnabled(app, actor, input.code);
  // The old codes go and the new ones come in one transaction: never a moment with none, or with both.
  return app.db
    .transaction()
    .execute(async (trx) => ({ codes: await newRecoveryCodes(trx, app.config.sessionSecret, user.id) }));
}

/**
 * The user turns two-factor sign-in off: the key and the recovery codes go, and with them every other session of the
 * user (they may have relied on a code; the one making the change stays). Audited and told in the inbox.
 */
export async function disable(
  app: AppContext,
  actor: SessionUser,
  currentSession: string,
  input: Schemas['TwoFactorCodeRequest'],
): Promise<void> {
  if (app.config.admin2fa === 'required' && actor.userRole === 'admin')
    throw badParams('管理员必须开启两步验证，不能关闭');
  const user = await requireEnabled(app, actor, input.code);
  const now = app.now();
  await app.db.transaction().execute(async (trx) => {
    await repo.removeAll(trx, user.id);
    await endUserSessions(trx, user.id, 'security', now, currentSession);
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: 'user.twoFactorDisable',
        targetType: 'user',
        targetId: user.id,
        before: { twoFactorAt: user.twoFactorAt },
        after: { twoFactorAt: null },
      },
      now,
    );
    await signInFactorChanged(trx, { userId: user.id, change: '关闭了两步验证' }, now);
  });
}

/**
 * Another admin takes every second factor of a user away (a lost phone): TOTP, recovery codes and passkeys, whichever
 * the account has, and ends all of its sessions. Audited, and the user is told in the inbox.
 */
export async function reset(app: AppContext, actor: SessionUser, id: number): Promise<void> {
  if (id === actor.id) throw badParams('不能重置自己的两步验证');
  const target = await requireLive(app, id);
  if (target.twoFactorAt === null && (await passkeys.countOfUser(app.db, id)) === 0)
    throw conflict('该用户没有开启两步验证，也没有通行密钥');
  await resetTwoFactor(app.db, target, actor.id, app.now());
}

/**
 * Turns the user's two-factor sign-in off and removes its passkeys, ends every session of the user (each may have
 * relied on what went), audited (`actorId` null: the server's command line, for an admin locked out with no other
 * admin to reset it) and told in the user's inbox, in one transaction.
 */
export async function resetTwoFactor(
  db: Db,
  target: Pick<UserRow, 'id' | 'twoFactorAt'>,
  actorId: number | null,
  now: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await repo.removeAll(trx, target.id);
    // A lost phone takes its passkeys with it: they go too (the user adds them again after signing in).
    const passkeysRemoved = await passkeys.removeAllOfUser(trx, target.id);
    await endUserSessions(trx, target.id, 'reset', now);
    await writeAudit(
      trx,
      {
        actorId,
        action: 'user.twoFactorReset',
        targetType: 'user',
        targetId: target.id,
        before: { twoFactorAt: target.twoFactorAt },
        after: { twoFactorAt: null, passkeysRemoved },
      },
      now,
    );
    await twoFactorReset(trx, { userId: target.id }, now);
  });
}
