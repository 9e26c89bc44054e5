import type { Db } from '../../db/database.js';
import type { QuotaEntryKind } from '../../db/tables-quota-ai.js';
import type { BillingUnit } from '../../db/types.js';
import { applyToGrant, insertEntry, usableGrants } from './repo.js';

// The quota ledger, shaped like the coin ledger: every change to a grant's remaining units is one conditional update
// of the projection and one appended entry, in the caller's transaction. Nothing else writes `remaining`.

export interface QuotaPosting {
  grantId: number;
  userId: number;
  /** Signed: a grant or refund adds, a use or revoke takes. */
  amount: number;
  kind: QuotaEntryKind;
  runId?: number | null;
  reference: string;
  actorId: number | null;
  now: number;
}

/** Posts one entry; answers the grant's remaining units after it, or undefined when it would go below zero. */
export async function postQuota(trx: Db, posting: QuotaPosting): Promise<number | undefined> {
  if (!Number.isSafeInteger(posting.amount) || posting.amount === 0)
    throw new Error(`invalid quota amount ${posting.amount}`);
  const remaining = await applyToGrant(trx, posting.grantId, posting.amount);
  if (remaining === undefined) return undefined;
  await insertEntry(trx, {
    grantId: posting.grantId,
    userId: posting.userId,
    amount: posting.amount,
    remainingAfter: remaining,
    kind: posting.kind,
    runId: posting.runId ?? null,
    reference: posting.reference,
    actorId: posting.actorId,
    createdAt: posting.now,
  });
  return remaining;
}

/**
 * Which quota unit pays a billing period: a run quota pays a per_run platform's run, a day quota a per_day platform's
 * day. A one-off start is never paid by quota (it is not a run). Keeping units apart means "10 free runs" always means
 * ten runs, whatever the platform's billing.
 */
export const quotaUnitFor = (unit: BillingUnit) => (unit === 'per_run' ? 'runs' : unit === 'per_day' ? 'days' : null);

/**
 * Pays one billing period from the user's quota if a usable grant has a unit left; answers the grant that paid, or
 * null (then coins pay). Candidates come in order of use; a concurrent charge may empty one first, so the
 * conditional update decides, and the next candidate is tried.
 */
export async function useQuota(
  trx: Db,
  request: {
    userId: number;
    platformId: number;
    billingUnit: BillingUnit;
    chargeReference: string;
    runId: number | null;
    now: number;
  },
): Promise<number | null> {
  const unit = quotaUnitFor(request.billingUnit);
  if (!unit) return null;
  const candidates = await usableGrants(trx, { ...request, unit });
  for (const { id } of candidates) {
    const remaining = await postQuota(trx, {
      grantId: id,
      userId: request.userId,
      amount: -1,
      kind: 'use',
      runId: request.runId,
      reference: `use-${request.chargeReference}`,
      actorId: null,
      now: request.now,
    });
    if (remaining !== undefined) return id;
  }
  return null;
}

/**
 * Gives a failed run's unit back to the grant that paid it (even if it has expired or been revoked since: the entry
 * keeps the ledger whole, and such a grant is not used again). Once per charge: the reference is unique.
 */
export async function refundQuota(
  trx: Db,
  request: { grantId: number; userId: number; runId: number; chargeReference: string; now: number },
): Promise<string> {
  const reference = `refund-${request.chargeReference}`;
  await postQuota(trx, {
    grantId: request.grantId,
    userId: request.userId,
    amount: 1,
    kind: 'refund',
    runId: request.runId,
    reference,
    actorId: null,
    now: request.now,
  });
  return reference;
}
