import type { Handlers } from '../handler-types.js';
import * as runs from './service.js';

type RunHandlers = Pick<Handlers, 'runMy' | 'runListPage' | 'userClockCount'>;

export const runHandlers: RunHandlers = {
  runMy: ({ app, actor, body }) => runs.myRuns(app, actor, body),
  runListPage: ({ app, body }) => runs.allRuns(app, body),
  userClockCount: ({ app, actor }) => runs.clockCount(app, actor),
};
