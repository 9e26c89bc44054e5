import type { Handlers } from '../handler-types.js';
import * as site from './service.js';

type SiteHandlers = Pick<
  Handlers,
  | 'basicInformationAdd'
  | 'basicInformationDelete'
  | 'basicInformationGet'
  | 'basicInformationList'
  | 'basicInformationListPage'
  | 'basicInformationUpdate'
>;

export const siteHandlers: SiteHandlers = {
  basicInformationGet: (ctx) => site.getFor(ctx.app, ctx.query.id, () => ctx.session()),
  basicInformationAdd: ({ app, actor, body }) => site.add(app, actor, body),
  basicInformationUpdate: async ({ app, actor, body }) => (await site.update(app, actor, body), true),
  basicInformationDelete: async ({ app, actor, body }) => (await site.remove(app, actor, body.id), true),
  basicInformationList: ({ app, query }) => site.list(app, query),
  basicInformationListPage: ({ app, body }) => site.listPage(app, body),
};
