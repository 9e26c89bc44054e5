import type { Db } from '../../db/database.js';

export async function insertCaptcha(
  db: Db,
  row: { userId: number; email: string; codeHash: string; createdAt: number; expiresAt: number },
): Promise<number> {
  const inserted = await db
    .insertInto('emailCaptchas')
    .values({ ...row, attempts: 0, consumedAt: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export const deleteCaptcha = (db: Db, id: number) => db.deleteFrom('emailCaptchas').where('id', '=', id).execute();

/** The newest code sent to this address for this user; older ones stop counting once a new one is sent. */
export const latestCaptcha = (db: Db, userId: number, email: string) =>
  db
    .selectFrom('emailCaptchas')
    .selectAll()
    .where('userId', '=', userId)
    .where('email', '=', email)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();

/**
 * Takes one try of the code in a single statement and answers its number (1 for the first), or undefined when all
 * `max` tries are used: tries sent at once each get their own number, so no more than `max` are ever compared.
 */
export async function takeAttempt(db: Db, id: number, max: number): Promise<number | undefined> {
  const row = await db
    .updateTable('emailCaptchas')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .where('attempts', '<', max)
    .returning('attempts')
    .executeTakeFirst();
  return row?.attempts;
}

/** Marks the code used; false when another request used it first. */
export async function consumeCaptcha(db: Db, id: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('emailCaptchas')
    .set({ consumedAt: now })
    .where('id', '=', id)
    .where('consumedAt', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
