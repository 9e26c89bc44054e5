import type { Handlers } from '../handler-types.js';
import * as passkeys from './service.js';

// The sign-in itself (userLoginPasskey*) is with the other sign-ins in users/handlers.ts: it replaces the session.
export const passkeyHandlers: Pick<Handlers, `passkey${string}` & keyof Handlers> = {
  passkeyList: ({ app, actor, query }) => passkeys.list(app, actor, query),
  passkeyRegistrationOptions: ({ app, actor }) => passkeys.registrationOptions(app, actor),
  passkeyAdd: ({ app, actor, body }) => passkeys.add(app, actor, body),
  passkeyRemove: async (ctx) => {
    await passkeys.remove(ctx.app, ctx.actor, await ctx.currentSessionHash(), ctx.body.id);
    return true;
  },
  passkeyListOfUser: ({ app, query }) => passkeys.listOfUser(app, query),
  passkeyRemoveOfUser: async ({ app, actor, body }) => (
    await passkeys.removeOfUser(app, actor, body.userId, body.id),
    true
  ),
};
