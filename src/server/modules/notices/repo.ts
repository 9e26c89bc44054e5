import type { Db } from '../../db/database.js';

export type NoticeKind = 'run_failed' | 'run_skipped' | 'service_paused' | 'quota_granted';

export interface NewNotice {
  userId: number;
  kind: NoticeKind;
  title: string;
  body: string;
}

/** One inbox row per event, written in the transaction of the event itself. */
export async function insertNotice(db: Db, notice: NewNotice, now: number): Promise<void> {
  await db
    .insertInto('notices')
    .values({ ...notice, readAt: null, createdAt: now })
    .execute();
}

export async function countUnread(db: Db, userId: number): Promise<number> {
  const row = await db
    .selectFrom('notices')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('userId', '=', userId)
    .where('readAt', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const listNotices = (db: Db, userId: number, limit = 50) =>
  db.selectFrom('notices').selectAll().where('userId', '=', userId).orderBy('id', 'desc').limit(limit).execute();
