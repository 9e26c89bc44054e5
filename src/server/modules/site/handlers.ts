import type { Handlers } from '../handler-types.js';
import { refreshAnalyticsOrigin } from './analytics.js';
import { notFound } from '../../lib/errors.js';
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
  basicInformationGet: async (ctx) => {
    // Record 1 is public; other records are drafts only an admin may read (404 to others, so ids reveal nothing).
    if (ctx.query.id !== site.LIVE_SITE_ID) {
      const session = await ctx.session();
      if (session.kind !== 'active' || session.user.userRole !== 'admin') throw notFound('站点信息不存在');
    }
    return site.get(ctx.app, ctx.query.id);
  },
  basicInformationAdd: ({ app, actor, body }) => site.add(app, actor, body),
  basicInformationUpdate: async ({ app, actor, body }) => {
    await site.update(app, actor, body);
    if (body.id === site.LIVE_SITE_ID) await refreshAnalyticsOrigin(app);
    return true;
  },
  basicInformationDelete: async ({ app, actor, body }) => (await site.remove(app, actor, body.id), true),
  basicInformationList: ({ app, query }) => site.list(app, query),
  basicInformationListPage: ({ app, body }) => site.listPage(app, body),
};
