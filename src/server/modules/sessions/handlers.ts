import type { Handlers } from '../handler-types.js';
import { endDevice, endOtherDevices, listDevices } from './service.js';

type SessionHandlers = Pick<Handlers, 'sessionList' | 'sessionEnd' | 'sessionEndOthers'>;

export const sessionHandlers: SessionHandlers = {
  sessionList: async (ctx) => listDevices(ctx.app, ctx.actor, await ctx.currentSessionHash(), ctx.query),
  sessionEnd: async (ctx) => (await endDevice(ctx.app, ctx.actor, await ctx.currentSessionHash(), ctx.body), true),
  sessionEndOthers: async (ctx) => ({
    ended: await endOtherDevices(ctx.app, ctx.actor, await ctx.currentSessionHash()),
  }),
};
