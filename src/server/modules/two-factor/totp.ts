import { Secret, TOTP } from 'otpauth';

// TOTP as RFC 6238 and every authenticator app read it: SHA-1, 6 digits, 30-second steps, a 160-bit key.

export const PERIOD_MS = 30_000;
/** A code of the step before or after the server's is still taken: a phone's clock may be off by that much. */
const DRIFT_STEPS = 1;

// Checking a code reads only the key; the account and issuer are what an authenticator app shows beside it.
const totpOf = (key: string, account = '', issuer = '') =>
  new TOTP({
    issuer,
    label: account,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD_MS / 1000,
    secret: Secret.fromBase32(key),
  });

/** A new random key, in Base32 (what the QR code carries and what is shown to type in by hand). */
export const newKey = (): string => new Secret({ size: 20 }).base32;

export const otpauthUri = (key: string, account: string, issuer: string): string =>
  totpOf(key, account, issuer).toString();

/** The time step `code` belongs to (within the drift allowed around `now`), or null when it is not a valid code. */
export function stepOf(key: string, code: string, now: number): number | null {
  const delta = totpOf(key).validate({ token: code, timestamp: now, window: DRIFT_STEPS });
  return delta === null ? null : Math.floor(now / PERIOD_MS) + delta;
}
