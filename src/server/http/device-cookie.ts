import type { FastifyReply, FastifyRequest } from 'fastify';
import { DEVICE_COOKIE_MAX_AGE_MS } from '../modules/users/device-cookie.js';

/**
 * The device cookies (modules/users/device-cookie.ts), one per account the browser signed in to (`did_<userId>`), so
 * a shared phone stays known to each of its accounts. Sent only to the login operations (`Path=/api/user/login`):
 * nothing else reads them, and every other request stays as light as before.
 */
const PREFIX = 'did_';
const VALUE = /^[0-9a-z.]{1,200}$/;
/** More than a browser keeps for one site's accounts in practice; bounds the work a crafted header can ask for. */
const MOST = 20;

/** The values of the device cookies the request carries (unchecked: the service verifies their signatures). */
export function readDeviceCookies(request: FastifyRequest): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(request.cookies)) {
    if (name.startsWith(PREFIX) && value !== undefined && VALUE.test(value) && values.push(value) === MOST) break;
  }
  return values;
}

export function setDeviceCookie(reply: FastifyReply, userId: number, value: string, secure: boolean): void {
  const maxAge = DEVICE_COOKIE_MAX_AGE_MS / 1000;
  reply.setCookie(`${PREFIX}${userId}`, value, {
    path: '/api/user/login',
    httpOnly: true,
    sameSite: 'lax',
    secure,
    maxAge,
  });
}
