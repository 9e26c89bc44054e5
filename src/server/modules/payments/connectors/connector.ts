import type { PayMethod } from '../../../db/types.js';
import type { EpayParams } from '../epay-sign.js';

// What the product needs of a payment channel, whatever protocol it speaks: where to send the payer, whether a
// notification is genuine, what the gateway says of an order and of the merchant, and a refund. A new kind of channel
// (Alipay's own open platform with alipay-sdk and RSA2, say) is one more file beside epay.ts implementing this.

/** A channel opened for use: its key unsealed, in memory only for the call. */
export interface OpenChannel {
  id: number;
  kind: 'epay' | 'sandbox';
  gateway: string;
  pid: string;
  key: string;
}

export interface PaymentRequest {
  orderNo: string;
  method: PayMethod;
  /** Shown on the cashier: the package's name. */
  name: string;
  amountFen: number;
  notifyUrl: string;
  returnUrl: string;
}

/** Why a gateway gave no usable answer: none in time, no connection, an HTTP error, not its protocol, too long. */
export type GatewayFault = {
  state: 'error';
  reason: 'timeout' | 'unreachable' | 'http_status' | 'not_epay' | 'too_large' | 'insecure';
  detail: string | null;
};
/** The gateway answered and said no (its own words: KEY校验失败, 订单号不存在, 不支持退款…). */
export type GatewayRefusal = { state: 'refused'; message: string };

/** What the gateway knows of an order: paid (which order, trade number, money) or not. */
export type GatewayOrder =
  | { state: 'paid'; outTradeNo: string | null; tradeNo: string | null; money: string | null }
  | { state: 'unpaid' }
  | GatewayRefusal
  | GatewayFault;

export type MerchantCheck = { state: 'accepted' } | GatewayRefusal | GatewayFault;
export type RefundResult = { state: 'refunded' } | GatewayRefusal | GatewayFault;

export interface PaymentConnector {
  /** The address the payer's phone opens to pay. */
  payUrl(channel: OpenChannel, request: PaymentRequest): string;
  /** Whether a notification's parameters were signed by this channel. */
  verifyNotify(channel: OpenChannel, params: EpayParams): boolean;
  /** Asks the gateway about an order (lost notifications, 重新查询, 补单). */
  queryOrder(channel: OpenChannel, orderNo: string): Promise<GatewayOrder>;
  /** Asks the gateway whether it knows the merchant id and key (渠道自检). */
  queryMerchant(channel: OpenChannel): Promise<MerchantCheck>;
  /** Sends a payment's money back to the payer. */
  refund(channel: OpenChannel, payment: { orderNo: string; tradeNo: string; amountFen: number }): Promise<RefundResult>;
}
