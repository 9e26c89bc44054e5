import type { Kysely } from 'kysely';

// How many services the user's latest ban paused, kept on the user so the admin's user detail can say it after the
// ban (and after an unban, which leaves them paused for the user to resume).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('ban_paused_services', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('ban_paused_services').execute();
}
