import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import type { Db } from '../../db/database.js';
import * as records from '../orders/payment-records-repo.js';
import * as orders from '../orders/repo.js';
import type { EpayParams } from './epay-sign.js';
import { openChannel } from './channels.js';
import { connectorFor } from './connectors/index.js';
import * as repo from './repo.js';
import { settleFromGateway } from './settle.js';

type Verdict = Schemas['PaymentVerdict'];

/** The one parameter 渠道自检 sends to see that this route is reached through PUBLIC_ORIGIN: answered, not recorded. */
export const SELF_CHECK_PARAM = 'pm_selfcheck';

/** Verdicts a gateway is told `success` for: the money is accounted for, it may stop sending. */
const SUCCESS: readonly Verdict[] = ['credited', 'credited_late', 'duplicate', 'second_payment'];

const cut = (value: string | undefined, max: number) => (value ? value.slice(0, max) : null);

/**
 * A gateway's asynchronous notification (GET query or form POST, no session: its signature is its protection). The
 * order is found by out_trade_no; the channel by pid among every channel the order was sent to (a payer may have
 * opened one cashier, come back and chosen another, then paid on the first), and the signature checked with that
 * channel's key; then trade_status TRADE_SUCCESS and settle.ts (the money to the fen, once). Every notification is
 * recorded in 回调记录 with its sender and verdict, never its key or signature. Answers `success` when the money is
 * accounted for (also a duplicate and a second payment, so the gateway stops sending), else `fail`, changing nothing.
 */
export async function receiveNotify(app: AppContext, params: EpayParams, sender: string): Promise<'success' | 'fail'> {
  if (Object.keys(params).length === 1 && params[SELF_CHECK_PARAM] !== undefined) return 'fail';
  const seen = {
    orderNo: cut(params.out_trade_no, 64),
    tradeNo: cut(params.trade_no, 64),
    money: cut(params.money, 16),
    method: cut(params.type, 32),
    sender: sender.slice(0, 64),
  };
  type Decided = { verdict: Verdict; orderId?: number; channelId?: number; expected?: number };
  const record = (db: Db, { verdict, orderId, channelId, expected }: Decided) =>
    records.insertEvent(db, {
      at: app.now(),
      kind: 'notify',
      orderId: orderId ?? null,
      channelId: channelId ?? null,
      verdict,
      expectedAmount: expected ?? null,
      source: 'notify',
      ...seen,
    });
  /** Whether the notification was recorded already (in its settlement's transaction, before the credit). */
  const done = { recorded: false };
  const decide = async (): Promise<Decided> => {
    // Without the order's number it is not a notification of this protocol at all.
    if (!params.out_trade_no) return { verdict: 'malformed' };
    const order = await orders.findOrderByNo(app.db, params.out_trade_no);
    if (!order) return { verdict: 'unknown_order' };
    const sentTo = await records.attemptChannelIds(app.db, order.id);
    const rows = (await Promise.all(sentTo.map((id) => repo.findChannel(app.db, id)))).filter((r) => r !== undefined);
    const named = rows.filter((row) => row.pid === params.pid);
    if (rows.length === 0) return { verdict: 'unknown_order', orderId: order.id };
    if (named.length === 0) return { verdict: 'wrong_merchant', orderId: order.id };
    const opened = (await Promise.all(named.map((row) => openChannel(app, row.id)))).filter((c) => c !== undefined);
    if (opened.length === 0) return { verdict: 'key_unusable', orderId: order.id, channelId: named[0]?.id };
    const channel = opened.find((c) => connectorFor(app, c.kind).verifyNotify(c, params));
    if (!channel) return { verdict: 'bad_signature', orderId: order.id, channelId: opened[0]?.id };
    const at = { orderId: order.id, channelId: channel.id };
    if (params.trade_status !== 'TRADE_SUCCESS' || !params.trade_no) return { verdict: 'not_paid', ...at };
    const settled = (verdict: Verdict): Decided => ({
      verdict,
      ...at,
      ...(verdict === 'wrong_amount' ? { expected: Number(order.amount) } : {}),
    });
    const verdict = await settleFromGateway(app, order.id, {
      channelId: channel.id,
      tradeNo: params.trade_no,
      money: params.money ?? null,
      source: 'notify',
      witness: async (trx, found) => {
        await record(trx, settled(found));
        done.recorded = true;
      },
    });
    return settled(verdict);
  };
  const decided = await decide();
  const { verdict, orderId, channelId } = decided;
  app.metrics.payNotifies.inc({ result: verdict });
  if (!done.recorded) await record(app.db, decided);
  const accepted = SUCCESS.includes(verdict);
  if (!accepted) app.log.warn({ verdict, ...seen, orderId, channelId }, 'payment notification refused');
  else if (verdict === 'second_payment' || verdict === 'credited_late')
    app.log.warn({ verdict, ...seen, orderId, channelId }, 'payment notification taken: the admin should look');
  return accepted ? 'success' : 'fail';
}

/** A notification the route could not read (a JSON body, too many fields): recorded as 格式不对, answered `fail`. */
export async function recordMalformed(app: AppContext, sender: string, why: string): Promise<void> {
  app.metrics.payNotifies.inc({ result: 'malformed' });
  await records.insertEvent(app.db, {
    at: app.now(),
    kind: 'notify',
    verdict: 'malformed',
    source: 'notify',
    sender: sender.slice(0, 64),
    detail: why,
  });
}
