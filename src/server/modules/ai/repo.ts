import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { AiConfigTable } from '../../db/tables-quota-ai.js';

export const CONFIG_ID = 1;

export const findConfig = (db: Db) =>
  db.selectFrom('aiConfig').selectAll().where('id', '=', CONFIG_ID).executeTakeFirst();

export async function saveConfig(db: Db, row: Insertable<AiConfigTable>): Promise<void> {
  const { id: _id, ...patch } = row;
  await db
    .insertInto('aiConfig')
    .values(row)
    .onConflict((oc) => oc.column('id').doUpdateSet(patch))
    .execute();
}

export async function usedOn(db: Db, day: string): Promise<number> {
  const row = await db.selectFrom('aiUsage').select('requests').where('day', '=', day).executeTakeFirst();
  return Number(row?.requests ?? 0);
}

/**
 * Counts one request against the day's budget, unless the budget is spent (answers false then). One conditional
 * upsert: concurrent requests cannot together go over it.
 */
export async function claimRequest(db: Db, day: string, budget: number): Promise<boolean> {
  if (budget <= 0) return false;
  const row = await db
    .insertInto('aiUsage')
    .values({ day, requests: 1 })
    .onConflict((oc) =>
      oc
        .column('day')
        .doUpdateSet({ requests: sql`ai_usage.requests + 1` })
        .where('aiUsage.requests', '<', budget),
    )
    .returning('requests')
    .executeTakeFirst();
  return row !== undefined;
}
