import { compiledOnce } from '../../db/compiled-once.js';
import type { Db } from '../../db/database.js';
import type { SignInMethod } from '../../db/types.js';
import { paginate, type PageQuery } from '../../db/paging.js';

export async function insertSession(
  db: Db,
  row: {
    tokenHash: string;
    userId: number;
    now: number;
    expiresAt: number;
    browser: string;
    system: string;
    address: string;
    signedInWith: SignInMethod;
    passkeyId: number | null;
  },
) {
  await db
    .insertInto('sessions')
    .values({
      signedInWith: row.signedInWith,
      tokenHash: row.tokenHash,
      userId: row.userId,
      createdAt: row.now,
      lastSeenAt: row.now,
      expiresAt: row.expiresAt,
      browser: row.browser,
      system: row.system,
      address: row.address,
      passkeyId: row.passkeyId,
    })
    .execute();
}

/** A user's sessions still in use: not revoked, not expired (idle or absolute), most recently used first. */
export function liveSessions(db: Db, userId: number, now: number, absoluteMs: number) {
  return db
    .selectFrom('sessions')
    .where('userId', '=', userId)
    .where('revokedAt', 'is', null)
    .where('expiresAt', '>', now)
    .where('createdAt', '>', now - absoluteMs);
}

export const sessionPage = (
  db: Db,
  userId: number,
  now: number,
  absoluteMs: number,
  page: Pick<PageQuery, 'current' | 'pageSize'>,
) =>
  paginate(
    page,
    (limit, offset) =>
      liveSessions(db, userId, now, absoluteMs)
        .select(['tokenHash', 'browser', 'system', 'address', 'createdAt', 'lastSeenAt'])
        .orderBy('lastSeenAt', 'desc')
        .orderBy('createdAt', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
    () => liveSessions(db, userId, now, absoluteMs),
  );

export const liveSessionHashes = async (db: Db, userId: number, now: number, absoluteMs: number) =>
  (await liveSessions(db, userId, now, absoluteMs).select('tokenHash').execute()).map((r) => r.tokenHash);

/** Remembers the browser; answers whether it is new to this user (false when it was known). */
export async function rememberBrowser(db: Db, userId: number, signature: string, now: number): Promise<boolean> {
  const added = await db
    .insertInto('userBrowsers')
    .values({ userId, signature, firstSeenAt: now })
    .onConflict((oc) => oc.columns(['userId', 'signature']).doNothing())
    .returning('signature')
    .executeTakeFirst();
  return added !== undefined;
}

export async function hasKnownBrowser(db: Db, userId: number): Promise<boolean> {
  return (
    (await db.selectFrom('userBrowsers').select('signature').where('userId', '=', userId).executeTakeFirst()) !==
    undefined
  );
}

/** The one query on every authenticated request: the session and the signed-in user (what get/login answers). */
const sessionWithUser = (db: Db, tokenHash: string) =>
  db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.userId')
    .select([
      'sessions.userId',
      'sessions.createdAt',
      'sessions.lastSeenAt',
      'sessions.expiresAt',
      'sessions.revokedAt',
      'sessions.revokeReason',
      'sessions.signedInWith',
      'users.userAccount',
      'users.userName',
      'users.userRole',
      'users.status',
      'users.deletedAt',
      'users.email',
      'users.invitationCode',
      'users.coin',
      'users.createdAt as userCreatedAt',
      'users.twoFactorAt',
      'users.policyAccepted',
    ])
    .where('sessions.tokenHash', '=', tokenHash);

// Every signed-in request makes this lookup: compiled once (db/compiled-once.ts), run with the request's hash.
const sessionLookup = compiledOnce(sessionWithUser, ['<token hash>'] as const);

export const findSessionWithUser = async (db: Db, tokenHash: string) => (await sessionLookup(db, tokenHash))[0];

export async function extendSession(db: Db, tokenHash: string, now: number, expiresAt: number) {
  await db.updateTable('sessions').set({ lastSeenAt: now, expiresAt }).where('tokenHash', '=', tokenHash).execute();
}

export async function revokeSession(db: Db, tokenHash: string, reason: string, now: number) {
  await db
    .updateTable('sessions')
    .set({ revokedAt: now, revokeReason: reason })
    .where('tokenHash', '=', tokenHash)
    .where('revokedAt', 'is', null)
    .execute();
}

export async function revokeUserSessions(db: Db, userId: number, reason: string, now: number, keep?: string) {
  let update = db
    .updateTable('sessions')
    .set({ revokedAt: now, revokeReason: reason })
    .where('userId', '=', userId)
    .where('revokedAt', 'is', null);
  if (keep !== undefined) update = update.where('tokenHash', '!=', keep);
  await update.execute();
}

/** Revokes the live sessions that began with the passkey; answers their hashes (to close their streams). */
export async function revokePasskeySessions(
  db: Db,
  userId: number,
  passkeyId: number,
  reason: string,
  now: number,
): Promise<string[]> {
  const rows = await db
    .updateTable('sessions')
    .set({ revokedAt: now, revokeReason: reason })
    .where('userId', '=', userId)
    .where('passkeyId', '=', passkeyId)
    .where('revokedAt', 'is', null)
    .returning('tokenHash')
    .execute();
  return rows.map((r) => r.tokenHash);
}

/** The session no longer counts as begun with the passkey (removed): it is a password session from now on. */
export async function downgradePasskeySession(db: Db, tokenHash: string, passkeyId: number): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ signedInWith: 'password', passkeyId: null })
    .where('tokenHash', '=', tokenHash)
    .where('passkeyId', '=', passkeyId)
    .execute();
}

export async function deleteSessionsExpiredBefore(db: Db, before: number) {
  await db.deleteFrom('sessions').where('expiresAt', '<', before).execute();
}
