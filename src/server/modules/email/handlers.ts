import type { Handlers } from '../handler-types.js';
import * as email from './service.js';

type EmailHandlers = Pick<Handlers, 'userGetCaptcha' | 'userBindEmail' | 'userUnbindEmail'>;

export const emailHandlers: EmailHandlers = {
  userGetCaptcha: ({ app, actor, query }) => email.sendCaptcha(app, actor, query.emailAccount),
  userBindEmail: async ({ app, actor, body }) => (await email.bindEmail(app, actor, body), true),
  userUnbindEmail: async ({ app, actor, body }) => (await email.unbindEmail(app, actor, body), true),
};
