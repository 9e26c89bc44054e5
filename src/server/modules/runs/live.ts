import type { Db } from '../../db/database.js';
import { ownerAndAdmins, publish } from '../../live/events.js';

type RunAction = 'planned' | 'claimed' | 'finished';

/**
 * A run was planned, claimed or finished: its owner's service page, /clockInfo and calendar read again, as do admins'
 * run lists. Called in the transaction that changes the run, so it is heard once that commits.
 */
export const runChanged = (
  trx: Db,
  run: { id: number; serviceId: number; platformId: number; userId: number },
  action: RunAction,
) =>
  publish(
    trx,
    { kind: 'run', action, runId: run.id, serviceId: run.serviceId, platformId: run.platformId },
    ownerAndAdmins(run.userId),
  );
