import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { PolicyKind } from '../../db/types.js';

export const findPolicy = (db: Db, kind: PolicyKind) =>
  db.selectFrom('policies').selectAll().where('kind', '=', kind).executeTakeFirst();

export async function savePolicy(db: Db, kind: PolicyKind, body: string, by: number, now: number): Promise<void> {
  await db
    .insertInto('policies')
    .values({ kind, body, updatedAt: now, updatedBy: by })
    .onConflict((oc) => oc.column('kind').doUpdateSet({ body, updatedAt: now, updatedBy: by }))
    .execute();
}

/** Raises the live site's policy version by one and answers the new one. */
export async function raiseVersion(db: Db, siteId: number): Promise<number> {
  const row = await db
    .updateTable('siteInformation')
    .set({ policyVersion: sql`policy_version + 1` })
    .where('id', '=', siteId)
    .returning('policyVersion')
    .executeTakeFirstOrThrow();
  return row.policyVersion;
}

/** Records the version a user agreed to; never lowers it (two tabs agreeing to versions in turn). */
export async function recordAcceptance(db: Db, userId: number, version: number): Promise<void> {
  await db
    .updateTable('users')
    .set({ policyAccepted: version })
    .where('id', '=', userId)
    .where('policyAccepted', '<', version)
    .execute();
}
