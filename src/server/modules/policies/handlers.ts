import type { Handlers } from '../handler-types.js';
import * as policies from './service.js';

type PolicyHandlers = Pick<Handlers, 'policyGet' | 'policyUpdate' | 'policyAccept'>;

export const policyHandlers: PolicyHandlers = {
  policyGet: ({ app, query }) => policies.get(app, query.kind),
  policyUpdate: ({ app, actor, body }) => policies.update(app, actor, body),
  policyAccept: async ({ app, actor, body }) => (await policies.accept(app, actor, body.version), true),
};
