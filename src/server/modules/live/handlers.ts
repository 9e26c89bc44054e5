import type { Handlers } from '../handler-types.js';

export const liveHandlers: Pick<Handlers, 'events'> = {
  // The guard has checked the session and the role; the stream is this caller's alone, and ends with its session.
  events: async (ctx) => ({
    stream: ctx.app.streams.open(ctx.actor, await ctx.currentSessionHash(), ctx.header('last-event-id')),
  }),
};
