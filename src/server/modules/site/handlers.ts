import type { Handlers } from '../../http/handler-types.js';
import { refreshAnalyticsOrigin } from './analytics.js';
import * as site from './service.js';

type SiteHandlers = Pick<Handlers, 'basicInformationAdd' | 'basicInformationDelete' | 'basicInformationGet' | 'basicInformationList' | 'basicInformationListPage' | 'basicInformationUpdate'>;

export const siteHandlers: SiteHandlers = {
  basicInformationGet: ({ app, query }) => site.get(app, query.id),
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
