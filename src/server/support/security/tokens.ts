import { createHmac, randomBytes, randomFillSync, randomInt } from 'node:crypto';

export const newToken = (): string => randomBytes(32).toString('base64url');

/** Keyed hash for anything secret we must find again (session tokens, captchas): a leaked table is useless alone. */
export const keyedHash = (secret: string, value: string): string =>
  createHmac('sha256', secret).update(value).digest('hex');

/**
 * A reference for a movement, an order or a batch: a letter for its kind, the time in base 36 (so they sort by
 * creation), then 48 random bits in hex (so they cannot be guessed).
 */
export const timeOrderedId = (prefix: string, now: number): string => `${prefix}${now.toString(36)}${randomHex(6)}`;

/** Letters and digits a person reads aloud and types back without a mix-up: no 0/O, 1/I/L. */
const READABLE = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

/**
 * An order number a person can read out, copy and find again: the site day (yymmdd, so numbers of one day share a
 * start) then 8 characters of READABLE drawn from the CSPRNG (31^8, about 8.5e11 a day: a repeat, which the unique
 * column would refuse, is out of reach at any realistic number of orders). 14 characters, e.g. 261126K7P2MQXA.
 */
const readable = (length: number) => Array.from({ length }, () => READABLE[randomInt(READABLE.length)]).join('');

export const readableOrderNo = (siteDay: string): string => siteDay.replace(/-/g, '').slice(2) + readable(8);

/**
 * A redeem-code batch number an admin reads out and finds again: B, the site day (yymmdd), 6 characters of READABLE
 * (31^6, about 8.9e8 a day). 13 characters, e.g. B261127K7P2MQ.
 */
export const readableBatchNo = (siteDay: string): string => `B${siteDay.replace(/-/g, '').slice(2)}${readable(6)}`;

/**
 * Random bytes taken from a block the operating system's CSPRNG refills when it runs out: the same randomness as
 * randomBytes, without a call into it per id (a visible share of a coin transfer's CPU). Each byte is handed out once.
 */
const randomBlock = Buffer.alloc(4096);
let randomOffset = randomBlock.length;
function randomHex(bytes: number): string {
  if (randomOffset + bytes > randomBlock.length) {
    randomFillSync(randomBlock);
    randomOffset = 0;
  }
  randomOffset += bytes;
  return randomBlock.toString('hex', randomOffset - bytes, randomOffset);
}

export const sixDigitCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

// No 0/O, 1/I/L: codes are read aloud and typed on phones.
const INVITE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const invitationCode = (): string =>
  Array.from({ length: 8 }, () => INVITE_ALPHABET[randomInt(0, INVITE_ALPHABET.length)]).join('');
