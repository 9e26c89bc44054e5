import type { Db } from '../../db/database.js';
import type { UserRole } from '../../db/types.js';
import { keyedHash, newToken } from '../security/tokens.js';
import * as repo from './repo.js';

/** Idle sessions end after 7 days; any use slides the end forward, but a session never outlives 30 days. */
export const IDLE_MS = 7 * 24 * 3600 * 1000;
export const ABSOLUTE_MS = 30 * 24 * 3600 * 1000;
/** Sliding writes at most this often per session, so reads stay reads on the hot path. */
const TOUCH_EVERY_MS = 5 * 60 * 1000;

export type RevokeReason = 'logout' | 'banned' | 'password' | 'deleted';

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

export async function startSession(db: Db, secret: string, userId: number, now: number): Promise<string> {
  const token = newToken();
  await repo.insertSession(db, { tokenHash: tokenHash(secret, token), userId, now, expiresAt: now + IDLE_MS });
  return token;
}

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
    },
  };
}

export const endSession = (db: Db, tokenHash: string, now: number) => repo.revokeSession(db, tokenHash, 'logout', now);

export const endUserSessions = (db: Db, userId: number, reason: RevokeReason, now: number) =>
  repo.revokeUserSessions(db, userId, reason, now);

/** Revoked rows are kept until they would have expired, so a late call still learns why (40001). */
export const purgeExpiredSessions = (db: Db, now: number) => repo.deleteSessionsExpiredBefore(db, now);
