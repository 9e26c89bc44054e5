import type { Handlers } from '../handler-types.js';
import * as channels from './channels.js';
import * as checkout from './checkout.js';
import type { EpayParams } from './epay-sign.js';
import { receiveNotify } from './notify.js';
import * as sandbox from './sandbox-gateway.js';

type PaymentHandlers = Pick<
  Handlers,
  | 'orderSubmit'
  | 'orderPay'
  | 'orderCheck'
  | 'payMethods'
  | 'payNotify'
  | 'payNotifyForm'
  | 'payChannelListPage'
  | 'payChannelGet'
  | 'payChannelAdd'
  | 'payChannelUpdate'
  | 'paySettingsGet'
  | 'paySettingsUpdate'
  | 'sandboxPaySubmit'
  | 'sandboxPayAct'
>;

export const paymentHandlers: PaymentHandlers = {
  // The contract requires Idempotency-Key on orderSubmit, so it is there by the time the handler runs.
  orderSubmit: (ctx) => checkout.submit(ctx.app, ctx.actor, ctx.header('idempotency-key')!, ctx.body),
  orderPay: ({ app, actor, body }) => checkout.pay(app, actor, body),
  orderCheck: ({ app, actor, body }) => checkout.check(app, actor, body),
  payMethods: ({ app }) => channels.methods(app),
  // The query string is the exploded `params` object itself (style: form, explode: true), flat as the gateway sent it.
  payNotify: ({ app, query }) => receiveNotify(app, query as EpayParams),
  payNotifyForm: ({ app, body }) => receiveNotify(app, body),
  payChannelListPage: ({ app, body }) => channels.listPage(app, body),
  payChannelGet: ({ app, query }) => channels.get(app, query.id),
  payChannelAdd: ({ app, actor, body }) => channels.add(app, actor, body),
  payChannelUpdate: ({ app, actor, body }) => channels.update(app, actor, body),
  paySettingsGet: ({ app }) => channels.settings(app),
  paySettingsUpdate: ({ app, actor, body }) => channels.updateSettings(app, actor, body),
  sandboxPaySubmit: ({ app, body }) => sandbox.submit(app, body),
  sandboxPayAct: ({ app, body }) => sandbox.act(app, body),
};
