import type { Handlers } from './modules/handler-types.js';
import { aiHandlers } from './modules/ai/handlers.js';
import { coinHandlers } from './modules/coins/handlers.js';
import { dashboardHandlers } from './modules/dashboard/handlers.js';
import { healthHandlers } from './modules/health/handlers.js';
import { liveHandlers } from './modules/live/handlers.js';
import { taskHandlers } from './modules/batches/handlers.js';
import { mallHandlers } from './modules/mall/handlers.js';
import { noticeHandlers } from './modules/notices/handlers.js';
import { orderHandlers } from './modules/orders/handlers.js';
import { paymentHandlers } from './modules/payments/handlers.js';
import { platformHandlers } from './modules/platforms/handlers.js';
import { quotaHandlers } from './modules/quotas/handlers.js';
import { redeemHandlers } from './modules/redeem/handlers.js';
import { runHandlers } from './modules/runs/handlers.js';
import { serviceHandlers } from './modules/services/handlers.js';
import { sessionHandlers } from './modules/sessions/handlers.js';
import { siteHandlers } from './modules/site/handlers.js';
import { twoFactorHandlers } from './modules/two-factor/handlers.js';
import { passkeyHandlers } from './modules/passkeys/handlers.js';
import { userHandlers } from './modules/users/handlers.js';
import { emailHandlers } from './modules/email/handlers.js';
import { policyHandlers } from './modules/policies/handlers.js';
import { closingHandlers } from './modules/closing/handlers.js';

/**
 * Every operation of openapi.yaml, by operationId: each module's own part (typed `Pick<Handlers, …>` of exactly its
 * operations), spread together. The `Handlers` type makes a missing operation, or one no module answers, a type error.
 */
export const handlers: Handlers = {
  ...siteHandlers,
  ...userHandlers,
  ...emailHandlers,
  ...policyHandlers,
  ...closingHandlers,
  ...sessionHandlers,
  ...twoFactorHandlers,
  ...passkeyHandlers,
  ...coinHandlers,
  ...mallHandlers,
  ...orderHandlers,
  ...paymentHandlers,
  ...redeemHandlers,
  ...platformHandlers,
  ...serviceHandlers,
  ...runHandlers,
  ...noticeHandlers,
  ...taskHandlers,
  ...quotaHandlers,
  ...aiHandlers,
  ...healthHandlers,
  ...dashboardHandlers,
  ...liveHandlers,
};
