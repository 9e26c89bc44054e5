import type { Handlers } from '../handler-types.js';
import { health } from './service.js';

export const healthHandlers: Pick<Handlers, 'healthGet'> = {
  healthGet: ({ app, query }) => health(app, query.ready === true),
};
