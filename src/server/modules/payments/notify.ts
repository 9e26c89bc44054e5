import type { AppContext } from '../context.js';
import * as orders from '../orders/repo.js';
import type { EpayParams } from './epay-sign.js';
import { openChannel } from './channels.js';
import { connectorFor } from './connectors/index.js';
import { fenOf } from './money.js';
import { settleFromGateway } from './settle.js';

/** Why a notification was refused before its money is looked at: each counted in /metrics (payment_notify_total). */
type Refusal = 'unknown_order' | 'unknown_channel' | 'bad_signature' | 'wrong_merchant' | 'not_paid';

/**
 * A gateway's asynchronous notification (GET query or form POST, no session: its signature is its protection). It
 * credits only when everything matches: an online order of ours by out_trade_no, that order's channel's MD5 signature,
 * its merchant id, trade_status TRADE_SUCCESS and the money equal to the price to the fen; then settle.ts, once.
 * Answers `success` (also for a duplicate, so the gateway stops sending) or `fail`, changing nothing. The log names
 * the refusal and the order, never the key or the signature.
 */
export async function receiveNotify(app: AppContext, params: EpayParams): Promise<'success' | 'fail'> {
  const refuse = (result: Refusal): 'fail' => {
    app.metrics.payNotifies.inc({ result });
    app.log.warn(
      { result, orderNo: params.out_trade_no, tradeNo: params.trade_no, pid: params.pid, money: params.money },
      'payment notification refused',
    );
    return 'fail';
  };
  const order = params.out_trade_no ? await orders.findOrderByNo(app.db, params.out_trade_no) : undefined;
  if (!order || order.channelId === null) return refuse('unknown_order');
  const channel = await openChannel(app, order.channelId);
  if (!channel) return refuse('unknown_channel');
  if (!connectorFor(app, channel.kind).verifyNotify(channel, params)) return refuse('bad_signature');
  if (params.pid !== channel.pid) return refuse('wrong_merchant');
  if (params.trade_status !== 'TRADE_SUCCESS' || !params.trade_no) return refuse('not_paid');
  const outcome = await settleFromGateway(app, order, {
    tradeNo: params.trade_no,
    amountFen: fenOf(params.money ?? ''),
  });
  return outcome === 'wrong_amount' ? 'fail' : 'success';
}
