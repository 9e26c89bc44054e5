import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import { ABSOLUTE_MS } from '../modules/sessions/service.js';

export const SESSION_COOKIE = 'sid';

/** Reads one cookie without a cookie plugin: this runs on every request and needs nothing else. */
export function readSessionCookie(headers: IncomingHttpHeaders): string | undefined {
  const header = headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

function attributes(secure: boolean, maxAgeSeconds: number): string {
  return `Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

export function setSessionCookie(reply: FastifyReply, token: string, secure: boolean): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=${token}; ${attributes(secure, ABSOLUTE_MS / 1000)}`);
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=; ${attributes(secure, 0)}`);
}
