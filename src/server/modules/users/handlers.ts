import type { HandlerContext, Handlers } from '../handler-types.js';
import { mustEnrolTwoFactor } from '../two-factor/policy.js';
import * as twoFactor from '../two-factor/service.js';
import * as passkeys from '../passkeys/service.js';
import { endSession, type SignInClient } from '../sessions/service.js';
import { issueDeviceCookie } from './device-cookie.js';
import { loginUser } from './dto.js';
import * as users from './service.js';

type UserHandlers = Pick<
  Handlers,
  | 'userRegister'
  | 'userLogin'
  | 'userLoginPasskeyOptions'
  | 'userLoginPasskey'
  | 'userLoginSecondStep'
  | 'userLogout'
  | 'userGetLogin'
  | 'userAdd'
  | 'userDelete'
  | 'userBan'
  | 'userUnBan'
  | 'userUpdate'
  | 'userGet'
  | 'userGetUserInfo'
  | 'userList'
  | 'userListPage'
  | 'userUpdateBoss'
  | 'userBossUpdatePassword'
  | 'userUpdatePassword'
  | 'userGetInvitationCode'
  | 'userSubordinate'
>;

type SignInOperation = 'userLogin' | 'userLoginSecondStep' | 'userLoginPasskey';

/** Who is signing in: the browser (for 登录设备) and the client address (for the limits). */
const clientOf = (ctx: HandlerContext<SignInOperation>): SignInClient => ({
  userAgent: ctx.header('user-agent'),
  address: ctx.ip,
});

/**
 * A new session id at every login: a token planted before login is never promoted. And a fresh device cookie: this
 * browser is now known to the account (users/device-cookie.ts), whichever way it signed in.
 */
async function replaceSession(ctx: HandlerContext<SignInOperation>, token: string, userId: number) {
  const previous = await ctx.session();
  if (previous.kind === 'active')
    await endSession(ctx.app.db, previous.user.id, previous.tokenHash, 'logout', ctx.app.now());
  ctx.setSessionCookie(token);
  ctx.setDeviceCookie(userId, issueDeviceCookie(ctx.app.config.sessionSecret, userId, ctx.app.now()));
}

export const userHandlers: UserHandlers = {
  userRegister: ({ app, body, ip }) => users.register(app, body, ip),
  userLogin: async (ctx) => {
    const answer = await users.login(ctx.app, ctx.body, clientOf(ctx), ctx.deviceCookies());
    if ('secondStep' in answer) return answer.secondStep;
    await replaceSession(ctx, answer.token, answer.user.id);
    return answer.user;
  },
  userLoginPasskeyOptions: ({ app }) => passkeys.loginOptions(app),
  userLoginPasskey: async (ctx) => {
    const { user, token } = await passkeys.login(ctx.app, ctx.body, clientOf(ctx));
    await replaceSession(ctx, token, user.id);
    return user;
  },
  userLoginSecondStep: async (ctx) => {
    const { user, token } = await twoFactor.secondStep(ctx.app, ctx.body, clientOf(ctx));
    await replaceSession(ctx, token, user.id);
    return user;
  },
  userLogout: async (ctx) => {
    const current = await ctx.session();
    if (current.kind === 'active')
      await endSession(ctx.app.db, current.user.id, current.tokenHash, 'logout', ctx.app.now());
    ctx.clearSessionCookie();
    return true;
  },
  // The session lookup already read the user: answering needs no second query.
  userGetLogin: async ({ app, actor }) => loginUser(actor, actor.twoFactor, mustEnrolTwoFactor(app.config, actor)),
  userAdd: ({ app, actor, body }) => users.addUser(app, actor, body),
  userDelete: async ({ app, actor, body }) => (await users.deleteUser(app, actor, body.id), true),
  userBan: async ({ app, actor, query }) => (await users.setBanned(app, actor, query.id, true), true),
  userUnBan: async ({ app, actor, query }) => (await users.setBanned(app, actor, query.id, false), true),
  userUpdate: async ({ app, actor, body }) => (await users.updateProfile(app, actor, body), true),
  userGet: ({ app, query }) => users.getForAdmin(app, query.id),
  userGetUserInfo: ({ app, query }) => users.publicProfile(app, query.userAccount),
  userList: ({ app, query }) => users.list(app, query),
  userListPage: ({ app, query }) => users.listPage(app, query),
  userUpdateBoss: ({ app, actor, query }) => users.toggleAgent(app, actor, query.userAccount),
  userBossUpdatePassword: async (ctx) => {
    await users.resetPassword(ctx.app, ctx.actor, await ctx.currentSessionHash(), ctx.body);
    return true;
  },
  userUpdatePassword: async (ctx) => {
    await users.changeOwnPassword(ctx.app, ctx.actor, await ctx.currentSessionHash(), ctx.body);
    return true;
  },
  userGetInvitationCode: ({ app, actor }) => users.ownInvitationCode(app, actor),
  userSubordinate: ({ app, actor, body }) => users.subordinates(app, actor, body),
};
