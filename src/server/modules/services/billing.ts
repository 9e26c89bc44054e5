import type { Db } from '../../db/database.js';
import type { BillingUnit } from '../../db/types.js';
import { AppError, ErrorCode } from '../../lib/errors.js';
import { moveCoins, type Counted } from '../coins/ledger.js';
import { useQuota } from '../quotas/ledger.js';
import * as runs from '../runs/repo.js';
import type { HeldPayment } from '../runs/repo.js';
import * as charges from './charges-repo.js';

/** What one charge is asked for: a service, the period it pays for, and the price at that moment. */
export interface ChargeRequest extends Counted {
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

/**
 * The ledger reference of one charge. A day can be paid, refunded (its only run failed) and paid again by a later run:
 * the paying run's id keeps each charge, and so its refund, a reference of its own.
 */
export const chargeReference = (serviceId: number, period: string, runId: number | null) =>
  `svc-${serviceId}-${period.replace(':', '-')}${runId === null ? '' : period.startsWith('day:') ? `-r${runId}` : ''}`;

/**
 * The one place a service is charged, inside the caller's transaction (so the charge, the run's state and the ledger
 * entry commit together). The period row is claimed first: its primary key makes a period paid once however many
 * processes or retries ask. Free quota pays before coins (a usable grant of the platform's unit, see quotas/ledger.ts).
 * Not enough coins leaves no trace (the claim is taken back) and answers `insufficient`.
 */
export async function charge(trx: Db, request: ChargeRequest): Promise<ChargeOutcome> {
  if (request.price <= 0) return { kind: 'free' };
  const reference = chargeReference(request.serviceId, request.period, request.runId);
  const claimed = await charges.claimPeriod(trx, {
    serviceId: request.serviceId,
    period: request.period,
    runId: request.runId,
    amount: request.price,
    reference,
    createdAt: request.now,
  });
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
    await charges.markPaidByQuota(trx, request.serviceId, request.period, grantId);
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
      metrics: request.metrics,
    });
  } catch (error) {
    // moveCoins refuses before writing (its conditional update matched nothing), so the transaction is still usable.
    if (!(error instanceof AppError) || error.code !== ErrorCode.BAD_PARAMS) throw error;
    await charges.releasePeriod(trx, request.serviceId, request.period);
    return { kind: 'insufficient' };
  }
  return { kind: 'charged', amount: request.price, reference };
}

/** Gives back what a failed run paid, once (its reference is derived from the charge's). */
export async function refund(
  trx: Db,
  request: { userId: number; amount: number; chargeReference: string; description: string; now: number } & Counted,
): Promise<string> {
  const reference = `refund-${request.chargeReference}`;
  await moveCoins(trx, {
    postings: [
      { userId: request.userId, amount: request.amount, kind: 'service_refund', description: request.description },
    ],
    reference,
    actorId: null,
    now: request.now,
    metrics: request.metrics,
  });
  return reference;
}

/** What a run holds of its period's payment (coins, or a unit of free quota), as stored on the run. */
export type RunPayment = HeldPayment;

export const holdsPayment = (p: RunPayment): boolean =>
  p.chargeReference !== null && (p.charged > 0 || p.quotaGrantId !== null);

/**
 * A `per_day` day is paid exactly once if any of its runs succeeds, and costs nothing if none does. When the run that
 * holds the day's payment finally fails, the payment passes to another run of the same service and day: first one
 * that succeeded (the day is rightly paid), else one not finished yet (it succeeds, passes it on, or is refunded in
 * turn). Answers whom it passed to, or null when no run can take it: the caller refunds, and `releaseDay` lets a
 * later run that day pay again. Inside the failing run's transaction, after its own state change; the conditional
 * updates make two runs failing at once on PostgreSQL hand the payment over, never lose or double it.
 */
export async function handOverDayPayment(
  trx: Db,
  from: { runId: number; serviceId: number; day: string; payment: RunPayment },
): Promise<{ runId: number; succeeded: boolean } | null> {
  const candidates = await runs.dayRunsWithoutPayment(trx, from.serviceId, from.day, from.runId);
  // A run that succeeded first; then the unfinished ones, oldest first.
  candidates.sort((a, b) => Number(b.state === 'succeeded') - Number(a.state === 'succeeded'));
  for (const candidate of candidates) {
    if (!(await runs.takePayment(trx, candidate.id, candidate.state, from.payment))) continue;
    await runs.dropPayment(trx, from.runId);
    await charges.movePeriodToRun(trx, from.serviceId, `day:${from.day}`, candidate.id);
    return { runId: candidate.id, succeeded: candidate.state === 'succeeded' };
  }
  return null;
}

/** After a day's payment was refunded: the day is unpaid again, so the next run that day pays it. */
export async function releaseDay(trx: Db, serviceId: number, day: string): Promise<void> {
  await charges.releasePeriod(trx, serviceId, `day:${day}`);
}
