import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { resolveSession, type RevokeReason, type SessionState } from '../modules/sessions/service.js';
import { AppError, ErrorCode, noPermission } from './errors.js';
import type { OperationSpec } from './openapi.js';
import { readSessionCookie } from './session-cookie.js';

const ENDED_MESSAGES: Record<RevokeReason, string> = {
  logout: '登录已失效，请重新登录',
  banned: '账号已被封禁，请联系管理员',
  password: '密码已修改，请重新登录',
  deleted: '账号已被删除',
};

export async function sessionOf(app: AppContext, request: FastifyRequest): Promise<SessionState> {
  const token = readSessionCookie(request);
  return token ? resolveSession(app.db, app.config.sessionSecret, token, app.now()) : { kind: 'none' };
}

/**
 * Runs before the body is read: the anti-CSRF header first (a cross-site form cannot set it), then, for operations
 * closed to visitors, the session and the operation's x-roles. Operations open to visitors skip the session lookup
 * (the handler asks for it if it needs it), so a logged-in browser's cookie costs public reads nothing.
 */
export async function guard(app: AppContext, op: OperationSpec, request: FastifyRequest): Promise<SessionState | undefined> {
  if (op.stateChanging && !request.headers['x-requested-with']) {
    throw new AppError(ErrorCode.FORBIDDEN, '请求缺少安全校验头，请刷新页面后重试');
  }
  if (op.roles.includes('visitor')) return undefined;
  const state = await sessionOf(app, request);
  if (state.kind === 'ended') throw new AppError(ErrorCode.SESSION_INVALID, ENDED_MESSAGES[state.reason]);
  if (state.kind === 'none') throw new AppError(ErrorCode.NOT_LOGGED_IN, '请先登录');
  if (!op.roles.includes(state.user.userRole)) throw noPermission();
  return state;
}
