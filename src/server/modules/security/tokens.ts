import { createHmac, randomBytes, randomInt } from 'node:crypto';

export const newToken = (): string => randomBytes(32).toString('base64url');

/** Keyed hash for anything secret we must find again (session tokens, captchas): a leaked table is useless alone. */
export const keyedHash = (secret: string, value: string): string =>
  createHmac('sha256', secret).update(value).digest('hex');

/**
 * A reference for a movement, an order or a batch: a letter for its kind, the time in base 36 (so they sort by
 * creation), then 48 random bits in hex (so they cannot be guessed).
 */
export const timeOrderedId = (prefix: string, now: number): string =>
  `${prefix}${now.toString(36)}${randomBytes(6).toString('hex')}`;

export const sixDigitCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

// No 0/O, 1/I/L: codes are read aloud and typed on phones.
const INVITE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const invitationCode = (): string =>
  Array.from({ length: 8 }, () => INVITE_ALPHABET[randomInt(0, INVITE_ALPHABET.length)]).join('');
