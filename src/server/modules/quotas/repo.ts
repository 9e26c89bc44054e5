import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import { paginate } from '../../db/paging.js';
import { asciiContains, keyContains } from '../../db/search.js';
import type { QuotaEntriesTable, QuotaGrantsTable, QuotaUnit } from '../../db/tables-quota-ai.js';

export type QuotaStatus = 'active' | 'expired' | 'used' | 'revoked';

export async function insertGrant(db: Db, grant: Insertable<QuotaGrantsTable>): Promise<number> {
  const row = await db.insertInto('quotaGrants').values(grant).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

/**
 * Adds `amount` (signed) to a grant's remaining units unless that would take them below zero, and answers the new
 * remaining. One conditional statement, as the ledger's balance update (coins/ledger-sqlite.ts, move_coins): the
 * database decides under concurrency.
 */
export async function applyToGrant(db: Db, grantId: number, amount: number): Promise<number | undefined> {
  const row = await db
    .updateTable('quotaGrants')
    .set({ remaining: sql`remaining + ${amount}` })
    .where('id', '=', grantId)
    .where(sql<boolean>`remaining + ${amount} >= 0`)
    .returning('remaining')
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.remaining);
}

export async function insertEntry(db: Db, entry: Insertable<QuotaEntriesTable>): Promise<void> {
  await db.insertInto('quotaEntries').values(entry).execute();
}

/** Marks a grant revoked and empties it, only if it still holds exactly what the caller read (else nothing). */
export async function markRevoked(db: Db, grantId: number, remaining: number, now: number): Promise<boolean> {
  const row = await db
    .updateTable('quotaGrants')
    .set({ remaining: 0, revokedAt: now })
    .where('id', '=', grantId)
    .where('revokedAt', 'is', null)
    .where('remaining', '=', remaining)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Grants that may pay a charge now: the user's, on this platform or on all, of this unit, unexpired, not empty. */
export function usableGrants(db: Db, q: { userId: number; platformId: number; unit: QuotaUnit; now: number }) {
  return (
    usable(db, q.userId, q.now, q.platformId)
      .where('unit', '=', q.unit)
      .select('id')
      // The soonest to expire first (so nothing lapses unused), then a platform's own before the all-platform ones.
      .orderBy(sql`case when expires_at is null then 1 else 0 end`)
      .orderBy('expiresAt')
      .orderBy(sql`case when platform_id is null then 1 else 0 end`)
      .orderBy('id')
      .execute()
  );
}

function usable(db: Db, userId: number, now: number, platformId?: number) {
  let q = db
    .selectFrom('quotaGrants')
    .where('userId', '=', userId)
    .where('revokedAt', 'is', null)
    .where('remaining', '>', 0)
    .where((eb) => eb.or([eb('expiresAt', 'is', null), eb('expiresAt', '>', now)]));
  if (platformId !== undefined)
    q = q.where((eb) => eb.or([eb('platformId', 'is', null), eb('platformId', '=', platformId)]));
  return q;
}

/** What a user may still use, by unit (on one platform, counting the all-platform grants, or everywhere). */
export async function usableTotals(db: Db, userId: number, now: number, platformId?: number) {
  const rows = await usable(db, userId, now, platformId)
    .select(['unit', (eb) => eb.fn.sum<number>('remaining').as('total')])
    .groupBy('unit')
    .execute();
  const total = (unit: QuotaUnit) => Number(rows.find((r) => r.unit === unit)?.total ?? 0);
  return { runs: total('runs'), days: total('days') };
}

export interface GrantFilter {
  current?: number;
  pageSize?: number;
  searchText?: string;
  platformId?: number;
  status?: QuotaStatus;
  id?: number;
}

function filtered(db: Db, filter: GrantFilter, now: number) {
  let q = db
    .selectFrom('quotaGrants')
    .innerJoin('users', 'users.id', 'quotaGrants.userId')
    .leftJoin('platforms', 'platforms.id', 'quotaGrants.platformId');
  if (filter.id !== undefined) q = q.where('quotaGrants.id', '=', filter.id);
  if (filter.platformId !== undefined) q = q.where('quotaGrants.platformId', '=', filter.platformId);
  if (filter.searchText) {
    const text = filter.searchText;
    q = q.where((eb) => eb.or([asciiContains('users.userAccount', text), keyContains('platforms.nameKey', text)]));
  }
  // The same order of precedence as statusOf in the service: revoked, then used up, then expired.
  const notExpired = sql<boolean>`(quota_grants.expires_at is null or quota_grants.expires_at > ${now})`;
  if (filter.status === 'revoked') q = q.where('quotaGrants.revokedAt', 'is not', null);
  else if (filter.status) {
    q = q.where('quotaGrants.revokedAt', 'is', null);
    if (filter.status === 'used') q = q.where('quotaGrants.remaining', '=', 0);
    else {
      q = q.where('quotaGrants.remaining', '>', 0);
      q = q.where(filter.status === 'active' ? notExpired : sql<boolean>`not ${notExpired}`);
    }
  }
  return q;
}

/** One page of grants, newest first, with the account, the platform's name and who granted it. */
export function listGrants(db: Db, filter: GrantFilter, now: number) {
  return paginate(
    filter,
    (limit, offset) =>
      filtered(db, filter, now)
        .leftJoin('users as actor', 'actor.id', 'quotaGrants.actorId')
        .selectAll('quotaGrants')
        .select(['users.userAccount', 'platforms.name as platformName', 'actor.userAccount as actorAccount'])
        // Units a revoke took back (0 unless revoked): with `remaining`, what runs actually used.
        .select((eb) =>
          eb
            .selectFrom('quotaEntries')
            .select(sql<number>`coalesce(-sum(amount), 0)`.as('n'))
            .whereRef('quotaEntries.grantId', '=', 'quotaGrants.id')
            .where('quotaEntries.kind', '=', 'revoke')
            .as('revokedUnits'),
        )
        .orderBy('quotaGrants.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
    () => filtered(db, filter, now),
  );
}

export type GrantRow = Awaited<ReturnType<typeof listGrants>>['records'][number];

export const findGrant = async (db: Db, id: number, now: number): Promise<GrantRow | undefined> =>
  (await listGrants(db, { id, pageSize: 1 }, now)).records[0];

export const findGrantForUpdate = (db: Db, id: number) =>
  db.selectFrom('quotaGrants').selectAll().where('id', '=', id).executeTakeFirst();
