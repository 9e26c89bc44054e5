import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

// What a batch works through, read in keyset pages (`after`, `limit`): the users a broadcast reaches, a platform's
// active services, the ledger's entries for the statements export. A batch fixes its upper id when it starts, so
// rows added later are not in it.

export type Role = 'all' | 'user' | 'agent' | 'admin';

export const maxId = async (db: Db, table: 'users' | 'services' | 'coinEntries') =>
  Number(
    (
      await db
        .selectFrom(table)
        .select(sql<number | null>`max(id)`.as('m'))
        .executeTakeFirst()
    )?.m ?? 0,
  );

const COUNT = sql<number>`count(*)`.as('n');

const recipients = (db: Db, role: Role, maxUserId: number) => {
  let q = db.selectFrom('users').where('deletedAt', 'is', null).where('id', '<=', maxUserId);
  if (role !== 'all') q = q.where('userRole', '=', role);
  return q;
};

export const countRecipients = async (db: Db, role: Role, maxUserId: number) =>
  Number((await recipients(db, role, maxUserId).select(COUNT).executeTakeFirstOrThrow()).n);

export const recipientsAfter = (db: Db, role: Role, maxUserId: number, after: number, limit: number) =>
  recipients(db, role, maxUserId)
    .select(['id', 'userAccount'])
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();

const activeServices = (db: Db, platformId: number, maxServiceId: number) =>
  db
    .selectFrom('services')
    .where('services.platformId', '=', platformId)
    .where('services.state', '=', 'active')
    .where('services.id', '<=', maxServiceId);

export const countActiveServices = async (db: Db, platformId: number, maxServiceId: number) =>
  Number((await activeServices(db, platformId, maxServiceId).select(COUNT).executeTakeFirstOrThrow()).n);

export const activeServicesAfter = (db: Db, platformId: number, maxServiceId: number, after: number, limit: number) =>
  activeServices(db, platformId, maxServiceId)
    .innerJoin('users', 'users.id', 'services.userId')
    .select(['services.id', 'services.userId', 'services.platformId', 'users.userAccount'])
    .where('services.id', '>', after)
    .orderBy('services.id')
    .limit(limit)
    .execute();

export const countEntriesUpTo = async (db: Db, maxEntryId: number) =>
  Number((await db.selectFrom('coinEntries').select(COUNT).where('id', '<=', maxEntryId).executeTakeFirstOrThrow()).n);

/** Ledger entries with their account and counterparty, as the export writes them. */
export const entriesAfter = (db: Db, maxEntryId: number, after: number, limit: number) =>
  db
    .selectFrom('coinEntries')
    .innerJoin('users', 'users.id', 'coinEntries.userId')
    .leftJoin('users as counterparty', 'counterparty.id', 'coinEntries.counterpartyId')
    .select([
      'counterparty.userAccount as counterpartyAccount',
      'counterparty.closedAt as counterpartyClosedAt',
      'coinEntries.id',
      'users.userAccount',
      'coinEntries.createdAt',
      'coinEntries.kind',
      'coinEntries.amount',
      'coinEntries.balanceAfter',
      'coinEntries.description',
      'coinEntries.reference',
    ])
    .where('coinEntries.id', '>', after)
    .where('coinEntries.id', '<=', maxEntryId)
    .orderBy('coinEntries.id')
    .limit(limit)
    .execute();

/** Live accounts among these, by lower-case name: one query per 500 names. */
export async function liveAccounts(db: Db, names: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < names.length; i += 500) {
    const rows = await db
      .selectFrom('users')
      .select(sql<string>`lower(user_account)`.as('account'))
      .where('deletedAt', 'is', null)
      .where(sql<boolean>`lower(user_account) in (${sql.join(names.slice(i, i + 500).map((n) => n.toLowerCase()))})`)
      .execute();
    for (const r of rows) found.add(r.account);
  }
  return found;
}
