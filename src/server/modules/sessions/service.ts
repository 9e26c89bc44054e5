import type { Db } from '../../db/database.js';
import type { SignInMethod, UserRole } from '../../db/types.js';
import { keyedHash, newToken } from '../security/tokens.js';
import { newSignIn } from '../notices/events.js';
import { deviceOf, type Device } from './device.js';
import * as repo from './repo.js';

/** Idle sessions end after 7 days; any use slides the end forward, but a session never outlives 30 days. */
export const IDLE_MS = 7 * 24 * 3600 * 1000;
export const ABSOLUTE_MS = 30 * 24 * 3600 * 1000;
/** Sliding writes at most this often per session, so reads stay reads on the hot path. */
const TOUCH_EVERY_MS = 5 * 60 * 1000;

/** Why a session ended; `ended` is one ended from 登录设备 (by its owner on another device, or by an admin). */
export type RevokeReason = 'logout' | 'banned' | 'password' | 'deleted' | 'ended';

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
    },
  };
}

export const endSession = (db: Db, tokenHash: string, now: number) => repo.revokeSession(db, tokenHash, 'logout', now);

export const endUserSessions = (db: Db, userId: number, reason: RevokeReason, now: number) =>
  repo.revokeUserSessions(db, userId, reason, now);

/** Revoked rows are kept until they would have expired, so a late call still learns why (40001). */
export const purgeExpiredSessions = (db: Db, now: number) => repo.deleteSessionsExpiredBefore(db, now);
