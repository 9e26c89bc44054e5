import { Migrator, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/server/db/database.js';
import { migrations } from '../../src/server/db/migrations/index.js';
import { foldForSearch } from '../../src/server/db/search.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

// An existing install upgraded to the search columns: rows written before them are searchable afterwards.

let db: TestDatabase;
let handle: DatabaseHandle;
let migrator: Migrator;

beforeAll(async () => {
  db = await createTestDatabase();
  handle = openDatabase(db.config);
  const schema = db.config.kind === 'postgres' ? db.config.schema : undefined;
  migrator = new Migrator({
    db: handle.db.withoutPlugins(),
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
});

afterAll(async () => {
  await handle?.close();
  await db?.drop();
});

describe('migration 2026_11_23_0005_search_keys', () => {
  it('fills the search columns of rows written before it', async () => {
    expect((await migrator.migrateTo('2026_11_22_0004_redeem_codes')).error).toBeUndefined();
    const raw = handle.db.withoutPlugins() as unknown as Kysely<any>;
    const now = Date.now();
    await raw
      .insertInto('users')
      .values({
        user_account: 'old_user',
        user_name: 'Straße Ärger',
        password_hash: 'x',
        user_role: 'user',
        status: 'active',
        invitation_code: 'ABCDEF',
        created_at: now,
        updated_at: now,
      })
      .execute();
    await raw
      .insertInto('mall_packages')
      .values({
        coin_name: 'Ωmega套餐',
        amount: 100,
        add_coin: 10,
        status: 1,
        sort: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const user = await raw
      .selectFrom('users')
      .select('user_name_key')
      .where('user_account', '=', 'old_user')
      .executeTakeFirstOrThrow();
    expect(user.user_name_key).toBe(foldForSearch('Straße Ärger'));
    expect(user.user_name_key).toBe('strasse ärger');
    const site = await raw
      .selectFrom('site_information')
      .select(['notice_bar', 'notice_bar_key'])
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
    expect(site.notice_bar_key).toBe(foldForSearch(site.notice_bar));
    const pkg = await raw.selectFrom('mall_packages').select('coin_name_key').executeTakeFirstOrThrow();
    expect(pkg.coin_name_key).toBe('ωmega套餐');
  });
});
