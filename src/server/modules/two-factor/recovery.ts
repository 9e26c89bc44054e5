import { randomInt } from 'node:crypto';
import { keyedHash } from '../../support/security/tokens.js';

// Ten one-time recovery codes, shown once at enrolment and stored only as keyed hashes. 10 characters of a 32-letter
// alphabet (50 bits) each: far beyond guessing behind the five-failure lock.

export const RECOVERY_CODE_COUNT = 10;
// No 0/o, 1/l/i: read off paper and typed on phones.
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

export const newRecoveryCode = (): string => {
  const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(0, ALPHABET.length)]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
};

/** Case and the dash do not matter when a code is typed back. */
export const normalizeRecoveryCode = (code: string): string => code.replace(/[-\s]/g, '').toLowerCase();

export const recoveryCodeHash = (secret: string, userId: number, code: string): string =>
  keyedHash(secret, `recovery-code\n${userId}\n${normalizeRecoveryCode(code)}`);
