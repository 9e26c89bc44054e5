import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import { DEVICE_COOKIE_MAX_AGE_MS } from '../modules/users/device-cookie.js';

/**
 * The device cookies (modules/users/device-cookie.ts), one per account the browser signed in to (`did_<userId>`), so
 * a shared phone stays known to each of its accounts. Sent only to the login operations (`Path=/api/user/login`):
 * nothing else reads them, and every other request stays as light as before.
 */
const PREFIX = 'did_';
const PATH = '/api/user/login';
const VALUE = /^[0-9a-z.]{1,200}$/;
/** More than a browser keeps for one site's accounts in practice; bounds the work a crafted header can ask for. */
const MOST = 20;

/** The values of the device cookies the request carries (unchecked: the service verifies their signatures). */
export function readDeviceCookies(headers: IncomingHttpHeaders): string[] {
  const values: string[] = [];
  for (const pair of (headers.cookie ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq === -1 || !pair.slice(0, eq).trim().startsWith(PREFIX)) continue;
    const value = pair.slice(eq + 1).trim();
    if (VALUE.test(value)) values.push(value);
    if (values.length === MOST) break;
  }
  return values;
}

export function setDeviceCookie(reply: FastifyReply, userId: number, value: string, secure: boolean): void {
  // Fastify appends a second Set-Cookie (the session cookie's comes first) rather than replacing it.
  reply.header(
    'set-cookie',
    `${PREFIX}${userId}=${value}; Path=${PATH}; HttpOnly; SameSite=Lax; Max-Age=${DEVICE_COOKIE_MAX_AGE_MS / 1000}${secure ? '; Secure' : ''}`,
  );
}
