import type { Handlers } from '../handler-types.js';
import * as mall from './service.js';

type MallHandlers = Pick<
  Handlers,
  'mallList' | 'mallListPage' | 'mallGet' | 'mallAdd' | 'mallUpdate' | 'mallShelf' | 'mallDelete'
>;

export const mallHandlers: MallHandlers = {
  mallList: ({ app }) => mall.list(app),
  mallListPage: ({ app, body }) => mall.listPage(app, body),
  mallGet: ({ app, query }) => mall.get(app, query.id),
  mallAdd: ({ app, actor, body }) => mall.add(app, actor, body),
  mallUpdate: async ({ app, actor, body }) => (await mall.update(app, actor, body), true),
  mallShelf: async ({ app, actor, body }) => (await mall.shelf(app, actor, body), true),
  mallDelete: async ({ app, actor, body }) => (await mall.remove(app, actor, body.id), true),
};
