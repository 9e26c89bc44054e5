import type { Db } from '../../db/database.js';
import type { SignInMethod, UserRole } from '../../db/types.js';
import { publish } from '../../live/events.js';
import { keyedHash, newToken } from '../../support/security/tokens.js';
import { newSignIn } from '../notices/events.js';
import { deviceOf, type Device } from './device.js';
import * as repo from './repo.js';
import type { RequestQuery, Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { badParams, noPermission, notFound } from '../../lib/errors.js';
import { mapPage } from '../../db/paging.js';
import { writeAudit } from '../../support/audit/repo.js';

/** Idle sessions end after 7 days; any use slides the end forward, but a session never outlives 30 days. */
export const IDLE_MS = 7 * 24 * 3600 * 1000;
export const ABSOLUTE_MS = 30 * 24 * 3600 * 1000;
/** Sliding writes at most this often per session, so reads stay reads on the hot path. */
const TOUCH_EVERY_MS = 5 * 60 * 1000;

/**
 * Why a session ended; `ended` is one ended from 登录设备 (by its owner on another device, or by an admin); `reset` an
 * admin took a factor away (重置两步验证, or one named passkey); `security` the user changed a factor on another device
 * (turned two-factor off, removed a passkey).
 */
export type RevokeReason = 'logout' | 'banned' | 'password' | 'deleted' | 'ended' | 'reset' | 'security' | 'closing';

/** What the device of an ended session is told: the answer to its next call (40001) and its stream's last event. */
export const ENDED_MESSAGES: Record<RevokeReason, string> = {
  logout: '登录已失效，请重新登录',
  banned: '账号已被封禁，请联系管理员',
  password: '密码已修改，请重新登录',
  deleted: '账号已被删除',
  ended: '这台设备已被退出登录，请重新登录',
  reset: '管理员重置了你的登录验证方式，请重新登录',
  security: '账号的登录验证方式已变更，请重新登录',
  closing: '账号已申请注销，7 天内重新登录即可撤销',
};

/** The signed-in user, as get/login answers it (the contract's LoginUser). */
export interface SessionUser {
  id: number;
  userAccount: string;
  userName: string;
  userRole: UserRole;
  email: string | null;
  invitationCode: string;
  coin: number;
  createdAt: number;
  /** Whether the account has two-factor sign-in on (an admin without it may have to enrol first: two-factor/policy). */
  twoFactor: boolean;
  /** This session began with a passkey, which counts as two factors on its own (two-factor/policy). */
  signedInWithPasskey: boolean;
  /** The version of 用户协议 and 隐私政策 the user last agreed to (modules/policies). */
  policyAccepted: number;
}

export type SessionState =
  { kind: 'none' } | { kind: 'ended'; reason: RevokeReason } | { kind: 'active'; user: SessionUser; tokenHash: string };

/**
 * The keyed hash of a session token, remembered for the tokens seen lately: every authenticated request needs it and
 * the HMAC was a visible share of a cheap request. Only the mapping is kept (a pure function of secret and token);
 * whether the session is still valid is asked of the database on every request, so a logout, ban or password change
 * in any process ends it at once. Bounded, oldest first out; a flood of made-up tokens only costs recomputation.
 */
const TOKEN_HASHES_KEPT = 10_000;
const tokenHashes = new Map<string, Map<string, string>>();
function tokenHash(secret: string, token: string): string {
  let forSecret = tokenHashes.get(secret);
  if (!forSecret) {
    if (tokenHashes.size >= 16) tokenHashes.clear(); // one secret per app; many only in tests
    tokenHashes.set(secret, (forSecret = new Map<string, string>()));
  }
  let hash = forSecret.get(token);
  if (hash === undefined) {
    hash = keyedHash(secret, token);
    if (forSecret.size >= TOKEN_HASHES_KEPT) forSecret.delete(forSecret.keys().next().value!);
    forSecret.set(token, hash);
  }
  return hash;
}

/** Who is signing in, as the request tells it: the User-Agent header and the client address. */
export interface SignInClient {
  userAgent: string | undefined;
  address: string;
}

/**
 * A new session for the user, remembering the device it is on. A sign-in from a browser the user had never signed in
 * from before (and not their first sign-in ever) is told in their inbox, so a stolen password shows.
 */
export async function startSession(
  db: Db,
  secret: string,
  userId: number,
  now: number,
  client: SignInClient,
  signedInWith: SignInMethod = 'password',
  passkeyId: number | null = null,
): Promise<string> {
  const token = newToken();
  const device = deviceOf(client.userAgent);
  const address = client.address.slice(0, 64);
  await repo.insertSession(db, {
    tokenHash: tokenHash(secret, token),
    userId,
    now,
    expiresAt: now + IDLE_MS,
    browser: device.browser,
    system: device.system,
    address,
    signedInWith,
    passkeyId,
  });
  const knewAny = await repo.hasKnownBrowser(db, userId);
  const isNew = await repo.rememberBrowser(db, userId, device.signature, now);
  if (isNew && knewAny) await newSignIn(db, { userId, device: deviceName(device), address }, now);
  return token;
}

/** A device in words: 'Chrome 131 · Android 14', or 未知设备 when the User-Agent said nothing we could read. */
export const deviceName = (d: Pick<Device, 'browser' | 'system'>) =>
  [d.browser, d.system].filter(Boolean).join(' · ') || '未知设备';

/** The public id of a session (登录设备 ends one by it): derived from its hash, so it reveals nothing of the token. */
export const sessionId = (secret: string, hash: string) => keyedHash(secret, `session-id\n${hash}`).slice(0, 16);

export async function resolveSession(db: Db, secret: string, token: string, now: number): Promise<SessionState> {
  const hash = tokenHash(secret, token);
  const row = await repo.findSessionWithUser(db, hash);
  if (!row || row.expiresAt <= now || row.createdAt + ABSOLUTE_MS <= now) return { kind: 'none' };
  // A ban or deletion ends sessions even if the revocation write raced with this read.
  if (row.deletedAt !== null) return { kind: 'ended', reason: 'deleted' };
  if (row.status === 'banned') return { kind: 'ended', reason: 'banned' };
  if (row.revokedAt !== null) return { kind: 'ended', reason: (row.revokeReason ?? 'logout') as RevokeReason };
  if (now - row.lastSeenAt > TOUCH_EVERY_MS) {
    await repo.extendSession(db, hash, now, Math.min(now + IDLE_MS, row.createdAt + ABSOLUTE_MS));
  }
  return {
    kind: 'active',
    tokenHash: hash,
    user: {
      id: row.userId,
      userAccount: row.userAccount,
      userName: row.userName,
      userRole: row.userRole,
      email: row.email,
      invitationCode: row.invitationCode,
      coin: row.coin,
      createdAt: row.userCreatedAt,
      twoFactor: row.twoFactorAt !== null,
      signedInWithPasskey: row.signedInWith === 'passkey',
      policyAccepted: row.policyAccepted,
    },
  };
}

/**
 * Ends sessions and, once the change commits, the event streams they hold in every process (the stream's last event
 * says why, and the phone shows the sign-in page). Every end of a session goes through these.
 */
export async function endSession(db: Db, userId: number, tokenHash: string, reason: RevokeReason, now: number) {
  await repo.revokeSession(db, tokenHash, reason, now);
  await publish(db, signedOut(reason), { sessionsOf: { userId, only: [tokenHash] } });
}

/** Ends every session of the user, or every one but `keep` (the one making a change the user made himself). */
export async function endUserSessions(db: Db, userId: number, reason: RevokeReason, now: number, keep?: string) {
  await repo.revokeUserSessions(db, userId, reason, now, keep);
  await publish(db, signedOut(reason), { sessionsOf: { userId, ...(keep !== undefined ? { except: keep } : {}) } });
}

/** Ends the sessions that began with this passkey (it is being removed): they relied on what no longer exists. */
export async function endPasskeySessions(db: Db, userId: number, passkeyId: number, reason: RevokeReason, now: number) {
  const ended = await repo.revokePasskeySessions(db, userId, passkeyId, reason, now);
  if (ended.length > 0) await publish(db, signedOut(reason), { sessionsOf: { userId, only: ended } });
}

/**
 * The session making a change keeps going, but on what is left: one that began with the passkey being removed counts
 * as a password session from now on (so ADMIN_2FA asks an admin without codes to enrol again).
 */
export const forgetPasskeyOf = (db: Db, tokenHash: string, passkeyId: number) =>
  repo.downgradePasskeySession(db, tokenHash, passkeyId);

const signedOut = (reason: RevokeReason) => ({ kind: 'signedOut' as const, message: ENDED_MESSAGES[reason] });

/** Revoked rows are kept until they would have expired, so a late call still learns why (40001). */
export const purgeExpiredSessions = (db: Db, now: number) => repo.deleteSessionsExpiredBefore(db, now);

// 我的 → 登录设备: the caller's sessions still in use, each ended from here; an admin sees and ends any user's (the
// user detail links to it), and every such end is audited.

function ownerOf(actor: SessionUser, userId: number | undefined): number {
  const owner = userId ?? actor.id;
  if (owner !== actor.id && actor.userRole !== 'admin') throw noPermission('只能管理自己的登录设备');
  return owner;
}

export async function listDevices(
  app: AppContext,
  actor: SessionUser,
  currentHash: string,
  query: RequestQuery<'sessionList'>,
): Promise<Schemas['SessionPage']> {
  const owner = ownerOf(actor, query.userId);
  const page = await repo.sessionPage(app.db, owner, app.now(), ABSOLUTE_MS, query);
  const secret = app.config.sessionSecret;
  return mapPage(page, (s) => ({
    id: sessionId(secret, s.tokenHash),
    userId: owner,
    browser: s.browser,
    system: s.system,
    address: s.address,
    createdAt: Number(s.createdAt),
    lastSeenAt: Number(s.lastSeenAt),
    current: s.tokenHash === currentHash,
  }));
}

export async function endDevice(
  app: AppContext,
  actor: SessionUser,
  currentHash: string,
  body: Schemas['SessionEndRequest'],
): Promise<void> {
  const owner = ownerOf(actor, body.userId);
  const now = app.now();
  const hashes = await repo.liveSessionHashes(app.db, owner, now, ABSOLUTE_MS);
  const hash = hashes.find((h) => sessionId(app.config.sessionSecret, h) === body.id);
  if (hash === undefined) throw notFound('该设备已经退出登录');
  if (hash === currentHash) throw badParams('这是你正在使用的设备，请用“退出登录”');
  await app.db.transaction().execute(async (trx) => {
    await endSession(trx, owner, hash, 'ended', now);
    if (owner !== actor.id)
      await writeAudit(
        trx,
        { actorId: actor.id, action: 'session.end', targetType: 'user', targetId: owner, after: { session: body.id } },
        now,
      );
  });
}

export async function endOtherDevices(app: AppContext, actor: SessionUser, currentHash: string): Promise<number> {
  const now = app.now();
  const others = (await repo.liveSessionHashes(app.db, actor.id, now, ABSOLUTE_MS)).filter((h) => h !== currentHash);
  await endUserSessions(app.db, actor.id, 'ended', now, currentHash);
  return others.length;
}
