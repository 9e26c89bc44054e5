import type { Handlers } from '../handler-types.js';
import { overview } from '../services/service.js';
import * as platforms from './service.js';

type PlatformHandlers = Pick<
  Handlers,
  | 'platformKinds'
  | 'platformList'
  | 'platformOverview'
  | 'platformGet'
  | 'platformListPage'
  | 'platformAdd'
  | 'platformUpdate'
  | 'platformShelf'
>;

export const platformHandlers: PlatformHandlers = {
  platformKinds: async () => platforms.kinds(),
  platformList: ({ app }) => platforms.list(app),
  platformOverview: ({ app, actor, query }) => overview(app, actor, query.kind),
  platformGet: ({ app, query }) => platforms.get(app, query.id),
  platformListPage: ({ app, body }) => platforms.listPage(app, body),
  platformAdd: ({ app, actor, body }) => platforms.add(app, actor, body),
  platformUpdate: async ({ app, actor, body }) => (await platforms.update(app, actor, body), true),
  platformShelf: async ({ app, actor, body }) => (await platforms.shelf(app, actor, body), true),
};
