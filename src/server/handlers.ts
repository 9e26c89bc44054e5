import type { Handlers } from './http/handler-types.js';
import { coinHandlers } from './modules/coins/handlers.js';
import { siteHandlers } from './modules/site/handlers.js';
import { userHandlers } from './modules/users/handlers.js';

/** Every operation of openapi.yaml, by operationId. */
export const handlers: Handlers = { ...siteHandlers, ...userHandlers, ...coinHandlers };
