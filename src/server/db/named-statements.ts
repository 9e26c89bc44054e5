import type pg from 'pg';
import type { PostgresCursor, PostgresPool, PostgresPoolClient } from 'kysely';

/**
 * PostgreSQL's counterpart of statement-cache.ts. Kysely's pg driver sends every query unnamed, so the server parses
 * and plans it again on every call. Here each connection names the statements it runs, by SQL text, with pg's own
 * documented query config (`{ name, text, values }`): pg then sends Parse once per connection and name.
 *
 * Measured (issue 36, tests/bench/run.mjs on PostgreSQL, three runs of 5-7 interleaved rounds on a shared 2-core
 * machine): GET /api/user/get/login answers 0.62-0.78x the req/s of the bare Fastify route doing the same read with
 * naming, 0.44-0.53x without (goal: 0.6x); its p50 falls from about 8.8 to 5.6 ms. No library fits: Kysely has no
 * option to name its queries and pg names only what it is given; postgres.js (kysely-postgres-js) prepares by itself
 * but would replace the driver and its pool under the whole app.
 *
 * - Only queries with parameters are named (a query without them may hold several statements, which only the simple
 *   protocol accepts).
 * - Names are never reused (one counter for the process), so a name's statement never changes under pg.
 * - Bounded: at most `max` names per connection (the app has a few dozen hot statements; each holds a plan in the
 *   server's memory), the oldest deallocated first.
 * - A table whose columns changed after a statement reading it was prepared makes PostgreSQL refuse that statement
 *   once ("cached plan must not change result type"): its name is dropped, so the next call prepares it anew under a
 *   new name. Migrations run on a connection of their own (database.ts, `migrate`).
 */
export function namingPool(pool: pg.Pool, max = 200): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  let next = 0;
  const naming = (client: pg.PoolClient): PostgresPoolClient => {
    const names = new Map<string, string>();
    // Kysely's client type takes a cursor and a string alike; pg's typings split them into overloads.
    const send = client.query.bind(client) as (query: unknown, values?: unknown) => unknown;
    const named = (text: string, values: unknown[]) => {
      let name = names.get(text);
      if (name === undefined) {
        if (names.size >= max) {
          const [oldText, oldName] = names.entries().next().value!;
          names.delete(oldText);
          client.query(`deallocate ${oldName}`).catch(() => undefined);
        }
        names.set(text, (name = `k${(next++).toString(36)}`));
      }
      return client.query({ name, text, values }).catch((error: unknown) => {
        if (isStalePlan(error)) names.delete(text);
        throw error;
      });
    };
    return {
      query: ((query: string | PostgresCursor<unknown>, values?: readonly unknown[]) =>
        typeof query === 'string' && values?.length
          ? named(query, values as unknown[])
          : send(query, values)) as PostgresPoolClient['query'],
      release: () => client.release(),
    };
  };
  return {
    async connect() {
      const client = await pool.connect();
      let named = clients.get(client);
      if (!named) clients.set(client, (named = naming(client)));
      return named;
    },
    end: () => pool.end(),
  };
}

/** SQLSTATE 0A000 (feature_not_supported) is what PostgreSQL answers a prepared statement whose result type moved. */
const isStalePlan = (error: unknown) =>
  (error as { code?: unknown }).code === '0A000' && /cached plan must not change result type/.test(String(error));
