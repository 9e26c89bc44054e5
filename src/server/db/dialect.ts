import { sql, type Kysely } from 'kysely';

// Which database a Kysely handle (or a transaction of it) talks to, read through Kysely's public compile: a probe
// query compiled by the handle shows its dialect's placeholders ($1 on PostgreSQL, ? on SQLite). Kept per handle; a
// transaction is a handle of its own, so it pays one probe (a few µs) for the whole transaction.

const probes = new WeakMap<object, string>();

/** The probe as this handle compiles it: differs between dialects, and between plugins that rename identifiers. */
export function compiledProbe<DB>(db: Kysely<DB>): string {
  let probe = probes.get(db);
  if (probe === undefined) {
    probe = sql`select ${sql.ref('probeColumn')} where 1 = ${1}`.compile(db).sql;
    probes.set(db, probe);
  }
  return probe;
}

export const isPostgres = <DB>(db: Kysely<DB>): boolean => compiledProbe(db).endsWith('$1');
