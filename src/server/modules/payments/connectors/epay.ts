import { cappedFetch } from '../../../lib/capped-fetch.js';
import { epayVerify, signed } from '../epay-sign.js';
import { yuanOf } from '../money.js';
import type {
  GatewayFault,
  GatewayOrder,
  MerchantCheck,
  OpenChannel,
  PaymentConnector,
  PaymentRequest,
  RefundResult,
} from './connector.js';

/** How long a question to a gateway may take, and how much of its answer is read (a JSON object of a few fields). */
export const GATEWAY_TIMEOUT_MS = 5_000;
const ANSWER_MAX_BYTES = 64 * 1024;

/** `https://pay.example.com` and `https://pay.example.com/` both mean the folder holding submit.php and api.php. */
const under = (gateway: string, file: string) => new URL(file, gateway.endsWith('/') ? gateway : `${gateway}/`);

const LOOPBACK = /^(localhost|.*\.localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * Whether the merchant key may travel to this gateway: over https, or plain http only to this machine (a gateway in a
 * test, or on the same host). The key rides in every query and refund, so over plain http anyone on the way reads it.
 */
export const keySafeAt = (gateway: string): boolean => {
  const url = new URL(gateway);
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.test(url.hostname));
};

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
 * One call to the gateway's api.php carrying the merchant key: never over plain http to another machine, at most
 * GATEWAY_TIMEOUT_MS, at most 64 KB read; answers its JSON object or why there is none.
 */
async function callApi(
  channel: OpenChannel,
  act: string,
  params: Record<string, string>,
  method: 'GET' | 'POST' = 'GET',
): Promise<{ state: 'answer'; answer: Record<string, unknown> } | GatewayFault> {
  if (!keySafeAt(channel.gateway)) return { state: 'error', reason: 'insecure', detail: null };
  const url = under(channel.gateway, 'api.php');
  url.searchParams.set('act', act);
  const fields = { pid: channel.pid, key: channel.key, ...params };
  if (method === 'GET') for (const [name, value] of Object.entries(fields)) url.searchParams.set(name, value);
  const reply = await cappedFetch(url, {
    method,
    ...(method === 'POST' ? { form: fields } : {}),
    timeoutMs: GATEWAY_TIMEOUT_MS,
    maxBytes: ANSWER_MAX_BYTES,
  });
  if (!reply.ok) return { state: 'error', reason: reply.reason, detail: reply.detail };
  if (reply.status !== 200) return { state: 'error', reason: 'http_status', detail: `HTTP ${reply.status}` };
  try {
    const answer: unknown = JSON.parse(reply.text);
    if (answer !== null && typeof answer === 'object' && !Array.isArray(answer))
      return { state: 'answer', answer: answer as Record<string, unknown> };
  } catch {
    // not JSON: below
  }
  return { state: 'error', reason: 'not_epay', detail: reply.text.slice(0, 80) };
}

const text = (value: unknown): string | null =>
  (typeof value === 'string' && value !== '') || typeof value === 'number' ? String(value) : null;

/** The gateway's own words of a refusal (msg), or its code when it gives none. */
const refusal = (answer: Record<string, unknown>) => ({
  state: 'refused' as const,
  message: text(answer.msg) ?? `code ${text(answer.code) ?? '?'}`,
});

/**
 * A gateway speaking the 易支付 protocol: the payer goes to submit.php with the signed request (a GET is accepted by
 * the common implementations and keeps the phone on one redirect), notifications are MD5-signed, and api.php answers
 * `act=order` (an order: `{ code: 1, status: 1, out_trade_no, trade_no, money }` once paid), `act=query` (the
 * merchant: code 1 when pid and key are right) and `act=refund` (code 1 once refunded).
 */
export const epayConnector: PaymentConnector = {
  payUrl(channel, request) {
    const url = under(channel.gateway, 'submit.php');
    for (const [name, value] of Object.entries(submitParams(channel, request))) url.searchParams.set(name, value);
    return url.toString();
  },

  verifyNotify: (channel, params) => epayVerify(params, channel.key),

  async queryOrder(channel, orderNo): Promise<GatewayOrder> {
    const reply = await callApi(channel, 'order', { out_trade_no: orderNo });
    if (reply.state === 'error') return reply;
    const answer = reply.answer;
    if (Number(answer.code) !== 1) return refusal(answer);
    if (Number(answer.status) !== 1) return { state: 'unpaid' };
    return {
      state: 'paid',
      outTradeNo: text(answer.out_trade_no),
      tradeNo: text(answer.trade_no),
      money: text(answer.money),
    };
  },

  async queryMerchant(channel): Promise<MerchantCheck> {
    const reply = await callApi(channel, 'query', {});
    if (reply.state === 'error') return reply;
    return Number(reply.answer.code) === 1 ? { state: 'accepted' } : refusal(reply.answer);
  },

  async refund(channel, payment): Promise<RefundResult> {
    const reply = await callApi(
      channel,
      'refund',
      { trade_no: payment.tradeNo, out_trade_no: payment.orderNo, money: yuanOf(payment.amountFen) },
      'POST',
    );
    if (reply.state === 'error') return reply;
    return Number(reply.answer.code) === 1 ? { state: 'refunded' } : refusal(reply.answer);
  },
};
