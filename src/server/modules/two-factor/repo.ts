import type { Db } from '../../db/database.js';

export const findKey = (db: Db, userId: number) =>
  db.selectFrom('twoFactorKeys').select(['sealedKey', 'lastStep']).where('userId', '=', userId).executeTakeFirst();

/** A new key for an enrolment that has not been confirmed: it replaces any earlier unconfirmed one. */
export async function putKey(db: Db, userId: number, sealedKey: string, now: number): Promise<void> {
  await db
    .insertInto('twoFactorKeys')
    .values({ userId, sealedKey, lastStep: null, createdAt: now })
    .onConflict((oc) => oc.column('userId').doUpdateSet({ sealedKey, lastStep: null, createdAt: now }))
    .execute();
}

/**
 * Takes the time step of a code just accepted, if no code of that step or a later one was taken before: one
 * conditional update, so two requests with the same code cannot both pass. Answers whether it was taken.
 */
export async function takeStep(db: Db, userId: number, step: number): Promise<boolean> {
  const result = await db
    .updateTable('twoFactorKeys')
    .set({ lastStep: step })
    .where('userId', '=', userId)
    .where((eb) => eb.or([eb('lastStep', 'is', null), eb('lastStep', '<', step)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function setEnabledAt(db: Db, userId: number, at: number | null): Promise<void> {
  await db.updateTable('users').set({ twoFactorAt: at }).where('id', '=', userId).execute();
}

export async function replaceRecoveryCodes(db: Db, userId: number, hashes: string[]): Promise<void> {
  await db.deleteFrom('recoveryCodes').where('userId', '=', userId).execute();
  await db
    .insertInto('recoveryCodes')
    .values(hashes.map((codeHash) => ({ userId, codeHash, usedAt: null })))
    .execute();
}

/** Uses a recovery code once: a conditional update, so the same code sent twice at once passes once. */
export async function useRecoveryCode(db: Db, userId: number, codeHash: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('recoveryCodes')
    .set({ usedAt: now })
    .where('userId', '=', userId)
    .where('codeHash', '=', codeHash)
    .where('usedAt', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function recoveryCodesLeft(db: Db, userId: number): Promise<number> {
  const row = await db
    .selectFrom('recoveryCodes')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('userId', '=', userId)
    .where('usedAt', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Turns two-factor sign-in off for the user: the key and the recovery codes go. */
export async function removeAll(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('recoveryCodes').where('userId', '=', userId).execute();
  await db.deleteFrom('twoFactorKeys').where('userId', '=', userId).execute();
  await setEnabledAt(db, userId, null);
}
