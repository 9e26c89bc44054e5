import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import type { Db } from '../../db/database.js';
import { mapPage, type Page } from '../../db/paging.js';
import { badParams, notFound } from '../../lib/errors.js';
import { writeAudit } from '../../support/audit/repo.js';
import { idempotentIn } from '../coins/idempotency.js';
import { quotaGranted } from '../notices/events.js';
import { findPlatform } from '../platforms/repo.js';
import type { SessionUser } from '../sessions/service.js';
import * as users from '../users/repo.js';
import { postQuota, quotaUnitFor } from './ledger.js';
import * as repo from './repo.js';

export type GrantView = Schemas['QuotaGrant'];

/** Revoked, then used up, then expired: the first that holds (repo.filtered filters in the same order). */
function statusOf(row: repo.GrantRow, now: number): repo.QuotaStatus {
  if (row.revokedAt !== null) return 'revoked';
  if (Number(row.remaining) === 0) return 'used';
  if (row.expiresAt !== null && Number(row.expiresAt) <= now) return 'expired';
  return 'active';
}

const toView =
  (now: number) =>
  (row: repo.GrantRow): GrantView => ({
    id: row.id,
    userId: row.userId,
    userAccount: row.userAccount,
    platformId: row.platformId,
    platformName: row.platformName,
    unit: row.unit,
    amount: Number(row.amount),
    remaining: Number(row.remaining),
    // What runs consumed: the grant less what is left and what a revoke took back.
    used: Number(row.amount) - Number(row.remaining) - Number(row.revokedUnits ?? 0),
    reason: row.reason,
    expiresAt: row.expiresAt === null ? null : Number(row.expiresAt),
    revokedAt: row.revokedAt === null ? null : Number(row.revokedAt),
    status: statusOf(row, now),
    actorAccount: row.actorAccount,
    createdAt: Number(row.createdAt),
  });

export interface GrantQuotaInput {
  /** The admin (or the batch's starter) the grant and its Idempotency-Key belong to. */
  actorId: number;
  idempotencyKey: string;
  request: Schemas['QuotaGrantRequest'];
  now: number;
}

/**
 * Grants free quota inside the caller's transaction: claims the Idempotency-Key (a retry answers the first grant and
 * grants nothing), writes the grant and its first entry, the audit row and the user's notice. Exported for the batch
 * task, which grants one item per call with a key of its own.
 */
export async function grantQuota(trx: Db, input: GrantQuotaInput): Promise<GrantView> {
  const { actorId, request, now } = input;
  const scope = { actorId, key: input.idempotencyKey, operation: 'quotaGrant', request };
  return idempotentIn(trx, scope, now, async () => {
    const target = await users.findLiveByAccount(trx, request.userAccount);
    if (!target) throw notFound('用户不存在');
    let platformName = '全部平台';
    if (request.platformId !== undefined) {
      const platform = await findPlatform(trx, request.platformId);
      if (!platform) throw notFound('平台不存在');
      if (quotaUnitFor(platform.billingUnit) !== request.unit)
        throw badParams(
          platform.billingUnit === 'one_off' ? '一次性计费的平台不使用免费额度' : '额度单位与平台的计费方式不一致',
        );
      platformName = platform.name;
    }
    if (request.expiresAt !== undefined && request.expiresAt <= now) throw badParams('过期时间须晚于现在');
    const grantId = await repo.insertGrant(trx, {
      userId: target.id,
      platformId: request.platformId ?? null,
      unit: request.unit,
      amount: request.amount,
      remaining: 0,
      reason: request.reason,
      expiresAt: request.expiresAt ?? null,
      revokedAt: null,
      actorId,
      createdAt: now,
    });
    await postQuota(trx, {
      grantId,
      userId: target.id,
      amount: request.amount,
      kind: 'grant',
      reference: `grant-${grantId}`,
      actorId,
      now,
    });
    await writeAudit(
      trx,
      {
        actorId,
        action: 'quota.grant',
        targetType: 'quota',
        targetId: grantId,
        after: { ...request, userId: target.id },
      },
      now,
    );
    await quotaGranted(
      trx,
      { userId: target.id, amount: request.amount, unit: request.unit, platformName, reason: request.reason },
      now,
    );
    return (await findView(trx, grantId, now))!;
  });
}

async function findView(db: Db, id: number, now: number): Promise<GrantView | undefined> {
  const row = await repo.findGrant(db, id, now);
  return row && toView(now)(row);
}

/** The HTTP grant: one transaction around grantQuota. */
export async function grant(
  app: AppContext,
  actor: SessionUser,
  key: string,
  request: Schemas['QuotaGrantRequest'],
): Promise<GrantView> {
  const now = app.now();
  return app.db
    .transaction()
    .execute((trx) => grantQuota(trx, { actorId: actor.id, idempotencyKey: key, request, now }));
}

/**
 * Takes back what is left of a grant: one revoke entry for the remaining units, in the audit log. Units used stay
 * used. Revoking twice changes nothing. A charge may use a unit between the read and the update; the update only
 * applies to what was read, so the loop reads again.
 */
export async function revoke(app: AppContext, actor: SessionUser, id: number): Promise<GrantView> {
  const now = app.now();
  return app.db.transaction().execute(async (trx) => {
    for (;;) {
      const grant = await repo.findGrantForUpdate(trx, id);
      if (!grant) throw notFound('额度记录不存在');
      if (grant.revokedAt !== null) return (await findView(trx, id, now))!;
      const left = Number(grant.remaining);
      if (!(await repo.markRevoked(trx, id, left, now))) continue;
      // The projection is already 0; the entry records the units taken so the sum of entries stays equal to it.
      if (left > 0)
        await repo.insertEntry(trx, {
          grantId: id,
          userId: grant.userId,
          amount: -left,
          remainingAfter: 0,
          kind: 'revoke',
          runId: null,
          reference: `revoke-${id}`,
          actorId: actor.id,
          createdAt: now,
        });
      await writeAudit(
        trx,
        {
          actorId: actor.id,
          action: 'quota.revoke',
          targetType: 'quota',
          targetId: id,
          before: { remaining: left },
          after: { remaining: 0 },
        },
        now,
      );
      return (await findView(trx, id, now))!;
    }
  });
}

export async function list(app: AppContext, query: Schemas['QuotaQuery']): Promise<Page<GrantView>> {
  const now = app.now();
  return mapPage(await repo.listGrants(app.db, query, now), toView(now));
}

/** What a user may still use (on one platform, or everywhere). */
export const balance = (db: Db, userId: number, now: number, platformId?: number): Promise<Schemas['QuotaBalance']> =>
  repo.usableTotals(db, userId, now, platformId);

export const my = (app: AppContext, actor: SessionUser, platformId: number | undefined) =>
  balance(app.db, actor.id, app.now(), platformId);
