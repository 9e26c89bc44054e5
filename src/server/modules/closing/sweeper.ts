import type { AppContext } from '../context.js';
import * as repo from './repo.js';
import { closeForGood, COOLING_OFF_MS } from './service.js';

const ACCOUNTS_PER_PASS = 50;

/**
 * The scheduler's loop calls this about once a minute in every process: accounts whose cooling-off is over are closed,
 * each in its own transaction; two processes racing for one account close it once (repo.closeAccount re-checks).
 */
export async function closeDueAccounts(app: AppContext): Promise<number> {
  const now = app.now();
  let closed = 0;
  for (const id of await repo.dueForClosing(app.db, now - COOLING_OFF_MS, ACCOUNTS_PER_PASS)) {
    if (await closeForGood(app.db, id, now)) closed++;
  }
  if (closed > 0) app.log.info({ closed }, 'accounts closed after their cooling-off');
  return closed;
}
