import type { Db } from '../../db/database.js';
import type { CoinEntryKind } from '../../db/types.js';
import { paginate } from '../../db/paging.js';

export interface EntryFilter {
  userId: number;
  kind?: CoinEntryKind;
  current?: number;
  pageSize?: number;
}

function filtered(db: Db, filter: EntryFilter) {
  let q = db.selectFrom('coinEntries').where('coinEntries.userId', '=', filter.userId);
  if (filter.kind) q = q.where('coinEntries.kind', '=', filter.kind);
  return q;
}

/** One page of a user's statement, newest first, with the counterparty's and the actor's account names. */
export function listEntries(db: Db, filter: EntryFilter, options: { withTotal: boolean } = { withTotal: true }) {
  return paginate(
    filter,
    (limit, offset) =>
      filtered(db, filter)
        .leftJoin('users as counterparty', 'counterparty.id', 'coinEntries.counterpartyId')
        .leftJoin('users as actor', 'actor.id', 'coinEntries.actorId')
        .selectAll('coinEntries')
        .select(['counterparty.userAccount as counterpartyAccount', 'actor.userAccount as actorAccount'])
        .orderBy('coinEntries.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
    options.withTotal ? () => filtered(db, filter) : undefined,
  );
}

/** Every user's balance beside the sum of its entries (sums come back as text or bigint; normalised to numbers). */
export async function balancesWithSums(db: Db) {
  const rows = await db
    .selectFrom('users')
    .leftJoin(
      (eb) =>
        eb
          .selectFrom('coinEntries')
          .select(['userId', (e) => e.fn.sum<number>('amount').as('total'), (e) => e.fn.countAll<number>().as('n')])
          .groupBy('userId')
          .as('sums'),
      (join) => join.onRef('sums.userId', '=', 'users.id'),
    )
    .select(['users.id', 'users.userAccount', 'users.coin', 'sums.total', 'sums.n'])
    .execute();
  return rows.map((r) => ({
    userId: r.id,
    userAccount: r.userAccount,
    balance: Number(r.coin),
    sumOfEntries: Number(r.total ?? 0),
    entries: Number(r.n ?? 0),
  }));
}

export const findIdempotencyKey = (db: Db, actorId: number, key: string) =>
  db.selectFrom('idempotencyKeys').selectAll().where('actorId', '=', actorId).where('key', '=', key).executeTakeFirst();

export async function insertIdempotencyKey(
  db: Db,
  row: { actorId: number; key: string; operation: string; requestHash: string; response: string; createdAt: number },
): Promise<void> {
  await db.insertInto('idempotencyKeys').values(row).execute();
}

/** Claims a key unless it is taken (answers false then); waits for an uncommitted holder of the key to finish. */
export async function claimIdempotencyKey(
  db: Db,
  row: { actorId: number; key: string; operation: string; requestHash: string; response: string; createdAt: number },
): Promise<boolean> {
  const claimed = await db
    .insertInto('idempotencyKeys')
    .values(row)
    .onConflict((oc) => oc.columns(['actorId', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();
  return claimed !== undefined;
}

export async function recordIdempotentResult(db: Db, actorId: number, key: string, response: string): Promise<void> {
  await db
    .updateTable('idempotencyKeys')
    .set({ response })
    .where('actorId', '=', actorId)
    .where('key', '=', key)
    .execute();
}
