import { expect } from 'vitest';
import type { Schemas } from '../../src/api/operations.js';
import { idem } from './ledger.js';
import type { TestApp } from './test-app.js';

/** An admin's grant through the API (a new Idempotency-Key unless given). */
export async function grantQuota(
  app: TestApp,
  request: Schemas['QuotaGrantRequest'],
  key?: string,
): Promise<Schemas['QuotaGrant']> {
  return (await app.admin()).ok<Schemas['QuotaGrant']>('quotaGrant', { body: request, headers: idem(key) });
}

/** A grant's entries straight from the database, oldest first, numbers normalised. */
export async function quotaEntriesOf(app: TestApp, grantId: number) {
  const rows = await app.built.context.db
    .selectFrom('quotaEntries')
    .selectAll()
    .where('grantId', '=', grantId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ kind: r.kind, amount: Number(r.amount), remainingAfter: Number(r.remainingAfter) }));
}

/**
 * The quota ledger's invariants, from the database: every grant's remaining equals the sum of its entries and is never
 * negative; its entries form a running balance; the first is the grant itself, for the amount granted; a use never
 * leaves a grant below zero.
 */
export async function expectQuotaConsistent(app: TestApp): Promise<void> {
  const db = app.built.context.db;
  const grants = await db.selectFrom('quotaGrants').selectAll().execute();
  const entries = await db.selectFrom('quotaEntries').selectAll().orderBy('id').execute();
  const problems: string[] = [];
  for (const g of grants) {
    const own = entries.filter((e) => Number(e.grantId) === Number(g.id));
    let running = 0;
    for (const e of own) {
      running += Number(e.amount);
      if (Number(e.remainingAfter) !== running)
        problems.push(`grant ${g.id}: entry ${e.id} remainingAfter ${e.remainingAfter}, running ${running}`);
      if (running < 0) problems.push(`grant ${g.id}: negative after entry ${e.id}`);
    }
    if (Number(g.remaining) !== running)
      problems.push(`grant ${g.id}: remaining ${g.remaining} but entries sum to ${running}`);
    if (own[0]?.kind !== 'grant' || Number(own[0].amount) !== Number(g.amount))
      problems.push(`grant ${g.id}: first entry is not the grant of ${g.amount}`);
    if (own.filter((e) => e.kind === 'grant').length !== 1) problems.push(`grant ${g.id}: not exactly one grant entry`);
  }
  expect(problems, 'quota invariants').toEqual([]);
}
