import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { paginate, type Page, type PageQuery } from '../../db/paging.js';
import type { PaymentChannelsTable } from '../../db/types.js';

// Payment channels and the payment settings (row id 1).

export type ChannelRow = NonNullable<Awaited<ReturnType<typeof findChannel>>>;

export const findChannel = (db: Db, id: number) =>
  db.selectFrom('paymentChannels').selectAll().where('id', '=', id).executeTakeFirst();

export const findSandboxChannel = (db: Db) =>
  db.selectFrom('paymentChannels').selectAll().where('kind', '=', 'sandbox').orderBy('id').executeTakeFirst();

export const allChannels = (db: Db) => db.selectFrom('paymentChannels').selectAll().orderBy('id').execute();

/** One page of channels, oldest first (the sandbox, made at the first start, leads). */
export const channelPage = (db: Db, query: PageQuery): Promise<Page<ChannelRow>> =>
  paginate(
    query,
    (limit, offset) => db.selectFrom('paymentChannels').selectAll().orderBy('id').limit(limit).offset(offset).execute(),
    () => db.selectFrom('paymentChannels'),
  );

/** How many orders each of the given channels has. */
export async function orderCounts(db: Db, ids: number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('orders')
    .select(['channelId', (eb) => eb.fn.countAll<number>().as('n')])
    .where('channelId', 'in', ids)
    .groupBy('channelId')
    .execute();
  return new Map(rows.map((r) => [Number(r.channelId), Number(r.n)]));
}

export async function insertChannel(db: Db, row: Insertable<PaymentChannelsTable>): Promise<number> {
  return (await db.insertInto('paymentChannels').values(row).returning('id').executeTakeFirstOrThrow()).id;
}

export async function updateChannel(db: Db, id: number, patch: Updateable<PaymentChannelsTable>): Promise<void> {
  await db.updateTable('paymentChannels').set(patch).where('id', '=', id).execute();
}

export const orderTimeoutMinutes = async (db: Db): Promise<number> =>
  (await db.selectFrom('paymentSettings').select('orderTimeoutMinutes').where('id', '=', 1).executeTakeFirst())
    ?.orderTimeoutMinutes ?? 15;

export const notifyRetentionDays = async (db: Db): Promise<number> =>
  (await db.selectFrom('paymentSettings').select('notifyRetentionDays').where('id', '=', 1).executeTakeFirst())
    ?.notifyRetentionDays ?? 90;

export async function setPaymentSettings(
  db: Db,
  settings: { orderTimeoutMinutes: number; notifyRetentionDays: number },
): Promise<void> {
  await db.updateTable('paymentSettings').set(settings).where('id', '=', 1).execute();
}
