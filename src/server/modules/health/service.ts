import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { latestMigration } from './repo.js';

/**
 * Liveness answers from memory; readiness asks the database (its failure answers 503 through the error handler,
 * like any request the database cannot answer).
 */
export async function health(app: AppContext, ready: boolean): Promise<Schemas['Health']> {
  if (!ready) return { status: 'ok' };
  return { status: 'ok', database: { kind: app.config.database.kind, migration: await latestMigration(app.db) } };
}
