import { randomBytes, timingSafeEqual } from 'node:crypto';
import { keyedHash } from '../../support/security/tokens.js';

// A passkey challenge is handed out signed rather than stored: asking for one writes nothing (visitors ask before
// they are anyone), and the answer proves the challenge came from here, for this purpose and account, and is fresh.
// That it is answered once is the repository's job (security/repo.ts takeChallenge), at the moment it is answered.

export const CHALLENGE_MS = 5 * 60 * 1000;

export type ChallengePurpose = 'register' | 'login';

interface Claim {
  purpose: ChallengePurpose;
  /** The account registering; 0 for a sign-in (the passkey itself says whose it is). */
  userId: number;
}

const mac = (secret: string, claim: Claim, expiresAt: number, nonce: string) =>
  keyedHash(secret, `passkey-challenge\n${claim.purpose}\n${claim.userId}\n${expiresAt}\n${nonce}`);

/** The challenge as the authenticator signs it (simplewebauthn sends its UTF-8 bytes, base64url-encoded). */
export function issueChallenge(secret: string, claim: Claim, now: number): string {
  const expiresAt = now + CHALLENGE_MS;
  const nonce = randomBytes(16).toString('hex');
  return `${claim.purpose}.${claim.userId}.${expiresAt}.${nonce}.${mac(secret, claim, expiresAt, nonce)}`;
}

/**
 * Reads a challenge back from the browser's answer (base64url, as clientDataJSON carries it): its expiry when it was
 * ours, for this purpose and account, and still fresh; null otherwise.
 */
export function challengeExpiry(secret: string, answered: string, claim: Claim, now: number): number | null {
  const [purpose, userId, expires, nonce, signature] = Buffer.from(answered, 'base64url').toString('utf8').split('.');
  const expiresAt = Number(expires);
  if (purpose !== claim.purpose || Number(userId) !== claim.userId || !nonce || !signature) return null;
  if (!Number.isSafeInteger(expiresAt) || expiresAt <= now || expiresAt > now + CHALLENGE_MS) return null;
  const expected = Buffer.from(mac(secret, claim, expiresAt, nonce));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? expiresAt : null;
}
