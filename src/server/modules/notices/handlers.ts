import type { Handlers } from '../handler-types.js';
import * as batches from '../batches/service.js';
import * as notices from './service.js';

type NoticeHandlers = Pick<
  Handlers,
  | 'noticeMy'
  | 'noticeUnread'
  | 'noticeRead'
  | 'noticeReadAll'
  | 'noticeDelete'
  | 'noticeBroadcast'
  | 'noticeBroadcastRecipients'
>;

export const noticeHandlers: NoticeHandlers = {
  noticeMy: ({ app, actor, body }) => notices.mine(app, actor, body),
  noticeUnread: ({ app, actor }) => notices.unread(app, actor),
  noticeRead: ({ app, actor, body }) => notices.open(app, actor, body.id),
  noticeReadAll: ({ app, actor }) => notices.readAll(app, actor),
  noticeDelete: ({ app, actor, body }) => notices.remove(app, actor, body.id),
  noticeBroadcast: ({ app, actor, body }) => batches.startBroadcast(app, actor, body),
  noticeBroadcastRecipients: ({ app, query }) => batches.broadcastRecipients(app, query.role),
};
