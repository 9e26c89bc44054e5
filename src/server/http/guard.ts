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

/**
 * Runs before the body is read: the anti-CSRF header first (a cross-site form cannot set it), then the session,
 * then the operation's x-roles. Returns the session for the handler.
 */
export async function guard(app: AppContext, op: OperationSpec, request: FastifyRequest): Promise<SessionState> {
  if (op.stateChanging && !request.headers['x-requested-with']) {
    throw new AppError(ErrorCode.FORBIDDEN, '请求缺少安全校验头，请刷新页面后重试');
  }
  const token = readSessionCookie(request);
  const state: SessionState = token ? await resolveSession(app.db, app.config.sessionSecret, token, app.now()) : { kind: 'none' };
  if (op.roles.includes('visitor')) return state;
  if (state.kind === 'ended') throw new AppError(ErrorCode.SESSION_INVALID, ENDED_MESSAGES[state.reason]);
  if (state.kind === 'none') throw new AppError(ErrorCode.NOT_LOGGED_IN, '请先登录');
  if (!op.roles.includes(state.user.userRole)) throw noPermission();
  return state;
}
