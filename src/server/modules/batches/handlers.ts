import type { Handlers } from '../handler-types.js';
import * as batches from './service.js';

type TaskHandlers = Pick<
  Handlers,
  | 'taskListPage'
  | 'taskGet'
  | 'taskFailures'
  | 'taskFailuresExport'
  | 'taskOutput'
  | 'taskCancel'
  | 'taskPlatform'
  | 'taskStatements'
  | 'taskQuotaGrant'
>;

export const taskHandlers: TaskHandlers = {
  taskListPage: ({ app, body }) => batches.list(app, body),
  taskGet: ({ app, query }) => batches.get(app, query.id),
  taskFailures: ({ app, body }) => batches.failures(app, body),
  taskFailuresExport: ({ app, query }) => batches.failuresCsv(app, query.id),
  taskOutput: ({ app, query }) => batches.outputCsv(app, query.id),
  taskCancel: ({ app, actor, body }) => batches.cancel(app, actor, body.id),
  taskPlatform: ({ app, actor, body }) => batches.startPlatform(app, actor, body),
  taskStatements: ({ app, actor }) => batches.startStatements(app, actor),
  taskQuotaGrant: ({ app, actor, body }) => batches.startQuotaGrant(app, actor, body),
};
