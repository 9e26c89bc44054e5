import type { Handlers } from '../handler-types.js';
import * as redeem from './service.js';

type RedeemHandlers = Pick<
  Handlers,
  'redeemGenerate' | 'redeemListPage' | 'redeemExport' | 'redeemDisable' | 'redeemUse'
>;

/** The contract requires the header on these operations, so it is always there by the time a handler runs. */
const keyOf = (ctx: { header(name: string): string | undefined }) => ctx.header('idempotency-key')!;

export const redeemHandlers: RedeemHandlers = {
  redeemGenerate: (ctx) => redeem.generate(ctx.app, ctx.actor, keyOf(ctx), ctx.body),
  redeemListPage: ({ app, body }) => redeem.listPage(app, body),
  redeemExport: ({ app, query }) => redeem.exportBatch(app, query.batchId),
  redeemDisable: async ({ app, actor, body }) => (await redeem.disable(app, actor, body.id), true),
  redeemUse: (ctx) => redeem.use(ctx.app, ctx.actor, keyOf(ctx), ctx.body),
};
