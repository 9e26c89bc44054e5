import type { Db } from '../../src/server/db/database.js';

/**
 * Many plain users straight into the database (a batch's 10,000 recipients), with a role of their own so a test's
 * broadcast reaches exactly them: `role` agent keeps them apart from the users other tests register.
 */
export async function insertUsers(db: Db, count: number, prefix: string, now: number): Promise<number[]> {
  const ids: number[] = [];
  // Invitation codes are at most 8 characters and unique: a random tag per call and the index in base 36.
  const tag = Math.random().toString(36).slice(2, 4).padEnd(2, '0');
  for (let start = 0; start < count; start += 500) {
    const rows = Array.from({ length: Math.min(500, count - start) }, (_, i) => ({
      userAccount: `${prefix}${start + i}`,
      userName: `${prefix}${start + i}`,
      passwordHash: 'x',
      userRole: 'agent' as const,
      status: 'active' as const,
      email: null,
      invitationCode: `${tag}${(start + i).toString(36).padStart(6, '0')}`,
      inviterId: null,
      createdAt: now,
      updatedAt: now,
      lastLoginAt: null,
      deletedAt: null,
    }));
    const inserted = await db.insertInto('users').values(rows).returning('id').execute();
    ids.push(...inserted.map((r) => r.id));
  }
  return ids;
}

/** How many notices of a kind each of the given users has, by user id. */
export async function noticeCounts(db: Db, kind: string): Promise<Map<number, number>> {
  const rows = await db
    .selectFrom('notices')
    .select(['userId', (eb) => eb.fn.countAll<number>().as('n')])
    .where('kind', '=', kind)
    .groupBy('userId')
    .execute();
  return new Map(rows.map((r) => [r.userId, Number(r.n)]));
}
