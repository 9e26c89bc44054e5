import type { FastifyReply, FastifyRequest } from 'fastify';
import { ABSOLUTE_MS } from '../modules/sessions/service.js';

// The session cookie `sid`, through @fastify/cookie (registered in app.ts, which parses the Cookie header).

/** A token's shape: any other value (empty, cut short, garbage) is no session, not a database lookup. */
const TOKEN = /^[A-Za-z0-9_-]{20,100}$/;

export function readSessionCookie(request: FastifyRequest): string | undefined {
  const token = request.cookies.sid;
  return token !== undefined && TOKEN.test(token) ? token : undefined;
}

export function setSessionCookie(reply: FastifyReply, token: string, secure: boolean): void {
  reply.setCookie('sid', token, { path: '/', httpOnly: true, sameSite: 'lax', secure, maxAge: ABSOLUTE_MS / 1000 });
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  reply.clearCookie('sid', { path: '/', httpOnly: true, sameSite: 'lax', secure });
}
