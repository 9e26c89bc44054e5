import type { Kysely } from 'kysely';
import { idColumn } from './helpers.js';

// Passkeys (WebAuthn). passkeys holds each account's credentials: the credential id the authenticator answers with
// (unique: one credential, one account), its public key (COSE, base64url), the signature counter last seen (a counter
// that does not grow on an authenticator that counts is a cloned credential and is refused), and the user's own name
// for it. A challenge is handed out signed, not stored (asking for one writes nothing, so visitors cannot fill a
// table); passkey_challenges_used records each one answered, until it expires: inserting it is what makes an answer
// count once, in every process on one database. sessions.signed_in_with says how a session began: a passkey counts as
// two factors, so an admin signed in with one is not sent to enrol in two-factor codes (ADMIN_2FA).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('passkeys')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('credential_id', 'text', (c) => c.notNull().unique())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('counter', 'bigint', (c) => c.notNull())
    .addColumn('transports', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('backed_up', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema.createIndex('passkeys_user').on('passkeys').column('user_id').execute();
  await db.schema
    .createTable('passkey_challenges_used')
    .addColumn('challenge', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .alterTable('sessions')
    .addColumn('signed_in_with', 'text', (c) => c.notNull().defaultTo('password'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').dropColumn('signed_in_with').execute();
  await db.schema.dropTable('passkey_challenges_used').execute();
  await db.schema.dropTable('passkeys').execute();
}
