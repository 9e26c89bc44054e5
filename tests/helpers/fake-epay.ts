import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { epaySign } from '../../src/server/modules/payments/epay-sign.js';

// A 易支付 gateway in the test, for what the built-in sandbox never does: answering the query job (api.php?act=order)
// badly — an error, garbage, the wrong money — and signing notifications with a key the test knows.

/** How the gateway answers api.php?act=order for an order number: paid with a trade number and money, or misbehaving. */
export type QueryAnswer =
  { paid: true; tradeNo: string; money: string } | { paid: false } | 'error500' | 'garbage' | 'unknown';

export interface FakeEpay {
  /** The gateway's root address, to set as a channel's 网关地址. */
  gateway: string;
  pid: string;
  key: string;
  answers: Map<string, QueryAnswer>;
  /** The query strings of the api.php requests received. */
  queries: URLSearchParams[];
  /** A notification for an order, signed with this gateway's key unless `sign` is given; `extra` changes fields. */
  notification(orderNo: string, money: string, extra?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

export async function startFakeEpay(pid = '10086', key = 'fake-epay-merchant-key-0123456789'): Promise<FakeEpay> {
  const answers = new Map<string, QueryAnswer>();
  const queries: URLSearchParams[] = [];
  /** What the gateway says to one api.php request: its status and body. */
  const reply = (url: URL): [number, string] => {
    if (url.pathname !== '/api.php' || url.searchParams.get('act') !== 'order') return [404, '{}'];
    queries.push(url.searchParams);
    if (url.searchParams.get('pid') !== pid || url.searchParams.get('key') !== key)
      return [200, JSON.stringify({ code: -1, msg: 'KEY校验失败' })];
    const found = answers.get(url.searchParams.get('out_trade_no') ?? '') ?? 'unknown';
    if (found === 'error500') return [500, 'Internal Server Error'];
    if (found === 'garbage') return [200, '<html>维护中</html>'];
    if (found === 'unknown') return [200, JSON.stringify({ code: -1, msg: '订单号不存在' })];
    if (!found.paid) return [200, JSON.stringify({ code: 1, status: 0 })];
    return [200, JSON.stringify({ code: 1, status: 1, trade_no: found.tradeNo, money: found.money })];
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const [status, body] = reply(new URL(req.url ?? '/', 'http://gateway'));
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const gateway = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    gateway,
    pid,
    key,
    answers,
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
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
