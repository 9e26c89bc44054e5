import type { Handlers } from '../handler-types.js';
import * as closing from './service.js';

type ClosingHandlers = Pick<Handlers, 'userCloseAccount'>;

export const closingHandlers: ClosingHandlers = {
  userCloseAccount: ({ app, actor, body }) => closing.requestClosing(app, actor, body),
};
