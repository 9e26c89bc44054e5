import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import { ABSOLUTE_MS } from '../modules/sessions/service.js';

export const SESSION_COOKIE = 'sid';

const PAIR_START = `${SESSION_COOKIE}=`;
const TOKEN = /^[A-Za-z0-9_-]{20,100}$/;
const SEMICOLON = 59;
const SPACE = 32;

/**
 * Reads one cookie without a cookie plugin: this runs on every request and needs nothing else. It looks for `sid=` at
 * the start of a pair (after the header's start or a `;` and spaces) instead of splitting the whole header, which cost
 * a request an array and a string per cookie the browser sends.
 */
export function readSessionCookie(headers: IncomingHttpHeaders): string | undefined {
  const header = headers.cookie;
  if (!header) return undefined;
  for (let at = header.indexOf(PAIR_START); at !== -1; at = header.indexOf(PAIR_START, at + 1)) {
    let before = at - 1;
    while (before >= 0 && header.charCodeAt(before) === SPACE) before--;
    if (before >= 0 && header.charCodeAt(before) !== SEMICOLON) continue; // inside another pair ("xsid=", "a=sid=")
    const end = header.indexOf(';', at);
    const value = header.slice(at + PAIR_START.length, end === -1 ? undefined : end).trim();
    return TOKEN.test(value) ? value : undefined;
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
