import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/server/db/database.js';
import { namingPool } from '../../src/server/db/named-statements.js';
import { createTestDatabase, dbKind, POSTGRES_URL, sqlOutsideTheApp, type TestDatabase } from '../helpers/database.js';

// PostgreSQL's statements are prepared once per connection and then run by name (db/named-statements.ts, pg's public
// `{ name, text, values }`): what the server holds, its bound, and a table altered under a prepared statement.

const prepared = `select name, statement from pg_prepared_statements where statement not like '%pg_prepared_statements%'
  order by prepare_time`;

describe.skipIf(dbKind() !== 'postgres')('named statements (PostgreSQL)', () => {
  let database: TestDatabase;
  let schema: string;
  const pools: pg.Pool[] = [];

  /** One connection, so every query below meets the statements the ones before it prepared. */
  function oneConnection(max?: number) {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 1, options: `-c search_path=${schema}` });
    pools.push(pool);
    return namingPool(pool, max);
  }

  async function run(pool: ReturnType<typeof namingPool>, text: string, values: unknown[] = []) {
    const client = await pool.connect();
    try {
      return (await client.query<Record<string, unknown>>(text, values)).rows;
    } finally {
      client.release();
    }
  }

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    if (database.config.kind !== 'postgres') throw new Error('unreachable');
    schema = database.config.schema!;
    await sqlOutsideTheApp(database.config, 'create table things (id integer primary key, label text)', []);
    await sqlOutsideTheApp(database.config, "insert into things values (1, 'one'), (2, 'two')", []);
  });

  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await database.drop();
  });

  it('prepares a query with parameters once, however often it runs; one without them is sent as it is', async () => {
    const pool = oneConnection();
    for (const id of [1, 2, 1]) await run(pool, 'select label from things where id = $1', [id]);
    await run(pool, 'select count(*) from things');
    expect(await run(pool, prepared)).toEqual([
      { name: expect.stringMatching(/^k/) as unknown, statement: 'select label from things where id = $1' },
    ]);
    expect(await run(pool, 'select label from things where id = $1', [2])).toEqual([{ label: 'two' }]);
  });

  it('keeps at most its bound per connection, the oldest deallocated first, and names a returning one anew', async () => {
    const pool = oneConnection(2);
    await run(pool, 'select label from things where id = $1', [1]);
    await run(pool, 'select id from things where label = $1', ['one']);
    await run(pool, 'select label from things where id = $1', [1]); // used again: still the oldest
    await run(pool, 'select id from things where id > $1', [0]); // a third: the first one goes
    expect((await run(pool, prepared)).map((r) => r.statement)).toEqual([
      'select id from things where label = $1',
      'select id from things where id > $1',
    ]);
    expect(await run(pool, 'select label from things where id = $1', [2])).toEqual([{ label: 'two' }]);
    const names = (await run(pool, prepared)).map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toHaveLength(2);
  });

  it('prepares a statement anew after its table changed under it, failing only the one call that met the change', async () => {
    const pool = oneConnection();
    expect(await run(pool, 'select * from things where id = $1', [1])).toEqual([{ id: 1, label: 'one' }]);
    await sqlOutsideTheApp(database.config, 'alter table things add column note text', []);
    await expect(run(pool, 'select * from things where id = $1', [1])).rejects.toMatchObject({ code: '0A000' });
    expect(await run(pool, 'select * from things where id = $1', [1])).toEqual([{ id: 1, label: 'one', note: null }]);
    await sqlOutsideTheApp(database.config, 'alter table things drop column note', []);
  });

  it("names the app's own queries: Kysely's, on the app's database handle", async () => {
    const handle = openDatabase({ ...database.config, poolSize: 1 } as typeof database.config);
    try {
      const db = handle.db.withoutPlugins();
      for (const id of [1, 2]) await sql`select label from things where id = ${id}`.execute(db);
      const rows = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db);
      expect(rows.rows.map((r) => r.statement)).toEqual(['select label from things where id = $1']);
    } finally {
      await handle.close();
    }
  });
});

// SQLite has no server to keep statements; better-sqlite3 prepares on the connection. The promise that matters is the
// same: a query repeated after its table changed answers the table as it is now.
describe.skipIf(dbKind() !== 'sqlite')('statements after a table changed (SQLite)', () => {
  it('a query repeated after its table gained a column answers the new column', async () => {
    const database = await createTestDatabase('sqlite');
    const handle = openDatabase(database.config);
    try {
      const db = handle.db.withoutPlugins();
      await sql`create table things (id integer primary key, label text)`.execute(db);
      await sql`insert into things values (1, 'one')`.execute(db);
      const read = () => sql<Record<string, unknown>>`select * from things where id = ${1}`.execute(db);
      expect((await read()).rows).toEqual([{ id: 1, label: 'one' }]);
      await sql`alter table things add column note text default 'n'`.execute(db);
      expect((await read()).rows).toEqual([{ id: 1, label: 'one', note: 'n' }]);
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});
