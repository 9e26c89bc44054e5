import type { Db } from '../../db/database.js';
import type { BillingUnit } from '../../db/types.js';
import { AppError, ErrorCode } from '../../lib/errors.js';
import { moveCoins } from '../coins/ledger.js';
import { useQuota } from '../quotas/ledger.js';

/** What one charge is asked for: a service, the period it pays for, and the price at that moment. */
export interface ChargeRequest {
  userId: number;
  serviceId: number;
  platformId: number;
  billingUnit: BillingUnit;
  /** 'run:<id>' (per_run), 'day:<yyyy-mm-dd>' (per_day, site time zone) or 'once' (one_off). */
  period: string;
  runId: number | null;
  price: number;
  description: string;
  now: number;
}

export type ChargeOutcome =
  | { kind: 'charged'; amount: number; reference: string }
  /** Paid by one unit of the user's free quota (grant `grantId`); no coins moved. */
  | { kind: 'quota'; grantId: number; reference: string }
  /** The period was paid already (an earlier run today, the start of a one-off service, or a retry of this run). */
  | { kind: 'covered' }
  /** Nothing to pay: a free platform. */
  | { kind: 'free' }
  | { kind: 'insufficient' };

/** The billing period a run falls in, or null when runs are not charged (one-off services paid at start). */
export function runPeriod(unit: BillingUnit, runId: number, day: string): string | null {
  if (unit === 'per_run') return `run:${runId}`;
  if (unit === 'per_day') return `day:${day}`;
  return null;
}

export const chargeReference = (serviceId: number, period: string) => `svc-${serviceId}-${period.replace(':', '-')}`;

/**
 * The one place a service is charged, inside the caller's transaction (so the charge, the run's state and the ledger
 * entry commit together). The period row is claimed first: its primary key makes a period paid once however many
 * processes or retries ask. Free quota pays before coins (a usable grant of the platform's unit, see quotas/ledger.ts).
 * Not enough coins leaves no trace (the claim is taken back) and answers `insufficient`.
 */
export async function charge(trx: Db, request: ChargeRequest): Promise<ChargeOutcome> {
  if (request.price <= 0) return { kind: 'free' };
  const reference = chargeReference(request.serviceId, request.period);
  const claimed = await trx
    .insertInto('serviceCharges')
    .values({
      serviceId: request.serviceId,
      period: request.period,
      runId: request.runId,
      amount: request.price,
      reference,
      createdAt: request.now,
    })
    .onConflict((oc) => oc.columns(['serviceId', 'period']).doNothing())
    .returning('serviceId')
    .executeTakeFirst();
  if (!claimed) return { kind: 'covered' };
  const grantId = await useQuota(trx, {
    userId: request.userId,
    platformId: request.platformId,
    billingUnit: request.billingUnit,
    chargeReference: reference,
    runId: request.runId,
    now: request.now,
  });
  if (grantId !== null) {
    await trx
      .updateTable('serviceCharges')
      .set({ amount: 0, quotaGrantId: grantId })
      .where('serviceId', '=', request.serviceId)
      .where('period', '=', request.period)
      .execute();
    return { kind: 'quota', grantId, reference };
  }
  try {
    await moveCoins(trx, {
      postings: [
        { userId: request.userId, amount: -request.price, kind: 'service_charge', description: request.description },
      ],
      reference,
      actorId: null,
      now: request.now,
    });
  } catch (error) {
    // moveCoins refuses before writing (its conditional update matched nothing), so the transaction is still usable.
    if (!(error instanceof AppError) || error.code !== ErrorCode.BAD_PARAMS) throw error;
    await trx
      .deleteFrom('serviceCharges')
      .where('serviceId', '=', request.serviceId)
      .where('period', '=', request.period)
      .execute();
    return { kind: 'insufficient' };
  }
  return { kind: 'charged', amount: request.price, reference };
}

/** Gives back what a failed run paid, once (its reference is derived from the charge's). */
export async function refund(
  trx: Db,
  request: { userId: number; amount: number; chargeReference: string; description: string; now: number },
): Promise<string> {
  const reference = `refund-${request.chargeReference}`;
  await moveCoins(trx, {
    postings: [
      { userId: request.userId, amount: request.amount, kind: 'service_refund', description: request.description },
    ],
    reference,
    actorId: null,
    now: request.now,
  });
  return reference;
}
