import { expect } from 'vitest';
import { entriesOf, expectLedgerConsistent, newKey } from './ledger.js';
import { HttpClient, type Server } from './server-process.js';
import { WEEKDAYS_0830 } from './services.js';
import { PASSWORD, uniqueAccount, type TestApp } from './test-app.js';

// What the tests that run several server processes on one database share: users with started services spread over the
// processes, the runs they made, and the check that each was executed and charged once.

export const FINAL = ['succeeded', 'failed', 'refunded', 'skipped'];
export const OPENING = 100;

export interface Member {
  id: number;
  serviceId: number;
  client: HttpClient;
}

/** Users with coins and a started service on a new on-shelf platform, each talking to one of the servers. */
export async function members(
  admin: HttpClient,
  servers: () => Server[],
  count: number,
  platform: { price: number; retryLimit: number },
): Promise<Member[]> {
  const platformId: number = await admin.ok('platformAdd', {
    kind: 'gxy',
    name: '多进程测试',
    price: platform.price,
    billingUnit: 'per_run',
    retryLimit: platform.retryLimit,
    status: 1,
  });
  const out: Member[] = [];
  for (let i = 0; i < count; i++) {
    const userAccount = uniqueAccount('s');
    const id: number = await admin.ok('userAdd', { userAccount, userPassword: PASSWORD });
    await admin.ok('userAddCoin', { userAccount, coin: OPENING, description: '期初余额' }, newKey());
    const client = new HttpClient(() => servers()[i % servers().length]!);
    await client.ok('userLogin', { userAccount, userPassword: PASSWORD });
    const saved = await client.ok('serviceSave', { platformId, settings: WEEKDAYS_0830 });
    await client.ok('serviceStart', { id: saved.id }, newKey());
    out.push({ id, serviceId: saved.id, client });
  }
  return out;
}

export async function runsOf(app: TestApp, serviceIds: number[]) {
  const rows = await app.built.context.db
    .selectFrom('runs')
    .selectAll()
    .where('serviceId', 'in', serviceIds)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    ...r,
    scheduledAt: Number(r.scheduledAt),
    charged: Number(r.charged),
    attempts: Number(r.attempts),
  }));
}

export async function waitUntil(what: string, done: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Each run charged at most once, refunded exactly when it failed after a charge, and the sandbox told of each success. */
export async function expectRunsSettledOnce(app: TestApp, runs: Awaited<ReturnType<typeof runsOf>>, price: number) {
  const entries = (await entriesOf(app)).filter((e) => e.kind === 'service_charge' || e.kind === 'service_refund');
  const charges = new Map<string, number>();
  const refunds = new Map<string, number>();
  for (const e of entries) {
    const map = e.kind === 'service_charge' ? charges : refunds;
    map.set(e.reference, (map.get(e.reference) ?? 0) + 1);
  }
  const checkins = await app.built.context.db.selectFrom('sandboxCheckins').select(['runId']).execute();
  const received = new Set(checkins.map((c) => Number(c.runId)));
  const problems: string[] = [];
  for (const r of runs) {
    const charged = r.chargeReference ? (charges.get(r.chargeReference) ?? 0) : 0;
    const refunded = r.refundReference ? (refunds.get(r.refundReference) ?? 0) : 0;
    if (!FINAL.includes(r.state)) problems.push(`run ${r.id} ended ${r.state}`);
    if (r.state === 'succeeded' && (charged !== 1 || r.charged !== price || !received.has(r.id)))
      problems.push(
        `run ${r.id} succeeded with ${charged} charges, ${r.charged} coins, check-in ${received.has(r.id)}`,
      );
    if (r.state === 'refunded' && (charged !== 1 || refunded !== 1))
      problems.push(`run ${r.id} refunded with ${charged} charges and ${refunded} refunds`);
    if (r.state === 'failed' && r.charged !== 0) problems.push(`run ${r.id} failed after a charge without a refund`);
  }
  for (const [reference, n] of charges) if (n !== 1) problems.push(`charge ${reference} made ${n} times`);
  for (const [reference, n] of refunds) if (n !== 1) problems.push(`refund ${reference} made ${n} times`);
  expect(problems).toEqual([]);
  await expectLedgerConsistent(app);
}
