import { randomBytes, timingSafeEqual } from 'node:crypto';
import { keyedHash } from '../../support/security/tokens.js';

// The half-signed-in state between the password and the second step: a token that is not a session. It names the
// user and its expiry and is signed with the server's secret for this one purpose, over the user's password hash and
// two-factor state too, so a password change or a reset voids it. It grants nothing but the right to offer a code;
// codes are limited per account, so holding it longer than its five minutes is worth nothing. A random nonce makes
// every challenge its own, so the one that completed a sign-in (taken once, security/repo.ts) is never
// another sign-in's too.

export const CHALLENGE_MS = 5 * 60 * 1000;

interface Bound {
  userId: number;
  passwordHash: string;
  twoFactorAt: number | null;
}

const mac = (secret: string, user: Bound, expiresAt: number, nonce: string) =>
  keyedHash(
    secret,
    `login-second-step\n${user.userId}\n${expiresAt}\n${nonce}\n${user.passwordHash}\n${user.twoFactorAt}`,
  );

export function issueChallenge(secret: string, user: Bound, now: number): { challenge: string; expiresAt: number } {
  const expiresAt = now + CHALLENGE_MS;
  const nonce = randomBytes(12).toString('base64url');
  return { challenge: `${user.userId}.${expiresAt}.${nonce}.${mac(secret, user, expiresAt, nonce)}`, expiresAt };
}

/** The user id a challenge names (to look the user up); its signature is checked by `challengeHolds`. */
export function challengeUserId(challenge: string): number | null {
  const id = Number(challenge.split('.')[0]);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

export function challengeHolds(secret: string, challenge: string, user: Bound, now: number): boolean {
  const [, expires, nonce, signature] = challenge.split('.');
  const expiresAt = Number(expires);
  if (!nonce || !signature || !Number.isSafeInteger(expiresAt) || expiresAt <= now) return false;
  const expected = Buffer.from(mac(secret, user, expiresAt, nonce));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
