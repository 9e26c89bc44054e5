import type { Handlers } from '../handler-types.js';
import * as ai from './service.js';

type AiHandlers = Pick<Handlers, 'aiConfigGet' | 'aiConfigUpdate' | 'aiConfigTest' | 'aiPolish'>;

export const aiHandlers: AiHandlers = {
  aiConfigGet: ({ app }) => ai.get(app),
  aiConfigUpdate: ({ app, actor, body }) => ai.update(app, actor, body),
  aiConfigTest: ({ app }) => ai.test(app),
  aiPolish: ({ app, body }) => ai.polish(app, body),
};
