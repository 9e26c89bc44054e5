import type { HandlerContext, Handlers } from '../handler-types.js';
import type { OperationId } from '../../../api/operations.js';
import { endDevice, endOtherDevices, listDevices } from './devices.js';

type SessionHandlers = Pick<Handlers, 'sessionList' | 'sessionEnd' | 'sessionEndOthers'>;

/** The hash of the session making this request (these operations are closed to visitors, so there is one). */
async function currentHash<K extends OperationId>(ctx: HandlerContext<K>): Promise<string> {
  const state = await ctx.session();
  return state.kind === 'active' ? state.tokenHash : '';
}

export const sessionHandlers: SessionHandlers = {
  sessionList: async (ctx) => listDevices(ctx.app, ctx.actor, await currentHash(ctx), ctx.query),
  sessionEnd: async (ctx) => (await endDevice(ctx.app, ctx.actor, await currentHash(ctx), ctx.body), true),
  sessionEndOthers: async (ctx) => ({ ended: await endOtherDevices(ctx.app, ctx.actor, await currentHash(ctx)) }),
};
