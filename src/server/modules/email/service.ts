import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../../db/errors.js';
import { lockName } from '../../db/locks.js';
import { badParams, conflict, notFound, operationFailed, tooManyRequests } from '../../lib/errors.js';
import * as limits from '../../support/limits/service.js';
import { keyedHash, sixDigitCode } from '../../support/security/tokens.js';
import type { SessionUser } from '../sessions/service.js';
import * as users from '../users/repo.js';
import * as repo from './repo.js';

export const CAPTCHA_TTL_SECONDS = 600;
export const RESEND_AFTER_SECONDS = 60;
const MAX_ATTEMPTS = 5;
const HOUR = 3600 * 1000;

const normalize = (email: string) => email.trim().toLowerCase();
const codeHash = (app: AppContext, userId: number, email: string, code: string) =>
  keyedHash(app.config.sessionSecret, `captcha:${userId}:${email}:${code}`);

async function requireLiveUser(app: AppContext, actor: SessionUser) {
  const user = await users.findLiveById(app.db, actor.id);
  if (!user) throw notFound('用户不存在');
  return user;
}

/**
 * Sends a 6-digit code. One address serves both purposes: a code sent to the bound address unbinds it, a code sent
 * to a new address binds it (only when none is bound yet).
 */
export async function sendCaptcha(
  app: AppContext,
  actor: SessionUser,
  emailAccount: string,
): Promise<Schemas['CaptchaSent']> {
  const email = normalize(emailAccount);
  const user = await requireLiveUser(app, actor);
  if (user.email && user.email !== email) throw badParams('已绑定其他邮箱，请先解绑');
  if (!user.email) {
    const owner = await users.findLiveByEmail(app.db, email);
    if (owner) throw conflict('该邮箱已绑定其他账号');
  }
  const now = app.now();
  const code = sixDigitCode();
  // The 60-second check, the quotas and the new code are one step per user: of calls sent at once, one mails a code.
  const id = await app.db.transaction().execute(async (trx) => {
    await lockName(trx, `captcha:${user.id}`);
    const latest = await repo.latestCaptcha(trx, user.id, email);
    if (latest && now - latest.createdAt < RESEND_AFTER_SECONDS * 1000) {
      const wait = Math.ceil((latest.createdAt + RESEND_AFTER_SECONDS * 1000 - now) / 1000);
      throw tooManyRequests(`验证码已发送，请 ${wait} 秒后再试`, wait);
    }
    await limits.take(
      trx,
      { bucket: `captcha:user:${user.id}`, max: 10, windowMs: HOUR, message: '验证码发送太频繁，请一小时后再试' },
      now,
    );
    await limits.take(
      trx,
      { bucket: `captcha:email:${email}`, max: 5, windowMs: HOUR, message: '该邮箱收到的验证码太多，请一小时后再试' },
      now,
    );
    return repo.insertCaptcha(trx, {
      userId: user.id,
      email,
      codeHash: codeHash(app, user.id, email, code),
      createdAt: now,
      expiresAt: now + CAPTCHA_TTL_SECONDS * 1000,
    });
  });
  try {
    await app.mailer.send({
      to: email,
      subject: '邮箱验证码',
      text: `您的验证码是 ${code}，10 分钟内有效。如果不是您本人操作，请忽略本邮件。`,
    });
  } catch (error) {
    // A code nobody received must not hold back a retry for 60 seconds.
    await repo.deleteCaptcha(app.db, id);
    app.log.error({ err: error, to: email }, 'captcha mail failed');
    throw operationFailed('验证码发送失败，请稍后再试');
  }
  return { resendAfterSeconds: RESEND_AFTER_SECONDS, expiresInSeconds: CAPTCHA_TTL_SECONDS };
}

async function verifyCaptcha(app: AppContext, userId: number, email: string, code: string): Promise<void> {
  const now = app.now();
  const captcha = await repo.latestCaptcha(app.db, userId, email);
  if (!captcha || captcha.consumedAt !== null || captcha.expiresAt <= now) throw badParams('验证码已失效，请重新获取');
  // The try is counted before the code is compared, so guesses sent at once cannot get past the limit.
  const attempt = await repo.takeAttempt(app.db, captcha.id, MAX_ATTEMPTS);
  if (attempt === undefined) throw badParams('验证码错误次数过多，请重新获取');
  if (captcha.codeHash !== codeHash(app, userId, email, code)) {
    const left = MAX_ATTEMPTS - attempt;
    throw badParams(left > 0 ? `验证码错误，还可以再试 ${left} 次` : '验证码错误次数过多，请重新获取');
  }
  if (!(await repo.consumeCaptcha(app.db, captcha.id, now))) throw badParams('验证码已失效，请重新获取');
}

export async function bindEmail(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['EmailCaptchaRequest'],
): Promise<void> {
  const email = normalize(input.emailAccount);
  const user = await requireLiveUser(app, actor);
  if (user.email) throw badParams(user.email === email ? '该邮箱已经绑定' : '已绑定其他邮箱，请先解绑');
  await verifyCaptcha(app, user.id, email, input.captcha);
  try {
    await users.updateUser(app.db, user.id, { email, updatedAt: app.now() });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('该邮箱已绑定其他账号');
    throw error;
  }
}

export async function unbindEmail(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['EmailCaptchaRequest'],
): Promise<void> {
  const email = normalize(input.emailAccount);
  const user = await requireLiveUser(app, actor);
  if (!user.email) throw badParams('还没有绑定邮箱');
  if (user.email !== email) throw badParams('该邮箱不是当前绑定的邮箱');
  await verifyCaptcha(app, user.id, email, input.captcha);
  await users.updateUser(app.db, user.id, { email: null, updatedAt: app.now() });
}
