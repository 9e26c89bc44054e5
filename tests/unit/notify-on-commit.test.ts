import { CompiledQuery, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import { describe, expect, it } from 'vitest';
import { LIVE_NOTIFY_SQL, NotifyOnCommitDriver } from '../../src/server/db/notify-on-commit.js';

// The PostgreSQL driver's one addition: a live event's NOTIFY in a transaction travels with its COMMIT (no round
// trip of its own), is dropped with a rollback, and runs at once outside a transaction.

function fakeDriver() {
  const sent: string[] = [];
  const connection: DatabaseConnection = {
    executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
      sent.push(query.parameters.length ? `${query.sql} [${query.parameters.join(',')}]` : query.sql);
      return { rows: [] };
    },
    streamQuery: () => {
      throw new Error('not used');
    },
  };
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: async (c) => {
      await c.executeQuery(CompiledQuery.raw('begin'));
    },
    commitTransaction: async (c) => {
      await c.executeQuery(CompiledQuery.raw('commit'));
    },
    rollbackTransaction: async (c) => {
      await c.executeQuery(CompiledQuery.raw('rollback'));
    },
    releaseConnection: async () => {},
    destroy: async () => {},
  };
  return { sent, driver: new NotifyOnCommitDriver(driver) };
}

const notify = (payload: string) => CompiledQuery.raw(LIVE_NOTIFY_SQL, [payload]);

describe('NotifyOnCommitDriver', () => {
  it('sends the NOTIFYs of a transaction in the message of its COMMIT, quoted', async () => {
    const { sent, driver } = fakeDriver();
    const c = await driver.acquireConnection();
    await driver.beginTransaction(c, {});
    await c.executeQuery(notify('[{"e":{"kind":"balance"}}]'));
    await c.executeQuery(notify("it's"));
    expect(sent).toEqual(['begin']);
    await driver.commitTransaction(c);
    expect(sent[1]).toBe(
      `select pg_notify('live_' || current_schema(), '[{"e":{"kind":"balance"}}]'); ` +
        `select pg_notify('live_' || current_schema(), 'it''s'); commit`,
    );
  });

  it('drops them with a rollback, and sends one at once outside a transaction', async () => {
    const { sent, driver } = fakeDriver();
    const c = await driver.acquireConnection();
    await driver.beginTransaction(c, {});
    await c.executeQuery(notify('x'));
    await driver.rollbackTransaction(c);
    expect(sent).toEqual(['begin', 'rollback']);
    await c.executeQuery(notify('y'));
    expect(sent[2]).toBe(`${LIVE_NOTIFY_SQL} [y]`);
    await driver.beginTransaction(c, {});
    await driver.commitTransaction(c);
    expect(sent.slice(3)).toEqual(['begin', 'commit']);
  });
});
