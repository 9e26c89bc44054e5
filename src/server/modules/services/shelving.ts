import type { Db } from '../../db/database.js';
import * as repo from './repo.js';
import { nextOccurrence } from './schedules.js';

// What a platform going off or back on shelf does to its services' runs, in the same transaction as the change.
// Off shelf: runs already executing end normally; runs not started yet are skipped with a reason, nothing charged
// (and the worker skips any it meets later, see jobs/worker.ts). Back on shelf: planning resumes from now: the times
// that fell while it was off are not run late.

export const OFF_SHELF_SKIP = '平台已下架，本次跳过';

export async function onShelfChanged(
  trx: Db,
  change: { platformId: number; wasOnShelf: boolean; onShelf: boolean; now: number; timeZone: string },
): Promise<void> {
  if (change.wasOnShelf === change.onShelf) return;
  if (!change.onShelf) {
    await repo.skipUnstartedRunsOfPlatform(trx, change.platformId, OFF_SHELF_SKIP, change.now);
    return;
  }
  for (const service of await repo.activeOfPlatform(trx, change.platformId)) {
    const next = nextOccurrence(service.settings, change.now, change.timeZone);
    await repo.updateService(trx, service.id, { nextRunAt: next, updatedAt: change.now });
  }
}
