import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { CoinEntryKind } from '../../db/types.js';

export interface EntryFilter {
  userId: number;
  kind?: CoinEntryKind;
}

function filtered(db: Db, filter: EntryFilter) {
  let q = db.selectFrom('coinEntries').where('coinEntries.userId', '=', filter.userId);
  if (filter.kind) q = q.where('coinEntries.kind', '=', filter.kind);
  return q;
}

/** Where a page starts: skip `offset` rows (the numbered pages), or take the rows older than entry `beforeId`. */
export type PageStart = { offset: number } | { beforeId: number };

/**
 * One page of a user's statement, newest first, with the counterparty's and the actor's account names. The page's
 * ids are found first on the (user_id, id, amount) index alone, then only those rows are read and joined: a deep
 * numbered page skips index entries rather than whole joined rows, and a keyset page (`beforeId`) skips nothing.
 */
export async function listEntries(db: Db, filter: EntryFilter, start: PageStart, limit: number) {
  let ids = filtered(db, filter).select('coinEntries.id').orderBy('coinEntries.id', 'desc').limit(limit);
  if ('beforeId' in start) ids = ids.where('coinEntries.id', '<', start.beforeId);
  else ids = ids.offset(start.offset);
  const page = (await ids.execute()).map((r) => r.id);
  if (page.length === 0) return [];
  return db
    .selectFrom('coinEntries')
    .leftJoin('users as counterparty', 'counterparty.id', 'coinEntries.counterpartyId')
    .leftJoin('users as actor', 'actor.id', 'coinEntries.actorId')
    .selectAll('coinEntries')
    .select([
      'counterparty.userAccount as counterpartyAccount',
      'counterparty.closedAt as counterpartyClosedAt',
      'actor.userAccount as actorAccount',
    ])
    .where('coinEntries.id', 'in', page)
    .orderBy('coinEntries.id', 'desc')
    .execute();
}

export type EntryWithAccounts = Awaited<ReturnType<typeof listEntries>>[number];

/**
 * How many entries match: the count kept beside the balance when the whole statement is asked (no counting), a
 * count over the user's entries when filtered by kind.
 */
export async function countEntries(db: Db, filter: EntryFilter): Promise<number> {
  if (!filter.kind) {
    const row = await db.selectFrom('users').select('entryCount').where('id', '=', filter.userId).executeTakeFirst();
    return Number(row?.entryCount ?? 0);
  }
  const row = await filtered(db, filter)
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The next `limit` users after id `after`, with the count of entries kept beside each balance: how the ledger check
 * sizes its slices (a hint only; the sums never rely on it).
 */
export async function entryCountsAfter(db: Db, after: number, limit: number) {
  const rows = await db
    .selectFrom('users')
    .select(['id', 'entryCount'])
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, entryCount: Number(r.entryCount) }));
}

/**
 * The sum and count of a user's next `limit` entries after entry `afterId`, in id order, and the last id among them:
 * one slice of a user with more entries than one statement should read at once, on the (user_id, id, amount) index.
 */
export async function entrySlice(db: Db, userId: number, afterId: number, limit: number) {
  const row = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('coinEntries')
        .select(['id', 'amount'])
        .where('userId', '=', userId)
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limit)
        .as('slice'),
    )
    .select((eb) => [
      // Over no rows (a user with no entries past afterId) sum and max are null.
      eb.fn.sum<number | null>('amount').as('total'),
      eb.fn.countAll<number>().as('n'),
      eb.fn.max<number | null>('id').as('lastId'),
    ])
    .executeTakeFirstOrThrow();
  return { total: Number(row.total ?? 0), entries: Number(row.n), lastId: Number(row.lastId ?? afterId) };
}

/**
 * A user's balance beside the sum and count of its entries after entry `afterId`, in one statement (one snapshot):
 * the end of a user read in slices.
 */
export async function balanceWithSumAfter(db: Db, userId: number, afterId: number) {
  const row = await db
    .selectFrom('users')
    .select((eb) => [
      'users.userAccount',
      'users.coin',
      'users.entryCount',
      eb
        .selectFrom('coinEntries')
        .select((e) => e.fn.coalesce(e.fn.sum<number>('amount'), sql<number>`0`).as('total'))
        .where('coinEntries.userId', '=', userId)
        .where('coinEntries.id', '>', afterId)
        .as('total'),
      eb
        .selectFrom('coinEntries')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('coinEntries.userId', '=', userId)
        .where('coinEntries.id', '>', afterId)
        .as('n'),
    ])
    .where('users.id', '=', userId)
    .executeTakeFirst();
  return (
    row && {
      userAccount: row.userAccount,
      balance: Number(row.coin),
      entryCount: Number(row.entryCount),
      total: Number(row.total ?? 0),
      entries: Number(row.n ?? 0),
    }
  );
}

/**
 * The users with ids in (after, upTo], each with its balance beside the sum and count of its entries. One range of
 * users at a time: the sums come from the (user_id, id, amount) index in user order, so the cost grows with the
 * range's entries, and each user's balance and sum are read in one statement (one snapshot).
 */
export async function balancesWithSums(db: Db, after: number, upTo: number) {
  const rows = await db
    .selectFrom('users')
    .leftJoin(
      (eb) =>
        eb
          .selectFrom('coinEntries')
          .select(['userId', (e) => e.fn.sum<number>('amount').as('total'), (e) => e.fn.countAll<number>().as('n')])
          .where('userId', '>', after)
          .where('userId', '<=', upTo)
          .groupBy('userId')
          .as('sums'),
      (join) => join.onRef('sums.userId', '=', 'users.id'),
    )
    .select(['users.id', 'users.userAccount', 'users.coin', 'users.entryCount', 'sums.total', 'sums.n'])
    .where('users.id', '>', after)
    .where('users.id', '<=', upTo)
    .orderBy('users.id')
    .execute();
  return rows.map((r) => ({
    userId: r.id,
    userAccount: r.userAccount,
    balance: Number(r.coin),
    sumOfEntries: Number(r.total ?? 0),
    entries: Number(r.n ?? 0),
    entryCount: Number(r.entryCount),
  }));
}

/**
 * What a movement gave each account, by kind (an order's credit and its agent's rebate, by the order number), with
 * each account's name and balance now: what a refund would take back.
 */
export const creditsOfReference = (db: Db, reference: string, kinds: readonly CoinEntryKind[]) =>
  db
    .selectFrom('coinEntries')
    .innerJoin('users', 'users.id', 'coinEntries.userId')
    .select(['coinEntries.userId', 'coinEntries.kind', 'coinEntries.amount', 'users.userAccount', 'users.coin'])
    .where('coinEntries.reference', '=', reference)
    .where('coinEntries.kind', 'in', kinds)
    .orderBy('coinEntries.id')
    .execute();
