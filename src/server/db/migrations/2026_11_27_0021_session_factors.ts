import type { Kysely } from 'kysely';

// A session's rights follow the factors that still exist. sessions.passkey_id names the passkey a session began with,
// so removing that passkey (by its owner, or by an admin from 用户详情) ends exactly the sessions that relied on it.
// login_challenges_used records each two-factor login challenge that completed a sign-in, until it expires: inserting
// it is what makes a challenge good for one sign-in, in every process on one database (as passkey_challenges_used
// does for passkey challenges).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('passkey_id', 'integer').execute();
  await db.schema.createIndex('sessions_passkey').on('sessions').column('passkey_id').execute();
  await db.schema
    .createTable('login_challenges_used')
    .addColumn('challenge', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('login_challenges_used').execute();
  await db.schema.dropIndex('sessions_passkey').execute();
  await db.schema.alterTable('sessions').dropColumn('passkey_id').execute();
}
