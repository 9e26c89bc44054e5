import type { Kysely } from 'kysely';

// Sessions remember the device they were signed in from (browser and system parsed from the User-Agent, and the
// client address), so 我的 → 登录设备 can list them; sessions from before this migration show as unknown devices.
// user_browsers remembers which browsers each user has signed in from, so a sign-in from a new one is told in the
// inbox; it outlives the sessions, which are purged when they expire.
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['browser', 'system', 'address'])
    await db.schema
      .alterTable('sessions')
      .addColumn(column, 'text', (c) => c.notNull().defaultTo(''))
      .execute();
  await db.schema
    .createTable('user_browsers')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('first_seen_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_browsers_pk', ['user_id', 'signature'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('user_browsers').execute();
  for (const column of ['browser', 'system', 'address'])
    await db.schema.alterTable('sessions').dropColumn(column).execute();
}
