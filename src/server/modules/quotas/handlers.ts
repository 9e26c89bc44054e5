import type { Handlers } from '../handler-types.js';
import * as quotas from './service.js';

type QuotaHandlers = Pick<Handlers, 'quotaGrant' | 'quotaRevoke' | 'quotaListPage' | 'quotaMy'>;

export const quotaHandlers: QuotaHandlers = {
  // The contract requires Idempotency-Key here, so it is there by the time the handler runs.
  quotaGrant: (ctx) => quotas.grant(ctx.app, ctx.actor, ctx.header('idempotency-key')!, ctx.body),
  quotaRevoke: ({ app, actor, body }) => quotas.revoke(app, actor, body.id),
  quotaListPage: ({ app, body }) => quotas.list(app, body),
  quotaMy: ({ app, actor, query }) => quotas.my(app, actor, query.platformId),
};
