import type { Handlers } from '../handler-types.js';
import * as channels from './channels.js';
import * as checkout from './checkout.js';
import type { EpayParams } from './epay-sign.js';
import { receiveNotify } from './notify.js';
import * as records from './records.js';
import * as refunds from './refunds.js';
import * as sandbox from './sandbox-gateway.js';
import { checkChannel } from './self-check.js';

type PaymentHandlers = Pick<
  Handlers,
  | 'orderSubmit'
  | 'orderPay'
  | 'orderCheck'
  | 'orderGet'
  | 'orderEventPage'
  | 'orderPaymentPage'
  | 'orderReconcile'
  | 'orderRefund'
  | 'payMethods'
  | 'payNotify'
  | 'payNotifyForm'
  | 'payNotifyLogPage'
  | 'payChannelListPage'
  | 'payChannelGet'
  | 'payChannelAdd'
  | 'payChannelUpdate'
  | 'payChannelCheck'
  | 'paySettingsGet'
  | 'paySettingsUpdate'
  | 'sandboxPaySubmit'
  | 'sandboxPayAct'
>;

export const paymentHandlers: PaymentHandlers = {
  // The contract requires Idempotency-Key on orderSubmit and orderRefund, so it is there by the time they run.
  orderSubmit: (ctx) => checkout.submit(ctx.app, ctx.actor, ctx.header('idempotency-key')!, ctx.body),
  orderPay: ({ app, actor, body }) => checkout.pay(app, actor, body),
  orderCheck: ({ app, actor, body }) => checkout.check(app, actor, body),
  orderGet: ({ app, query }) => records.order(app, query.id),
  orderEventPage: ({ app, body }) => records.timeline(app, body),
  orderPaymentPage: ({ app, body }) => refunds.paymentPage(app, body),
  orderReconcile: ({ app, actor, body }) => checkout.reconcile(app, actor, body.id),
  orderRefund: (ctx) => refunds.refund(ctx.app, ctx.actor, ctx.header('idempotency-key')!, ctx.body),
  payMethods: ({ app }) => channels.methods(app),
  // The query string is the exploded `params` object itself (style: form, explode: true), flat as the gateway sent it.
  payNotify: ({ app, query, ip }) => receiveNotify(app, query as EpayParams, ip),
  payNotifyForm: ({ app, body, ip }) => receiveNotify(app, body, ip),
  payNotifyLogPage: ({ app, body }) => records.notifyLog(app, body),
  payChannelListPage: ({ app, body }) => channels.listPage(app, body),
  payChannelGet: ({ app, query }) => channels.get(app, query.id),
  payChannelAdd: ({ app, actor, body }) => channels.add(app, actor, body),
  payChannelUpdate: ({ app, actor, body }) => channels.update(app, actor, body),
  payChannelCheck: ({ app, body }) => checkChannel(app, body.id),
  paySettingsGet: ({ app }) => channels.settings(app),
  paySettingsUpdate: ({ app, actor, body }) => channels.updateSettings(app, actor, body),
  sandboxPaySubmit: ({ app, body }) => sandbox.submit(app, body),
  sandboxPayAct: ({ app, body }) => sandbox.act(app, body),
};
