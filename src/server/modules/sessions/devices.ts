import type { RequestQuery, Schemas } from '../../../api/operations.js';
import type { AppContext } from '../../context.js';
import { badParams, noPermission, notFound } from '../../lib/errors.js';
import { mapPage } from '../../db/paging.js';
import { writeAudit } from '../audit/repo.js';
import * as repo from './repo.js';
import { ABSOLUTE_MS, endSession, endUserSessions, sessionId, type SessionUser } from './service.js';

// 我的 → 登录设备: the caller's sessions still in use, each ended from here; an admin sees and ends any user's (the
// user detail links to it), and every such end is audited.

function ownerOf(actor: SessionUser, userId: number | undefined): number {
  const owner = userId ?? actor.id;
  if (owner !== actor.id && actor.userRole !== 'admin') throw noPermission('只能管理自己的登录设备');
  return owner;
}

export async function listDevices(
  app: AppContext,
  actor: SessionUser,
  currentHash: string,
  query: RequestQuery<'sessionList'>,
): Promise<Schemas['SessionPage']> {
  const owner = ownerOf(actor, query.userId);
  const page = await repo.sessionPage(app.db, owner, app.now(), ABSOLUTE_MS, query);
  const secret = app.config.sessionSecret;
  return mapPage(page, (s) => ({
    id: sessionId(secret, s.tokenHash),
    userId: owner,
    browser: s.browser,
    system: s.system,
    address: s.address,
    createdAt: Number(s.createdAt),
    lastSeenAt: Number(s.lastSeenAt),
    current: s.tokenHash === currentHash,
  }));
}

export async function endDevice(
  app: AppContext,
  actor: SessionUser,
  currentHash: string,
  body: Schemas['SessionEndRequest'],
): Promise<void> {
  const owner = ownerOf(actor, body.userId);
  const now = app.now();
  const hashes = await repo.liveSessionHashes(app.db, owner, now, ABSOLUTE_MS);
  const hash = hashes.find((h) => sessionId(app.config.sessionSecret, h) === body.id);
  if (hash === undefined) throw notFound('该设备已经退出登录');
  if (hash === currentHash) throw badParams('这是你正在使用的设备，请用“退出登录”');
  await app.db.transaction().execute(async (trx) => {
    await endSession(trx, owner, hash, 'ended', now);
    if (owner !== actor.id)
      await writeAudit(
        trx,
        { actorId: actor.id, action: 'session.end', targetType: 'user', targetId: owner, after: { session: body.id } },
        now,
      );
  });
}

export async function endOtherDevices(app: AppContext, actor: SessionUser, currentHash: string): Promise<number> {
  const now = app.now();
  const others = (await repo.liveSessionHashes(app.db, actor.id, now, ABSOLUTE_MS)).filter((h) => h !== currentHash);
  await endUserSessions(app.db, actor.id, 'ended', now, currentHash);
  return others.length;
}
