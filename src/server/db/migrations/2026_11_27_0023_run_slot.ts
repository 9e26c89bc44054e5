import type { Kysely } from 'kysely';

// A planned run records which of its service's times it is (schedules.ts names them per settings family: 'checkIn' and
// 'checkOut' for clock-in services, 'course' for course services), so a run list tells 签到 from 签退. Manual runs
// and runs planned before this migration have none (null) and show without a slot. No check constraint: a new
// settings family brings its slot names in schedules.ts and the contract, not in a migration.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('runs').addColumn('slot', 'varchar(16)').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('runs').dropColumn('slot').execute();
}
