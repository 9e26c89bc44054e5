import type { AppContext } from '../../context.js';
import type { PaymentConnector } from './connector.js';
import { epayConnector } from './epay.js';
import { sandboxConnector } from './sandbox.js';

export type {
  GatewayOrder,
  MerchantCheck,
  OpenChannel,
  PaymentConnector,
  PaymentRequest,
  RefundResult,
} from './connector.js';

/** The connector for a channel's kind. */
export const connectorFor = (app: AppContext, kind: 'epay' | 'sandbox'): PaymentConnector =>
  kind === 'sandbox' ? sandboxConnector(app.db, app.config.publicOrigin.origin) : epayConnector;
