import type { Handlers } from '../handler-types.js';
import * as orders from './service.js';

type OrderHandlers = Pick<Handlers, 'orderMy' | 'orderListPage' | 'orderConfirm' | 'orderCancel'>;

/** The contract requires the header on these operations, so it is always there by the time a handler runs. */
const keyOf = (ctx: { header(name: string): string | undefined }) => ctx.header('idempotency-key')!;

export const orderHandlers: OrderHandlers = {
  orderMy: ({ app, actor, body }) => orders.mine(app, actor, body),
  orderListPage: ({ app, body }) => orders.listPage(app, body),
  orderConfirm: (ctx) => orders.confirm(ctx.app, ctx.actor, keyOf(ctx), ctx.body),
  orderCancel: ({ app, actor, body }) => orders.cancel(app, actor, body.id),
};
