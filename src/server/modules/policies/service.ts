import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import type { Db } from '../../db/database.js';
import type { PolicyKind } from '../../db/types.js';
import { conflict } from '../../lib/errors.js';
import { publish } from '../../live/events.js';
import { writeAudit } from '../../support/audit/repo.js';
import type { SessionUser } from '../sessions/service.js';
import { forgetLiveSite } from '../site/live-site-cache.js';
import { findLiveSite, LIVE_SITE_ID } from '../site/repo.js';
import { DEFAULT_POLICIES, POLICY_TITLES } from './defaults.js';
import * as repo from './repo.js';

/**
 * 用户协议 and 隐私政策. One version covers both (the live site record's policyVersion): a change of either raises it,
 * every open page reads the site again (the `site` event), and a signed-in user whose policyAccepted is lower is asked
 * to agree before going on. The texts a site never edited are the defaults (defaults.ts).
 */
export async function get(app: AppContext, kind: PolicyKind): Promise<Schemas['Policy']> {
  const [row, version] = await Promise.all([repo.findPolicy(app.db, kind), currentVersion(app.db)]);
  return {
    kind,
    title: POLICY_TITLES[kind],
    body: row?.body ?? DEFAULT_POLICIES[kind],
    version,
    updatedAt: row?.updatedAt ?? null,
  };
}

export async function update(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['PolicyUpdateRequest'],
): Promise<Schemas['Policy']> {
  const before = await get(app, input.kind);
  // Only a change asks every user to agree again: saving the same text twice moves nothing.
  if (before.body === input.body) return before;
  const now = app.now();
  await app.db.transaction().execute(async (trx) => {
    await repo.savePolicy(trx, input.kind, input.body, actor.id, now);
    const version = await repo.raiseVersion(trx, LIVE_SITE_ID);
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: 'policy.update',
        targetType: 'policy',
        targetId: version,
        before: { kind: input.kind, version: before.version },
        after: { kind: input.kind, version },
      },
      now,
    );
    await publish(trx, { kind: 'site' }, { everyone: true });
  });
  forgetLiveSite();
  return get(app, input.kind);
}

/** The user agrees to `version`, which must be the current one: a text changed while it was read is read again. */
export async function accept(app: AppContext, actor: SessionUser, version: number): Promise<void> {
  if (version !== (await currentVersion(app.db))) throw conflict('用户协议或隐私政策刚刚更新过，请重新阅读后再同意');
  await repo.recordAcceptance(app.db, actor.id, version);
}

/** The version both texts are at: a field of the live site record (read through its compiled lookup). */
const currentVersion = async (db: Db) => (await findLiveSite(db))?.policyVersion ?? 1;
