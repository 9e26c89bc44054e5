import type { Db } from '../../db/database.js';

// The `service_charges` table: one row per paid period of a service (its primary key is what makes a period paid
// once however many processes or retries ask), and the runs' hold on it. Used by billing.ts only.

export interface NewCharge {
  serviceId: number;
  period: string;
  runId: number | null;
  amount: number;
  reference: string;
  createdAt: number;
}

/** Claims the period for this charge: false when it was claimed already (paid, or being paid by another run). */
export async function claimPeriod(trx: Db, charge: NewCharge): Promise<boolean> {
  const claimed = await trx
    .insertInto('serviceCharges')
    .values(charge)
    .onConflict((oc) => oc.columns(['serviceId', 'period']).doNothing())
    .returning('serviceId')
    .executeTakeFirst();
  return claimed !== undefined;
}

/** The period was paid by a unit of free quota: no coins. */
export async function markPaidByQuota(trx: Db, serviceId: number, period: string, grantId: number): Promise<void> {
  await trx
    .updateTable('serviceCharges')
    .set({ amount: 0, quotaGrantId: grantId })
    .where('serviceId', '=', serviceId)
    .where('period', '=', period)
    .execute();
}

/** Frees the period (not paid after all, or refunded): the next run in it pays again. */
export async function releasePeriod(trx: Db, serviceId: number, period: string): Promise<void> {
  await trx.deleteFrom('serviceCharges').where('serviceId', '=', serviceId).where('period', '=', period).execute();
}

/** The period's payment now belongs to another run. */
export async function movePeriodToRun(trx: Db, serviceId: number, period: string, runId: number): Promise<void> {
  await trx
    .updateTable('serviceCharges')
    .set({ runId })
    .where('serviceId', '=', serviceId)
    .where('period', '=', period)
    .execute();
}
