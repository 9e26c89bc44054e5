import { sql } from 'kysely';
import { compiledOnce } from '../../db/compiled-once.js';
import type { Db } from '../../db/database.js';
import { paginate } from '../../db/paging.js';
import { publish } from '../../live/events.js';

/** Every event a user hears of in the inbox. */
export type NoticeKind =
  | 'run_succeeded'
  | 'run_failed'
  | 'run_skipped'
  | 'service_paused'
  | 'order_confirmed'
  | 'order_cancelled'
  | 'coins_received'
  | 'coins_credited'
  | 'coins_debited'
  | 'new_sign_in'
  | 'two_factor_reset'
  | 'sign_in_changed'
  | 'redeem_used'
  | 'quota_granted'
  | 'broadcast';

export interface NewNotice {
  userId: number;
  kind: NoticeKind;
  title: string;
  body: string;
}

// Written by every transfer, run and order: compiled once (db/compiled-once.ts).
const noticeInsert = compiledOnce(
  (db: Db, userId: number, kind: NoticeKind, title: string, body: string, createdAt: number) =>
    db.insertInto('notices').values({ userId, kind, title, body, readAt: sql<null>`null`, createdAt }),
  [-1, '<kind>' as NoticeKind, '<title>', '<body>', -2] as const,
);

const created = { kind: 'notice', action: 'created' } as const;

/** One inbox row per event, written in the transaction of the event itself; the owner's screens hear of it on commit. */
export async function insertNotice(db: Db, notice: NewNotice, now: number): Promise<void> {
  await noticeInsert(db, notice.userId, notice.kind, notice.title, notice.body, now);
  await publish(db, created, { users: [notice.userId] });
}

/** The same notice to many users in one statement (a broadcast's chunk). */
export async function insertNotices(
  db: Db,
  userIds: readonly number[],
  notice: Omit<NewNotice, 'userId'>,
  now: number,
) {
  if (userIds.length === 0) return;
  await db
    .insertInto('notices')
    .values(userIds.map((userId) => ({ ...notice, userId, readAt: null, createdAt: now })))
    .execute();
  await publish(db, created, { users: userIds });
}

/** Walks the index (user_id, read_at): no scan of the user's read notices, none of other users'. */
export async function countUnread(db: Db, userId: number): Promise<number> {
  const row = await db
    .selectFrom('notices')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('userId', '=', userId)
    .where('readAt', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const pageNotices = (db: Db, userId: number, query: { current?: number; pageSize?: number }) => {
  const mine = () => db.selectFrom('notices').where('userId', '=', userId);
  return paginate(
    query,
    (limit, offset) => mine().selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    mine,
  );
};

export const findNotice = (db: Db, userId: number, id: number) =>
  db.selectFrom('notices').selectAll().where('id', '=', id).where('userId', '=', userId).executeTakeFirst();

/** Marks read; the owner is part of the key, so another user's notice is simply not found. */
export async function markRead(db: Db, userId: number, id: number, now: number): Promise<boolean> {
  const r = await db
    .updateTable('notices')
    .set({ readAt: now })
    .where('id', '=', id)
    .where('userId', '=', userId)
    .where('readAt', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function markAllRead(db: Db, userId: number, now: number): Promise<number> {
  const r = await db
    .updateTable('notices')
    .set({ readAt: now })
    .where('userId', '=', userId)
    .where('readAt', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export async function deleteNotice(db: Db, userId: number, id: number): Promise<boolean> {
  const r = await db.deleteFrom('notices').where('id', '=', id).where('userId', '=', userId).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}
