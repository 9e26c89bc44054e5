import type { Handlers } from '../handler-types.js';
import { latestMigration } from './repo.js';

/**
 * Liveness answers from memory; readiness asks the database (its failure answers 503 through the error handler,
 * like any request the database cannot answer).
 */
export const healthHandlers: Pick<Handlers, 'healthGet'> = {
  healthGet: async ({ app, query }) => {
    if (!query.ready) return { status: 'ok' };
    return { status: 'ok', database: { kind: app.config.database.kind, migration: await latestMigration(app.db) } };
  },
};
