import type { Handlers } from '../handler-types.js';
import * as twoFactor from './service.js';

export const twoFactorHandlers: Pick<Handlers, `twoFactor${string}` & keyof Handlers> = {
  twoFactorGet: ({ app, actor }) => twoFactor.status(app, actor),
  twoFactorSetup: ({ app, actor }) => twoFactor.setup(app, actor),
  twoFactorEnable: ({ app, actor, body }) => twoFactor.enable(app, actor, body),
  twoFactorRecoveryCodes: ({ app, actor, body }) => twoFactor.regenerateRecoveryCodes(app, actor, body),
  twoFactorDisable: async (ctx) => {
    await twoFactor.disable(ctx.app, ctx.actor, await ctx.currentSessionHash(), ctx.body);
    return true;
  },
  twoFactorReset: async ({ app, actor, body }) => (await twoFactor.reset(app, actor, body.id), true),
};
