import type { Kysely } from 'kysely';

// Two-factor sign-in (TOTP, RFC 6238). users.two_factor_at is when the account turned it on (null: off); it sits on
// the user row so the one session lookup of every request knows it (an admin without it may only enrol).
// two_factor_keys holds each account's key sealed (AES-256-GCM, as the AI key) and the last time step a code was
// accepted in, so a code is taken once. recovery_codes holds the ten one-time codes as keyed hashes.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('two_factor_at', 'bigint').execute();
  await db.schema
    .createTable('two_factor_keys')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id'))
    .addColumn('sealed_key', 'text', (c) => c.notNull())
    .addColumn('last_step', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('recovery_codes')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addPrimaryKeyConstraint('recovery_codes_pk', ['user_id', 'code_hash'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('recovery_codes').execute();
  await db.schema.dropTable('two_factor_keys').execute();
  await db.schema.alterTable('users').dropColumn('two_factor_at').execute();
}
