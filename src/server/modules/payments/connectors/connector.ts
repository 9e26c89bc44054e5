import type { PayMethod } from '../../../db/types.js';
import type { EpayParams } from '../epay-sign.js';

// What the product needs of a payment channel, whatever protocol it speaks: where to send the payer, whether a
// notification is genuine, and what the gateway says of an order. A new kind of channel (Alipay's own open platform
// with alipay-sdk and RSA2, say) is one more file beside epay.ts implementing this, and one line in index.ts.

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

/** What the gateway knows of an order: paid or not, its trade number and the money it took. */
export interface GatewayOrder {
  paid: boolean;
  tradeNo: string | null;
  amountFen: number | null;
}

export interface PaymentConnector {
  /** The address the payer's phone opens to pay. */
  payUrl(channel: OpenChannel, request: PaymentRequest): string;
  /** Whether a notification's parameters were signed by this channel. */
  verifyNotify(channel: OpenChannel, params: EpayParams): boolean;
  /** Asks the gateway about an order (lost notifications); null when it cannot say (unreachable, an error). */
  queryOrder(channel: OpenChannel, orderNo: string): Promise<GatewayOrder | null>;
}
