import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { mapPage } from '../../db/paging.js';
import { notFound } from '../../lib/errors.js';
import { publish } from '../../live/events.js';
import type { SessionUser } from '../sessions/service.js';
import * as repo from './repo.js';

const NOT_FOUND = '消息不存在';

type NoticeRow = NonNullable<Awaited<ReturnType<typeof repo.findNotice>>>;

const toView = (n: NoticeRow): Schemas['Notice'] => ({
  id: n.id,
  kind: n.kind as Schemas['NoticeKind'],
  title: n.title,
  body: n.body,
  read: n.readAt !== null,
  createdAt: Number(n.createdAt),
});

export const mine = async (app: AppContext, actor: SessionUser, query: Schemas['NoticeQuery']) =>
  mapPage(await repo.pageNotices(app.db, actor.id, query), toView);

/** The unread count changed: the badge on the caller's other tabs and phones follows. */
const countChanged = (app: AppContext, actor: SessionUser) =>
  publish(app.db, { kind: 'notice', action: 'read' }, { users: [actor.id] });

export const unread = async (app: AppContext, actor: SessionUser): Promise<Schemas['NoticeUnread']> => ({
  count: await repo.countUnread(app.db, actor.id),
});

/** Opening a notice marks it read; every query carries the owner, so another user's notice is a 404. */
export async function open(app: AppContext, actor: SessionUser, id: number): Promise<Schemas['Notice']> {
  if (await repo.markRead(app.db, actor.id, id, app.now())) await countChanged(app, actor);
  const notice = await repo.findNotice(app.db, actor.id, id);
  if (!notice) throw notFound(NOT_FOUND);
  return toView(notice);
}

export async function readAll(app: AppContext, actor: SessionUser): Promise<Schemas['NoticeUnread']> {
  const count = await repo.markAllRead(app.db, actor.id, app.now());
  if (count > 0) await countChanged(app, actor);
  return { count };
}

export async function remove(app: AppContext, actor: SessionUser, id: number): Promise<true> {
  if (!(await repo.deleteNotice(app.db, actor.id, id))) throw notFound(NOT_FOUND);
  await countChanged(app, actor);
  return true;
}
