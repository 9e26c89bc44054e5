import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
} from '@simplewebauthn/server';
import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { lockName } from '../../db/locks.js';
import type { UserRow } from '../../db/types.js';
import { badParams, conflict, forbidden, notFound } from '../../lib/errors.js';
import { cancelClosingOnSignIn } from '../users/closing-cancel.js';
import * as limits from '../../support/limits/service.js';
import { keyedHash } from '../../support/security/tokens.js';
import { takeChallenge } from '../../support/security/repo.js';
import { writeAudit } from '../../support/audit/repo.js';
import { signInFactorChanged } from '../notices/events.js';
import {
  endPasskeySessions,
  endUserSessions,
  forgetPasskeyOf,
  startSession,
  type SessionUser,
  type SignInClient,
} from '../sessions/service.js';
import { liveSiteName } from '../site/repo.js';
import { toLoginUser } from '../users/dto.js';
import * as users from '../users/repo.js';
import { loginFailuresByAddress } from '../users/service.js';
import { CHALLENGE_MS, challengeExpiry, issueChallenge, type ChallengePurpose } from './challenge.js';
import * as repo from './repo.js';

// Passkeys (WebAuthn, through @simplewebauthn/server): an account adds, names and removes them; anyone signs in with
// one without a password, and that counts as two factors (the device, and the user verified on it by fingerprint, face
// or PIN). The relying party is PUBLIC_ORIGIN (lib/public-origin.ts). Challenges are signed, not stored
// (challenge.ts); each is taken once when answered (security/repo.ts). A signature counter that does not move
// forward on an authenticator that counts means a copied credential: refused.

const COUNTER_WENT_BACK = '这个通行密钥的签名计数没有增长，可能被复制过；请在“通行密钥”里移除它，再重新添加';
const UNKNOWN_PASSKEY = '这个通行密钥没有添加到任何账号，或已被移除';
const STALE_CHALLENGE = '通行密钥的请求已过期或已用过，请重试';

const transportsOf = (stored: string) => (stored ? (stored.split(',') as AuthenticatorTransport[]) : undefined);

/** A stable WebAuthn user handle that does not reveal the account's number (the authenticator may show or sync it). */
const userHandle = (secret: string, userId: number) =>
  new Uint8Array(Buffer.from(keyedHash(secret, `webauthn-user\n${userId}`).slice(0, 32), 'hex'));

type PasskeyRow = Awaited<ReturnType<typeof repo.listOfUser>>['records'][number];

const toPasskey = (row: PasskeyRow): Schemas['Passkey'] => ({
  id: row.id,
  userId: row.userId,
  name: row.name,
  synced: row.backedUp === 1,
  createdAt: row.createdAt,
  lastUsedAt: row.lastUsedAt,
});

/**
 * The challenge check handed to simplewebauthn: ours, fresh, for this purpose and account, and answered for the first
 * time (taken now, so a replayed answer fails even in another process). Remembers why it refused, for the message.
 */
function challengeCheck(app: AppContext, purpose: ChallengePurpose, userId: number) {
  const check = {
    refused: false,
    expected: async (answered: string) => {
      const now = app.now();
      const expiresAt = challengeExpiry(app.config.sessionSecret, answered, { purpose, userId }, now);
      const taken =
        expiresAt !== null && (await takeChallenge(app.db, 'passkeyChallengesUsed', answered, expiresAt, now));
      check.refused = !taken;
      return taken;
    },
  };
  return check;
}

export async function list(app: AppContext, actor: SessionUser, query: { current?: number; pageSize?: number }) {
  const page = await repo.listOfUser(app.db, actor.id, query);
  return { ...page, records: page.records.map(toPasskey) };
}

export async function registrationOptions(app: AppContext, actor: SessionUser) {
  if ((await repo.countOfUser(app.db, actor.id)) >= repo.MAX_PASSKEYS)
    throw conflict(`最多添加 ${repo.MAX_PASSKEYS} 个通行密钥，请先移除不用的`);
  const existing = await repo.credentialsOfUser(app.db, actor.id);
  const siteName = await liveSiteName(app.db);
  const options = await generateRegistrationOptions({
    rpName: siteName,
    rpID: app.config.publicOrigin.rpId,
    userName: actor.userAccount,
    userID: userHandle(app.config.sessionSecret, actor.id),
    userDisplayName: actor.userName || actor.userAccount,
    challenge: issueChallenge(app.config.sessionSecret, { purpose: 'register', userId: actor.id }, app.now()),
    timeout: CHALLENGE_MS,
    attestationType: 'none',
    excludeCredentials: existing.map((c) => ({ id: c.credentialId, transports: transportsOf(c.transports) })),
    // A passkey proper: found by the browser without an account name, and the user verified on the device.
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  return { ...options, rp: { name: siteName, id: app.config.publicOrigin.rpId } };
}

export async function add(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['PasskeyAddRequest'],
): Promise<Schemas['Passkey']> {
  const challenge = challengeCheck(app, 'register', actor.id);
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: input.credential,
      expectedChallenge: challenge.expected,
      expectedOrigin: app.config.publicOrigin.origin,
      expectedRPID: app.config.publicOrigin.rpId,
      requireUserVerification: true,
    });
  } catch {
    throw badParams(challenge.refused ? STALE_CHALLENGE : '无法添加这个通行密钥：浏览器的答复无效，请重试');
  }
  if (!verified.verified) throw badParams('无法添加这个通行密钥，请重试');
  const { credential, credentialBackedUp } = verified.registrationInfo;
  const now = app.now();
  const name = input.name.trim() || '通行密钥';
  // The cap holds under concurrent adds: the count and the insert happen under the account's lock.
  const id = await app.db.transaction().execute(async (trx) => {
    await lockName(trx, `passkeys:${actor.id}`);
    if ((await repo.countOfUser(trx, actor.id)) >= repo.MAX_PASSKEYS)
      throw conflict(`最多添加 ${repo.MAX_PASSKEYS} 个通行密钥，请先移除不用的`);
    return repo.insert(trx, {
      userId: actor.id,
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: (credential.transports ?? []).join(','),
      backedUp: credentialBackedUp,
      name,
      now,
    });
  });
  if (id === null) throw conflict('这个通行密钥已经添加过了');
  return { id, userId: actor.id, name, synced: credentialBackedUp, createdAt: now, lastUsedAt: null };
}

/**
 * The user removes one of its passkeys: every other session of the user ends (a change the user makes signs the other
 * devices out); the one making it stays, as a password session if it began with this passkey. Audited, told in the
 * inbox.
 */
export async function remove(app: AppContext, actor: SessionUser, currentSession: string, id: number): Promise<void> {
  const now = app.now();
  await app.db.transaction().execute(async (trx) => {
    const removed = await repo.remove(trx, actor.id, id);
    if (!removed) throw notFound('通行密钥不存在');
    await endUserSessions(trx, actor.id, 'security', now, currentSession);
    await forgetPasskeyOf(trx, currentSession, id);
    await writeAudit(
      trx,
      { actorId: actor.id, action: 'user.passkeyRemove', targetType: 'user', targetId: actor.id, before: removed },
      now,
    );
    await signInFactorChanged(trx, { userId: actor.id, change: `移除了通行密钥“${removed.name}”` }, now);
  });
}

/** 用户详情 → 通行密钥: a user's passkeys as its admin sees them (names and dates, never a key). */
export async function listOfUser(app: AppContext, query: { userId: number; current?: number; pageSize?: number }) {
  if (!(await users.findLiveById(app.db, query.userId))) throw notFound('用户不存在');
  const page = await repo.listOfUser(app.db, query.userId, query);
  return { ...page, records: page.records.map(toPasskey) };
}

/**
 * An admin removes one named passkey of a user (a lost phone): the sessions that began with it end at once; the
 * user's other sessions and factors stay. Audited, told in the user's inbox.
 */
export async function removeOfUser(app: AppContext, actor: SessionUser, userId: number, id: number): Promise<void> {
  if (userId === actor.id) throw badParams('请在“我的 → 通行密钥”里移除自己的通行密钥');
  const now = app.now();
  await app.db.transaction().execute(async (trx) => {
    const removed = await repo.remove(trx, userId, id);
    if (!removed) throw notFound('通行密钥不存在或已被移除');
    await endPasskeySessions(trx, userId, id, 'reset', now);
    await writeAudit(
      trx,
      { actorId: actor.id, action: 'user.passkeyRemove', targetType: 'user', targetId: userId, before: removed },
      now,
    );
    await signInFactorChanged(trx, { userId, change: `移除了你的通行密钥“${removed.name}”`, byAdmin: true }, now);
  });
}

export async function loginOptions(app: AppContext) {
  const options = await generateAuthenticationOptions({
    rpID: app.config.publicOrigin.rpId,
    challenge: issueChallenge(app.config.sessionSecret, { purpose: 'login', userId: 0 }, app.now()),
    timeout: CHALLENGE_MS,
    userVerification: 'required',
    allowCredentials: [],
  });
  return { ...options, rpId: app.config.publicOrigin.rpId };
}

type SignIn = { user: UserRow; passkeyId: number } | { refusal: string };

/** Checks the browser's signature with the passkey it names; the message of the refusal when it does not hold. */
async function verifySignIn(app: AppContext, response: AuthenticationResponseJSON): Promise<SignIn> {
  const passkey = await repo.findByCredentialId(app.db, response.id);
  const user = passkey && (await users.findLiveById(app.db, passkey.userId));
  if (!passkey || !user) return { refusal: UNKNOWN_PASSKEY };
  const challenge = challengeCheck(app, 'login', 0);
  try {
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge.expected,
      expectedOrigin: app.config.publicOrigin.origin,
      expectedRPID: app.config.publicOrigin.rpId,
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
        counter: passkey.counter,
        transports: transportsOf(passkey.transports),
      },
      requireUserVerification: true,
    });
    if (!verified.verified) return { refusal: '通行密钥验证失败' };
    const counted = await repo.advanceCounter(app.db, passkey.id, verified.authenticationInfo.newCounter, app.now());
    return counted ? { user, passkeyId: passkey.id } : { refusal: COUNTER_WENT_BACK };
  } catch (error) {
    if (challenge.refused) return { refusal: STALE_CHALLENGE };
    return { refusal: /counter/i.test((error as Error).message) ? COUNTER_WENT_BACK : '通行密钥验证失败' };
  }
}

/** Signs in with a passkey: a failed attempt counts against the address like a wrong password. */
export async function login(
  app: AppContext,
  input: Schemas['PasskeyLoginRequest'],
  client: SignInClient,
): Promise<{ user: Schemas['LoginUser']; token: string }> {
  const attempt = await limits.beginAttempt(app.db, loginFailuresByAddress(client.address), app.now());
  let outcome: SignIn;
  try {
    outcome = await verifySignIn(app, input.credential);
  } catch (error) {
    await limits.cancelAttempt(app.db, attempt);
    throw error;
  }
  if ('refusal' in outcome) {
    await limits.failAttempt(app.db, attempt, app.now());
    throw badParams(outcome.refusal);
  }
  await limits.cancelAttempt(app.db, attempt);
  const { user, passkeyId } = outcome;
  if (user.status === 'banned') throw forbidden('账号已被封禁，请联系管理员');
  const now = app.now();
  await users.updateUser(app.db, user.id, { lastLoginAt: now });
  await cancelClosingOnSignIn(app.db, user, now);
  const token = await startSession(app.db, app.config.sessionSecret, user.id, now, client, 'passkey', passkeyId);
  return { user: toLoginUser(user, app.config, true), token };
}
