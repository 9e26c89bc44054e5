import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../../db/errors.js';
import { mapPage, type Page } from '../../db/paging.js';
import type { UserRole, UserRow } from '../../db/types.js';
import { badParams, conflict, forbidden, noPermission, notFound } from '../../lib/errors.js';
import { writeAudit } from '../../support/audit/repo.js';
import { servicesPausedByBan, signInFactorChanged } from '../notices/events.js';
import { countOfUser as countPasskeys } from '../passkeys/repo.js';
import { pauseActiveOfUser } from '../services/repo.js';
import * as limits from '../../support/limits/service.js';
import { DECOY_HASH, hashPassword, verifyPassword } from '../../support/security/passwords.js';
import { invitationCode } from '../../support/security/tokens.js';
import { endUserSessions, startSession, type SessionUser, type SignInClient } from '../sessions/service.js';
import { moveCoins } from '../coins/ledger.js';
import { findLiveSite } from '../site/repo.js';
import { issueChallenge } from '../two-factor/challenge.js';
import { cancelClosingOnSignIn } from './closing-cancel.js';
import { knownDeviceNonce } from './device-cookie.js';
import { toAdminView, toLoginUser, toSubordinate, maskName } from './dto.js';
import * as repo from './repo.js';

const FIFTEEN_MINUTES = 15 * 60 * 1000;
const HOUR = 60 * 60 * 1000;

// Password guessing (OWASP's device cookies, users/device-cookie.ts): a browser with a device cookie for the account
// is limited on its own; the others, unknown browsers, per account and per address. Locking out the unknown ones never
// locks out a known one, so a stranger who knows an account name cannot lock its owner out.
const loginFailuresByDevice = (nonce: string): limits.Lockout => ({
  bucket: `login-fail:device:${nonce}`,
  max: 5,
  windowMs: FIFTEEN_MINUTES,
  lockMs: FIFTEEN_MINUTES,
  message: '这台设备登录失败次数过多，请 15 分钟后再试',
});
const loginFailuresByAccount = (account: string): limits.Lockout => ({
  bucket: `login-fail:acct:${account.toLowerCase()}`,
  max: 5,
  windowMs: FIFTEEN_MINUTES,
  lockMs: FIFTEEN_MINUTES,
  message: '该账号在陌生设备上登录失败次数过多，已暂时锁定陌生设备登录；在常用设备上登录不受影响，或 15 分钟后再试',
});
export const loginFailuresByAddress = (ip: string): limits.Lockout => ({
  bucket: `login-fail:ip:${ip}`,
  max: 20,
  windowMs: FIFTEEN_MINUTES,
  lockMs: FIFTEEN_MINUTES,
  message: '登录失败次数过多，请 15 分钟后再试',
});
const registrationsByAddress = (ip: string): limits.Limit => ({
  bucket: `register:ip:${ip}`,
  max: 10,
  windowMs: HOUR,
  message: '注册太频繁，请稍后再试',
});
/** Wrong passwords given while signed in (a password change, closing the account) lock like sign-in failures. */
const passwordFailuresByUser = (userId: number): limits.Lockout => ({
  bucket: `password-fail:user:${userId}`,
  max: 5,
  windowMs: FIFTEEN_MINUTES,
  lockMs: FIFTEEN_MINUTES,
  message: '原密码错误次数过多，请 15 分钟后再试',
});

async function requireUser(app: AppContext, id: number): Promise<UserRow> {
  const user = await repo.findLiveById(app.db, id);
  if (!user) throw (await repo.isClosed(app.db, id)) ? badParams('该账号已注销，不能再修改') : notFound('用户不存在');
  return user;
}

/** Admin actions never touch other admins or the acting admin itself (no lock-out by mistake). */
function ensureManageable(actor: SessionUser, target: UserRow, what: string): void {
  if (target.id === actor.id) throw badParams(`不能${what}自己`);
  if (target.userRole === 'admin') throw badParams(`不能${what}管理员账号`);
}

/** Inserts a user with a fresh invitation code, retrying the rare code collision; a taken account is 40900. */
async function createUser(
  app: AppContext,
  input: {
    userAccount: string;
    password: string;
    userName?: string;
    userRole: UserRole;
    inviterId: number | null;
    signupBonus?: number;
    /** The policy version the user agreed to on the register screen; 0 (asked at first sign-in) otherwise. */
    policyAccepted?: number;
  },
): Promise<number> {
  if (await repo.accountTaken(app.db, input.userAccount)) throw conflict('账号已被占用');
  const passwordHash = await hashPassword(input.password);
  for (let attempt = 0; ; attempt++) {
    const now = app.now();
    try {
      // The account and its sign-up bonus commit together: no account without its bonus, no bonus without its account.
      return await app.db.transaction().execute(async (trx) => {
        const id = await repo.insertUser(trx, {
          userAccount: input.userAccount,
          userName: input.userName || input.userAccount, // blank is not given
          passwordHash,
          userRole: input.userRole,
          status: 'active',
          email: null,
          invitationCode: invitationCode(),
          inviterId: input.inviterId,
          createdAt: now,
          updatedAt: now,
          lastLoginAt: null,
          deletedAt: null,
          closingAt: null,
          closedAt: null,
          policyAccepted: input.policyAccepted ?? 0,
        });
        if (input.signupBonus && input.signupBonus > 0) {
          await moveCoins(trx, {
            postings: [{ userId: id, amount: input.signupBonus, kind: 'signup_bonus', description: '注册赠送' }],
            reference: `S${id}`,
            actorId: null,
            now,
            metrics: app.metrics,
          });
        }
        return id;
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (await repo.accountTaken(app.db, input.userAccount)) throw conflict('账号已被占用');
      if (attempt >= 5) throw error;
    }
  }
}

export async function register(app: AppContext, input: Schemas['UserRegisterRequest'], ip: string): Promise<number> {
  if (input.userPassword !== input.checkPassword) throw badParams('两次输入的密码不一致');
  await limits.consume(app.db, registrationsByAddress(ip), app.now());
  let inviterId: number | null = null;
  if (input.invitationCode) {
    const inviter = await repo.findLiveByInvitationCode(app.db, input.invitationCode.toUpperCase());
    if (!inviter || inviter.status !== 'active') throw badParams('邀请码不存在，请检查后重试');
    inviterId = inviter.id;
  }
  const site = await findLiveSite(app.db);
  // The register screen sends the version its user read: a text changed in between is read again first.
  if (input.policyVersion !== undefined && input.policyVersion !== (site?.policyVersion ?? 1))
    throw conflict('用户协议或隐私政策刚刚更新过，请重新阅读后再注册');
  const signupBonus = site?.addCoin ?? 0;
  return createUser(app, {
    userAccount: input.userAccount,
    password: input.userPassword,
    userName: input.userName,
    userRole: 'user',
    inviterId,
    signupBonus,
    policyAccepted: input.policyVersion,
  });
}

export async function login(
  app: AppContext,
  input: Schemas['UserLoginRequest'],
  client: SignInClient,
  deviceCookies: readonly string[],
): Promise<{ user: Schemas['LoginUser']; token: string } | { secondStep: Schemas['LoginSecondStep'] }> {
  // Looked up first: a device cookie counts only for the account it was issued for.
  const user = await repo.findLiveByAccount(app.db, input.userAccount);
  const device = user && knownDeviceNonce(app.config.sessionSecret, deviceCookies, user.id, app.now());
  // Every attempt counts as a failure until the password is checked, so guesses sent at once cannot pass the lock.
  const lockouts: limits.Lockout[] = device
    ? [loginFailuresByDevice(device)]
    : [loginFailuresByAccount(input.userAccount), loginFailuresByAddress(client.address)];
  const attempts = await limits.beginAttempts(app.db, lockouts, app.now());
  let valid: boolean;
  try {
    // Verify against a decoy when the account is unknown so both paths take the same time.
    valid = await verifyPassword(input.userPassword, user?.passwordHash ?? DECOY_HASH);
  } catch (error) {
    for (const attempt of attempts) await limits.cancelAttempt(app.db, attempt);
    throw error;
  }
  if (!user || !valid) {
    for (const attempt of attempts) await limits.failAttempt(app.db, attempt, app.now());
    throw badParams('账号或密码错误');
  }
  // Success forgives the failures of the device or of the account's unknown browsers; an address keeps its count.
  const [own, ...others] = attempts;
  if (own) await limits.forgiveFailures(app.db, own);
  for (const attempt of others) await limits.cancelAttempt(app.db, attempt);
  if (user.status === 'banned') throw forbidden('账号已被封禁，请联系管理员');
  const now = app.now();
  // Two-factor sign-in: the password alone starts no session, only the right to offer a code (two-factor/service).
  // A passkey could later satisfy the same second step (another entry of `methods`).
  if (user.twoFactorAt !== null) {
    const issued = issueChallenge(app.config.sessionSecret, { ...user, userId: user.id }, now);
    return { secondStep: { ...issued, methods: ['totp', 'recovery'] } };
  }
  await repo.updateUser(app.db, user.id, { lastLoginAt: now });
  await cancelClosingOnSignIn(app.db, user, now);
  const token = await startSession(app.db, app.config.sessionSecret, user.id, now, client);
  return { user: toLoginUser(user, app.config), token };
}

export async function addUser(app: AppContext, actor: SessionUser, input: Schemas['UserAddRequest']): Promise<number> {
  const id = await createUser(app, {
    userAccount: input.userAccount,
    password: input.userPassword,
    userName: input.userName,
    userRole: input.userRole ?? 'user',
    inviterId: null,
  });
  await writeAudit(
    app.db,
    {
      actorId: actor.id,
      action: 'user.add',
      targetType: 'user',
      targetId: id,
      after: { userAccount: input.userAccount, userRole: input.userRole ?? 'user' },
    },
    app.now(),
  );
  return id;
}

export async function deleteUser(app: AppContext, actor: SessionUser, id: number): Promise<void> {
  const target = await requireUser(app, id);
  ensureManageable(actor, target, '删除');
  const now = app.now();
  await app.db.transaction().execute(async (trx) => {
    await repo.updateUser(trx, id, { deletedAt: now, updatedAt: now });
    await endUserSessions(trx, id, 'deleted', now);
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: 'user.delete',
        targetType: 'user',
        targetId: id,
        before: { deletedAt: null },
        after: { deletedAt: now },
      },
      now,
    );
  });
}

export async function setBanned(app: AppContext, actor: SessionUser, id: number, banned: boolean): Promise<void> {
  const target = await requireUser(app, id);
  ensureManageable(actor, target, banned ? '封禁' : '解封');
  const status = banned ? 'banned' : 'active';
  if (target.status === status) return;
  const now = app.now();
  await app.db.transaction().execute(async (trx) => {
    // A ban stops the charges in its own transaction: no run is planned, claimed or charged for the user after it
    // commits (runs already executing finish; the worker skips any not started). An unban leaves them paused.
    const pausedServices = banned ? await pauseActiveOfUser(trx, id, now) : undefined;
    await repo.updateUser(trx, id, {
      status,
      updatedAt: now,
      ...(pausedServices !== undefined ? { banPausedServices: pausedServices } : {}),
    });
    if (banned) await endUserSessions(trx, id, 'banned', now);
    if (pausedServices) await servicesPausedByBan(trx, { userId: id, count: pausedServices }, now);
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: banned ? 'user.ban' : 'user.unban',
        targetType: 'user',
        targetId: id,
        before: { status: target.status },
        after: pausedServices !== undefined ? { status, pausedServices } : { status },
      },
      now,
    );
  });
}

export async function updateProfile(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['UserUpdateRequest'],
): Promise<void> {
  if (actor.userRole !== 'admin' && actor.id !== input.id) throw noPermission('只能修改自己的资料');
  const target = await requireUser(app, input.id);
  const now = app.now();
  await repo.updateUser(app.db, input.id, { userName: input.userName, updatedAt: now });
  if (actor.id !== input.id) {
    await writeAudit(
      app.db,
      {
        actorId: actor.id,
        action: 'user.update',
        targetType: 'user',
        targetId: input.id,
        before: { userName: target.userName },
        after: { userName: input.userName },
      },
      now,
    );
  }
}

export async function getForAdmin(app: AppContext, id: number): Promise<Schemas['UserAdminView']> {
  const { records } = await repo.listUsers(app.db, { id, pageSize: 1 }, { withTotal: false });
  const user = records[0];
  if (!user) throw notFound('用户不存在');
  return { ...toAdminView(user), passkeys: await countPasskeys(app.db, id) };
}

export async function publicProfile(app: AppContext, userAccount: string): Promise<Schemas['PublicProfile']> {
  const user = await repo.findLiveByAccount(app.db, userAccount);
  if (!user || user.status !== 'active') throw notFound('该账号不存在或不可用');
  return { userAccount: user.userAccount, maskedName: maskName(user.userName) };
}

export async function listPage(app: AppContext, query: repo.UserListQuery): Promise<Page<Schemas['UserAdminView']>> {
  return mapPage(await repo.listUsers(app.db, query, { withTotal: true }), toAdminView);
}

export async function list(app: AppContext, query: repo.UserListQuery): Promise<Schemas['UserAdminView'][]> {
  const { records } = await repo.listUsers(app.db, query, { withTotal: false });
  return records.map(toAdminView);
}

export async function subordinates(
  app: AppContext,
  actor: SessionUser,
  query: Schemas['SubordinateQuery'],
): Promise<Page<Schemas['Subordinate']>> {
  return mapPage(await repo.listUsers(app.db, query, { inviterId: actor.id, withTotal: true }), toSubordinate);
}

/** The seed's update/boss: a user becomes an agent, an agent goes back to a user. */
export async function toggleAgent(
  app: AppContext,
  actor: SessionUser,
  userAccount: string,
): Promise<Schemas['RoleChange']> {
  const target = await repo.findLiveByAccount(app.db, userAccount);
  if (!target) throw notFound('用户不存在');
  if (target.userRole === 'admin') throw badParams('不能修改管理员的角色');
  const userRole = target.userRole === 'agent' ? 'user' : 'agent';
  const now = app.now();
  await app.db.transaction().execute(async (trx) => {
    await repo.updateUser(trx, target.id, { userRole, updatedAt: now });
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: 'user.role',
        targetType: 'user',
        targetId: target.id,
        before: { userRole: target.userRole },
        after: { userRole },
      },
      now,
    );
  });
  return { userAccount: target.userAccount, userRole };
}

/**
 * A new password ends the sessions that relied on the old one: all of the user's, or all but `keep` when the user
 * makes the change himself (the device making it stays signed in). Audited; the user's own change is told in the inbox.
 */
async function replacePassword(
  app: AppContext,
  userId: number,
  password: string,
  change: { actorId: number; keep?: string },
) {
  const passwordHash = await hashPassword(password);
  const now = app.now();
  const own = change.actorId === userId;
  await app.db.transaction().execute(async (trx) => {
    await repo.updateUser(trx, userId, { passwordHash, updatedAt: now });
    await endUserSessions(trx, userId, 'password', now, change.keep);
    await writeAudit(
      trx,
      {
        actorId: change.actorId,
        action: own ? 'user.password.change' : 'user.password.reset',
        targetType: 'user',
        targetId: userId,
        after: own ? { passwordChanged: true } : { passwordReset: true },
      },
      now,
    );
    if (own) await signInFactorChanged(trx, { userId, change: '修改了密码' }, now);
  });
}

export async function resetPassword(
  app: AppContext,
  actor: SessionUser,
  currentSession: string,
  input: Schemas['UserResetPasswordRequest'],
): Promise<void> {
  const target = await requireUser(app, input.id);
  if (target.userRole === 'admin' && target.id !== actor.id) throw badParams('不能重置其他管理员的密码');
  const own = target.id === actor.id;
  await replacePassword(app, target.id, input.newPassword, {
    actorId: actor.id,
    keep: own ? currentSession : undefined,
  });
}

export async function changeOwnPassword(
  app: AppContext,
  actor: SessionUser,
  currentSession: string,
  input: Schemas['UserChangePasswordRequest'],
): Promise<void> {
  if (input.newPassword !== input.checkPassword) throw badParams('两次输入的新密码不一致');
  if (input.newPassword === input.oldPassword) throw badParams('新密码不能与原密码相同');
  await confirmOwnPassword(app, actor.id, input.oldPassword, '原密码错误');
  await replacePassword(app, actor.id, input.newPassword, { actorId: actor.id, keep: currentSession });
}

/**
 * The signed-in user proves it is still itself with its password before a grave step (a new password, closing the
 * account): a wrong one counts toward the same lockout as sign-in failures and is refused with `wrong`.
 */
export async function confirmOwnPassword(app: AppContext, userId: number, password: string, wrong: string) {
  const attempt = await limits.beginAttempt(app.db, passwordFailuresByUser(userId), app.now());
  let valid: boolean;
  try {
    const user = await requireUser(app, userId);
    valid = await verifyPassword(password, user.passwordHash);
  } catch (error) {
    await limits.cancelAttempt(app.db, attempt);
    throw error;
  }
  if (!valid) {
    await limits.failAttempt(app.db, attempt, app.now());
    throw badParams(wrong);
  }
  await limits.forgiveFailures(app.db, attempt);
}

export async function ownInvitationCode(app: AppContext, actor: SessionUser): Promise<Schemas['InvitationCodeView']> {
  const user = await requireUser(app, actor.id);
  return { invitationCode: user.invitationCode };
}

/** First start: an admin account exists, with the configured password or a generated one printed once. */
export async function ensureAdmin(app: AppContext): Promise<{ created: boolean; generatedPassword?: string }> {
  if ((await repo.countAdmins(app.db)) > 0) return { created: false };
  const generatedPassword = app.config.adminPassword ? undefined : generatePassword();
  try {
    await createUser(app, {
      userAccount: app.config.adminAccount,
      password: app.config.adminPassword || generatedPassword!,
      userName: '管理员',
      userRole: 'admin',
      inviterId: null,
    });
  } catch (error) {
    // Another process seeded it first.
    if ((await repo.countAdmins(app.db)) > 0) return { created: false };
    throw error;
  }
  return { created: true, generatedPassword };
}

function generatePassword(): string {
  const alphabet = 'ABCDEFGHJKMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz23456789';
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}
