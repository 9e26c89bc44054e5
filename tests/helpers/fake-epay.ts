import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { epaySign } from '../../src/server/modules/payments/epay-sign.js';

// A 易支付 gateway in the test, for what the built-in sandbox never does: answering the query job (api.php?act=order)
// badly — an error, garbage, the wrong money, another order's row, nothing at all (a hang), megabytes — signing
// notifications with a key the test knows, and answering act=query (渠道自检) and act=refund as told.

/** How the gateway answers api.php?act=order for an order number: paid with a trade number and money, or misbehaving. */
export type QueryAnswer =
  | { paid: true; tradeNo: string; money: string; outTradeNo?: string }
  | { paid: false }
  | 'error500'
  | 'garbage'
  | 'unknown'
  | 'hang'
  | 'huge';

/** How it answers act=refund: refunded, refused with its words, or not at all. */
export type RefundAnswer = 'ok' | { refused: string } | 'hang' | 'error500';

export interface FakeEpay {
  /** The gateway's root address, to set as a channel's 网关地址. */
  gateway: string;
  pid: string;
  key: string;
  answers: Map<string, QueryAnswer>;
  /** What every act=order answers when its order has no answer of its own (default: 订单号不存在). */
  fallback: { answer: QueryAnswer };
  refundAnswer: { answer: RefundAnswer };
  /** How long every api.php answer takes (a gateway far away). */
  latency: { ms: number };
  /** The query strings (GET) or forms (POST) of the api.php requests received. */
  queries: URLSearchParams[];
  /** A notification for an order, signed with this gateway's key unless `sign` is given; `extra` changes fields. */
  notification(orderNo: string, money: string, extra?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

export async function startFakeEpay(pid = '10086', key = 'fake-epay-merchant-key-0123456789'): Promise<FakeEpay> {
  const answers = new Map<string, QueryAnswer>();
  const fallback: { answer: QueryAnswer } = { answer: 'unknown' };
  const refundAnswer: { answer: RefundAnswer } = { answer: 'ok' };
  const latency = { ms: 0 };
  const queries: URLSearchParams[] = [];
  const hanging = new Set<ServerResponse>();
  const json = (value: unknown): [number, string] => [200, JSON.stringify(value)];
  /** What the gateway says to one api.php request: its status and body, or null to never answer. */
  const reply = (params: URLSearchParams): [number, string] | null => {
    queries.push(params);
    if (params.get('pid') !== pid || params.get('key') !== key) return json({ code: -1, msg: 'KEY校验失败' });
    const act = params.get('act');
    if (act === 'query') return json({ code: 1, pid, key, active: 1, money: '0.00' });
    if (act === 'refund') {
      const r = refundAnswer.answer;
      if (r === 'hang') return null;
      if (r === 'error500') return [500, 'Internal Server Error'];
      return r === 'ok' ? json({ code: 1, msg: '退款成功' }) : json({ code: -1, msg: r.refused });
    }
    if (act !== 'order') return [404, '{}'];
    const orderNo = params.get('out_trade_no') ?? '';
    const found = answers.get(orderNo) ?? fallback.answer;
    if (found === 'hang') return null;
    if (found === 'huge') return [200, JSON.stringify({ code: 1, status: 0, pad: 'x'.repeat(200_000) })];
    if (found === 'error500') return [500, 'Internal Server Error'];
    if (found === 'garbage') return [200, '<html>维护中</html>'];
    if (found === 'unknown') return json({ code: -1, msg: '订单号不存在' });
    if (!found.paid) return json({ code: 1, status: 0, out_trade_no: orderNo });
    return json({
      code: 1,
      status: 1,
      out_trade_no: found.outTradeNo ?? orderNo,
      trade_no: found.tradeNo,
      money: found.money,
    });
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://gateway');
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (url.pathname !== '/api.php') {
        res.writeHead(404).end('{}');
        return;
      }
      const params = new URLSearchParams(url.search);
      for (const [name, value] of new URLSearchParams(body)) params.set(name, value);
      const answer = reply(params);
      if (answer === null) {
        hanging.add(res);
        return;
      }
      setTimeout(() => {
        res.writeHead(answer[0], { 'content-type': 'application/json' });
        res.end(answer[1]);
      }, latency.ms);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const gateway = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    gateway,
    pid,
    key,
    answers,
    fallback,
    refundAnswer,
    latency,
    queries,
    notification(orderNo, money, extra = {}) {
      const params: Record<string, string> = {
        pid,
        trade_no: `T${orderNo}`,
        out_trade_no: orderNo,
        type: 'alipay',
        name: '套餐',
        money,
        trade_status: 'TRADE_SUCCESS',
        ...extra,
      };
      return { ...params, sign: extra.sign ?? epaySign(params, key), sign_type: 'MD5' };
    },
    close: () =>
      new Promise<void>((done) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
