import type { Handlers } from './http/handler-types.js';
import { siteHandlers } from './modules/site/handlers.js';
import { userHandlers } from './modules/users/handlers.js';

/** Every operation of openapi.yaml, by operationId. */
export const handlers: Handlers = { ...siteHandlers, ...userHandlers };
