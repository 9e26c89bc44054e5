import type { Db } from '../../../db/database.js';
import { epayVerify } from '../epay-sign.js';
import * as gatewayRepo from '../sandbox-repo.js';
import { submitParams } from './epay.js';
import type { OpenChannel, PaymentConnector, PaymentRequest } from './connector.js';

/** The sandbox gateway's cashier page: its submit.php, on this site. */
export const cashierUrl = (origin: string): URL => new URL('/cashier', origin);

/**
 * The sandbox gateway built into the product (sandbox-gateway.ts): the same signed 易支付 request, sent to the
 * product's own cashier page (/cashier, 模拟收银台) instead of a gateway's submit.php; its notifications are signed the
 * same way and come over loopback. Asked about an order, it reads its own trades as api.php would; it knows its one
 * merchant, and refunds a paid trade once.
 */
export const sandboxConnector = (db: Db, origin: string): PaymentConnector => ({
  payUrl(channel: OpenChannel, request: PaymentRequest) {
    const url = cashierUrl(origin);
    for (const [name, value] of Object.entries(submitParams(channel, request))) url.searchParams.set(name, value);
    return url.toString();
  },

  verifyNotify: (channel, params) => epayVerify(params, channel.key),

  async queryOrder(channel, orderNo) {
    const trade = await gatewayRepo.paidTradeFor(db, channel.id, orderNo);
    if (!trade) return { state: 'unpaid' };
    return { state: 'paid', outTradeNo: trade.outTradeNo, tradeNo: trade.tradeNo, money: trade.money };
  },

  queryMerchant: () => Promise.resolve({ state: 'accepted' }),

  async refund(channel, payment) {
    return (await gatewayRepo.refundTrade(db, channel.id, payment.tradeNo))
      ? { state: 'refunded' }
      : { state: 'refused', message: '交易不存在或已退款' };
  },
});
