import { sql } from 'kysely';
import type { Db } from '../../../db/database.js';

/**
 * The simulated platform's side: an account per service and the check-ins it received. The run id is the request's
 * idempotency key, as a real platform's API would take one: a redelivery (a worker that died after delivering) is
 * counted on the existing row, never logged as a second check-in.
 */
export async function receiveCheckin(db: Db, serviceId: number, runId: number, now: number): Promise<void> {
  await db
    .insertInto('sandboxAccounts')
    .values({ serviceId, createdAt: now })
    .onConflict((oc) => oc.column('serviceId').doNothing())
    .execute();
  const inserted = await db
    .insertInto('sandboxCheckins')
    .values({ runId, serviceId, receivedAt: now })
    .onConflict((oc) => oc.column('runId').doUpdateSet({ deliveries: sql`sandbox_checkins.deliveries + 1` }))
    .returning('deliveries')
    .executeTakeFirstOrThrow();
  if (Number(inserted.deliveries) === 1) {
    await db
      .updateTable('sandboxAccounts')
      .set({ received: sql`received + 1` })
      .where('serviceId', '=', serviceId)
      .execute();
  }
}

export const checkinsOf = (db: Db, serviceId?: number) => {
  let q = db.selectFrom('sandboxCheckins').selectAll();
  if (serviceId !== undefined) q = q.where('serviceId', '=', serviceId);
  return q.orderBy('id').execute();
};
