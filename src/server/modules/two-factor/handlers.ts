import type { Handlers } from '../handler-types.js';
import * as twoFactor from './service.js';

export const twoFactorHandlers: Pick<Handlers, `twoFactor${string}` & keyof Handlers> = {
  twoFactorGet: ({ app, actor }) => twoFactor.status(app, actor),
  twoFactorSetup: ({ app, actor }) => twoFactor.setup(app, actor),
  twoFactorEnable: ({ app, actor, body }) => twoFactor.enable(app, actor, body),
  twoFactorRecoveryCodes: ({ app, actor, body }) => twoFactor.regenerateRecoveryCodes(app, actor, body),
  twoFactorDisable: async ({ app, actor, body }) => (await twoFactor.disable(app, actor, body), true),
  twoFactorReset: async ({ app, actor, body }) => (await twoFactor.reset(app, actor, body.id), true),
};
