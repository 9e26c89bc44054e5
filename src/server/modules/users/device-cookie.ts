import { randomBytes, timingSafeEqual } from 'node:crypto';
import { keyedHash } from '../../support/security/tokens.js';

/**
 * The device cookie of OWASP's "Slow Down Online Guessing Attacks with Device Cookies": every sign-in leaves the
 * browser a value naming the account (its user id), a random nonce and when it was issued, signed with the session
 * secret. A login that presents a valid one for the account it signs in to comes from a browser the owner has used,
 * and is limited per nonce (users/service `login`) instead of per account and address, so a stranger's wrong
 * passwords never lock the owner's known browsers out. Nothing is stored: the signature is the proof.
 *
 * Value: `<userId>.<issued, base 36>.<nonce, 32 hex>.<HMAC-SHA256, 64 hex>`.
 */
export const DEVICE_COOKIE_MAX_AGE_MS = 365 * 24 * 60 * 60 * 1000;

const VALUE = /^([1-9][0-9]{0,15})\.([0-9a-z]{1,12})\.([0-9a-f]{32})\.([0-9a-f]{64})$/;

const signature = (secret: string, userId: number, issued: string, nonce: string) =>
  keyedHash(secret, `device-cookie:${userId}.${issued}.${nonce}`);

export function issueDeviceCookie(secret: string, userId: number, now: number): string {
  const issued = now.toString(36);
  const nonce = randomBytes(16).toString('hex');
  return `${userId}.${issued}.${nonce}.${signature(secret, userId, issued, nonce)}`;
}

/**
 * The nonce of the first cookie that is a valid device cookie for this user, unexpired; undefined when none is (a
 * forged or altered one, one issued for another account, an expired one: such a browser is unknown).
 */
export function knownDeviceNonce(
  secret: string,
  cookies: readonly string[],
  userId: number,
  now: number,
): string | undefined {
  for (const cookie of cookies) {
    const [, id, issued, nonce, mac] = VALUE.exec(cookie) ?? [];
    if (!id || !issued || !nonce || !mac || Number(id) !== userId) continue;
    // Issued by us (the signature says so), so only its age matters: a year, like the cookie's Max-Age.
    if (now - parseInt(issued, 36) >= DEVICE_COOKIE_MAX_AGE_MS) continue;
    const expected = signature(secret, userId, issued, nonce);
    if (timingSafeEqual(Buffer.from(mac, 'hex'), Buffer.from(expected, 'hex'))) return nonce;
  }
  return undefined;
}
