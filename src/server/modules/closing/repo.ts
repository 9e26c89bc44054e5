import type { Db } from '../../db/database.js';
import { withSearchKeys } from '../../db/search.js';

/** The nickname a closed account shows wherever a name is shown. */
export const CLOSED_NAME = '已注销用户';

/** Starts the cooling-off, once: a second request while closing (two taps) changes nothing. */
export async function markClosing(db: Db, userId: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ closingAt: now, updatedAt: now })
    .where('id', '=', userId)
    .where('closingAt', 'is', null)
    .where('closedAt', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Accounts whose cooling-off began at or before `cutoff` and that are not closed yet, oldest first. */
export async function dueForClosing(db: Db, cutoff: number, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('closingAt', '<=', cutoff)
    .where('closedAt', 'is', null)
    .orderBy('closingAt')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Closes the account for good if its cooling-off is still over (the user may have signed in since the list was read,
 * or another process closed it first: the update's own conditions decide, so it closes once). The row stays, its
 * personal fields erased and its name masked. Answers whether this call closed it.
 */
export async function closeAccount(db: Db, userId: number, cutoff: number, masked: string, now: number) {
  const result = await db
    .updateTable('users')
    .set({
      ...withSearchKeys({ userAccount: masked, userName: CLOSED_NAME }, { userNameKey: 'userName' } as const),
      email: null,
      closedAt: now,
      deletedAt: now,
      updatedAt: now,
    })
    .where('id', '=', userId)
    .where('closingAt', '<=', cutoff)
    .where('closedAt', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** What identified the user's devices and sign-ins: sessions (addresses, browsers) and the browsers it knew. */
export async function eraseSignInTraces(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('sessions').where('userId', '=', userId).execute();
  await db.deleteFrom('userBrowsers').where('userId', '=', userId).execute();
}
