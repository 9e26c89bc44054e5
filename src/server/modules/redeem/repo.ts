import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import { paginate } from '../../db/paging.js';
import type { RedeemCodesTable } from '../../db/types.js';

export type RedeemStatus = 'unused' | 'used' | 'disabled' | 'expired';

export const findPackage = (db: Db, id: number) =>
  db.selectFrom('mallPackages').select(['id', 'addCoin']).where('id', '=', id).executeTakeFirst();

/** Inserts the codes that are still free and answers those it inserted (a taken code is skipped, not an error). */
export async function insertCodes(db: Db, rows: Insertable<RedeemCodesTable>[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  // ON CONFLICT DO NOTHING rather than catching the violation: in PostgreSQL a failed statement aborts the transaction.
  const inserted = await db
    .insertInto('redeemCodes')
    .values(rows)
    .onConflict((oc) => oc.column('code').doNothing())
    .returning('code')
    .execute();
  return new Set(inserted.map((r) => r.code));
}

export interface CodeFilter {
  batchId?: string;
  status?: RedeemStatus;
  current?: number;
  pageSize?: number;
}

/** The status as the API tells it, derived in SQL from the timestamps (used wins over disabled over expired). */
function withStatus(db: Db, filter: CodeFilter, now: number) {
  let q = db.selectFrom('redeemCodes');
  if (filter.batchId) q = q.where('redeemCodes.batchId', '=', filter.batchId);
  switch (filter.status) {
    case 'used':
      q = q.where('redeemCodes.usedAt', 'is not', null);
      break;
    case 'disabled':
      q = q.where('redeemCodes.usedAt', 'is', null).where('redeemCodes.disabledAt', 'is not', null);
      break;
    case 'expired':
      q = q
        .where('redeemCodes.usedAt', 'is', null)
        .where('redeemCodes.disabledAt', 'is', null)
        .where('redeemCodes.expiresAt', '<=', now);
      break;
    case 'unused':
      q = q
        .where('redeemCodes.usedAt', 'is', null)
        .where('redeemCodes.disabledAt', 'is', null)
        .where('redeemCodes.expiresAt', '>', now);
      break;
  }
  return q;
}

const columns = [
  'redeemCodes.id',
  'redeemCodes.code',
  'redeemCodes.batchId',
  'redeemCodes.coin',
  'redeemCodes.packageId',
  'redeemCodes.note',
  'redeemCodes.expiresAt',
  'redeemCodes.disabledAt',
  'redeemCodes.usedAt',
  'redeemCodes.createdAt',
  'user.userAccount as usedByAccount',
] as const;

/** One page of codes, newest first, with the account that used each one. */
export function listCodes(db: Db, filter: CodeFilter, now: number) {
  return paginate(
    filter,
    (limit, offset) =>
      withStatus(db, filter, now)
        .leftJoin('users as user', 'user.id', 'redeemCodes.usedBy')
        .select(columns)
        .orderBy('redeemCodes.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
    () => withStatus(db, filter, now),
  );
}

/** Every code of a batch, in the order they were generated. */
export function batchCodes(db: Db, batchId: string) {
  return db
    .selectFrom('redeemCodes')
    .leftJoin('users as user', 'user.id', 'redeemCodes.usedBy')
    .select(columns)
    .where('redeemCodes.batchId', '=', batchId)
    .orderBy('redeemCodes.id')
    .execute();
}

export const findById = (db: Db, id: number) =>
  db.selectFrom('redeemCodes').selectAll().where('id', '=', id).executeTakeFirst();

/** Disables the code only while it is usable; one conditional statement, so it cannot race a redemption. */
export async function disableUsable(db: Db, id: number, now: number): Promise<boolean> {
  const row = await db
    .updateTable('redeemCodes')
    .set({ disabledAt: now })
    .where('id', '=', id)
    .where('usedAt', 'is', null)
    .where('disabledAt', 'is', null)
    .where('expiresAt', '>', now)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Claims a usable code for a user and answers it; undefined when there is no such code or it is used, disabled or
 * expired. The condition is part of the update, so of many concurrent claims exactly one gets the row (PostgreSQL
 * re-checks it after waiting for the row lock; SQLite runs writers one at a time).
 */
export function claim(db: Db, code: string, userId: number, now: number) {
  return db
    .updateTable('redeemCodes')
    .set({ usedBy: userId, usedAt: now })
    .where('code', '=', code)
    .where('usedAt', 'is', null)
    .where('disabledAt', 'is', null)
    .where('expiresAt', '>', now)
    .returning(['id', 'batchId', 'coin', 'code'])
    .executeTakeFirst();
}
