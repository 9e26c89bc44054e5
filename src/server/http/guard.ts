import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../modules/context.js';
import { ENDED_MESSAGES, resolveSession, type SessionState } from '../modules/sessions/service.js';
import { AppError, ErrorCode, noPermission } from '../lib/errors.js';
import { mustEnrolTwoFactor } from '../modules/two-factor/policy.js';
import type { OperationSpec } from './openapi.js';
import { readSessionCookie } from './session-cookie.js';

export async function sessionOf(app: AppContext, request: FastifyRequest): Promise<SessionState> {
  const token = readSessionCookie(request);
  return token ? resolveSession(app.db, app.config.sessionSecret, token, app.now()) : { kind: 'none' };
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** Whether an Origin header names this site: its host (and port) as the request reached us. */
function isOwnOrigin(origin: string, request: FastifyRequest): boolean {
  try {
    const parsed = new URL(origin);
    // Compared by host and port: behind a TLS-terminating proxy the scheme we see is not the browser's.
    return parsed.host === new URL(`${parsed.protocol}//${request.host}`).host;
  } catch {
    return false; // "null" (a sandboxed frame, a privacy redirect) or garbage
  }
}

/**
 * Cross-site request forgery, as OWASP's cheat sheet recommends: trust what browsers send by themselves. A request
 * another site made (Sec-Fetch-Site cross-site or same-site, or an Origin that is not ours) is refused; same-origin
 * and none (typed or bookmarked) pass. A client that sends neither header (an old browser, a script) must send
 * X-Requested-With, which a cross-site form cannot set. Answers the refusal, or undefined.
 */
function forgeryRefusal(request: FastifyRequest): string | undefined {
  const site = single(request.headers['sec-fetch-site']);
  const origin = single(request.headers.origin);
  if (site === 'cross-site' || site === 'same-site' || (origin !== undefined && !isOwnOrigin(origin, request))) {
    return '不接受来自其他网站的请求';
  }
  if (site === 'same-origin' || site === 'none' || origin !== undefined) return undefined;
  return request.headers['x-requested-with'] ? undefined : '请求缺少安全校验头，请刷新页面后重试';
}

/**
 * Runs before the body is read: the cross-site check first, then, for operations closed to visitors, the session
 * and the operation's x-roles. Operations open to visitors skip the session lookup (the handler asks for it if it
 * needs it), so a logged-in browser's cookie costs public reads nothing.
 */
export async function guard(
  app: AppContext,
  op: OperationSpec,
  request: FastifyRequest,
): Promise<SessionState | undefined> {
  if (op.stateChanging) {
    const refusal = forgeryRefusal(request);
    if (refusal) throw new AppError(ErrorCode.FORBIDDEN, refusal);
  }
  if (op.roles.includes('visitor')) return undefined;
  const state = await sessionOf(app, request);
  if (state.kind === 'ended') throw new AppError(ErrorCode.SESSION_INVALID, ENDED_MESSAGES[state.reason]);
  if (state.kind === 'none') throw new AppError(ErrorCode.NOT_LOGGED_IN, '请先登录');
  if (!op.roles.includes(state.user.userRole)) throw noPermission();
  if (!op.beforeTwoFactor && mustEnrolTwoFactor(app.config, state.user))
    throw new AppError(ErrorCode.ENROL_TWO_FACTOR, '请先开启两步验证');
  return state;
}
