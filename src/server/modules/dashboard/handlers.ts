import type { Handlers } from '../handler-types.js';
import * as dashboard from './service.js';

type DashboardHandlers = Pick<Handlers, 'dashboardSummary' | 'dashboardSeries' | 'runCalendar'>;

export const dashboardHandlers: DashboardHandlers = {
  dashboardSummary: ({ app }) => dashboard.summary(app),
  dashboardSeries: ({ app, query }) => dashboard.series(app, query.days ?? 7),
  runCalendar: ({ app, actor, query }) => dashboard.calendar(app, actor, query),
};
