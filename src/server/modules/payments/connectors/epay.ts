import { epayVerify, signed } from '../epay-sign.js';
import { fenOf, yuanOf } from '../money.js';
import type { GatewayOrder, OpenChannel, PaymentConnector, PaymentRequest } from './connector.js';

/** How long the query job waits for a gateway's answer. */
const QUERY_TIMEOUT_MS = 8_000;

/** `https://pay.example.com` and `https://pay.example.com/` both mean the folder holding submit.php and api.php. */
const under = (gateway: string, file: string) => new URL(file, gateway.endsWith('/') ? gateway : `${gateway}/`);

/** The submit request's parameters, signed: what a 易支付 cashier (real or the sandbox) receives. */
export function submitParams(channel: OpenChannel, request: PaymentRequest): Record<string, string> {
  return signed(
    {
      pid: channel.pid,
      type: request.method,
      out_trade_no: request.orderNo,
      notify_url: request.notifyUrl,
      return_url: request.returnUrl,
      name: request.name,
      money: yuanOf(request.amountFen),
    },
    channel.key,
  );
}

/**
 * A gateway speaking the 易支付 protocol: the payer goes to submit.php with the signed request (a GET is accepted by
 * the common implementations and keeps the phone on one redirect), notifications are MD5-signed, and
 * `api.php?act=order` answers an order's state: `{ code: 1, status: 1, trade_no, money }` once paid.
 */
export const epayConnector: PaymentConnector = {
  payUrl(channel, request) {
    const url = under(channel.gateway, 'submit.php');
    for (const [name, value] of Object.entries(submitParams(channel, request))) url.searchParams.set(name, value);
    return url.toString();
  },

  verifyNotify: (channel, params) => epayVerify(params, channel.key),

  async queryOrder(channel, orderNo): Promise<GatewayOrder | null> {
    const url = under(channel.gateway, 'api.php');
    url.searchParams.set('act', 'order');
    url.searchParams.set('pid', channel.pid);
    url.searchParams.set('key', channel.key);
    url.searchParams.set('out_trade_no', orderNo);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(QUERY_TIMEOUT_MS) });
      if (!response.ok) return null;
      const answer = (await response.json()) as Record<string, unknown>;
      if (Number(answer.code) !== 1) return { paid: false, tradeNo: null, amountFen: null };
      return {
        paid: Number(answer.status) === 1,
        tradeNo: typeof answer.trade_no === 'string' && answer.trade_no ? answer.trade_no : null,
        amountFen:
          typeof answer.money === 'string' || typeof answer.money === 'number' ? fenOf(String(answer.money)) : null,
      };
    } catch {
      return null;
    }
  },
};
