import type { Handlers } from '../handler-types.js';
import * as services from './service.js';

// A method call on the context (not destructured): the header is read from the request it belongs to.
const keyOf = (ctx: { header(name: string): string | undefined }) => ctx.header('idempotency-key')!;

type ServiceHandlers = Pick<
  Handlers,
  | 'serviceSave'
  | 'serviceStart'
  | 'servicePause'
  | 'serviceStop'
  | 'serviceRunNow'
  | 'serviceGet'
  | 'serviceMy'
  | 'serviceListPage'
  | 'serviceSandbox'
>;

export const serviceHandlers: ServiceHandlers = {
  serviceSave: ({ app, actor, body }) => services.save(app, actor, body),
  serviceStart: (ctx) => services.start(ctx.app, ctx.actor, ctx.body.id, keyOf(ctx)),
  servicePause: ({ app, actor, body }) => services.pause(app, actor, body.id),
  serviceStop: ({ app, actor, body }) => services.stop(app, actor, body.id),
  serviceRunNow: (ctx) => services.runNow(ctx.app, ctx.actor, ctx.body.id, keyOf(ctx)),
  serviceGet: ({ app, actor, query }) => services.get(app, actor, query.id),
  serviceMy: ({ app, actor }) => services.mine(app, actor),
  serviceListPage: ({ app, body }) => services.listPage(app, body),
  serviceSandbox: ({ app, actor, body }) => services.setSandboxMode(app, actor, body),
};
