import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dbKind, type TestDatabase } from '../helpers/database.js';
import { entriesOf, expectLedgerConsistent, newKey } from '../helpers/ledger.js';
import {
  children,
  ensureServerBuilt,
  HttpClient,
  inspect,
  kill,
  startServer,
  type Server,
} from '../helpers/server-process.js';
import { WEEKDAYS_0830 } from '../helpers/services.js';
import { PASSWORD, uniqueAccount, type TestApp } from '../helpers/test-app.js';

// The production server with its scheduler on, as child processes on one database: several processes plan and claim
// the same work, and one is killed in the middle of runs and started again.

const FINAL = ['succeeded', 'failed', 'refunded', 'skipped'];
const OPENING = 100;

interface Member {
  id: number;
  serviceId: number;
  client: HttpClient;
}

/** Users with coins and a started service on a new on-shelf platform, each talking to one of the servers. */
async function members(
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

async function runsOf(app: TestApp, serviceIds: number[]) {
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

async function waitUntil(what: string, done: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Each run charged at most once, refunded exactly when it failed after a charge, and the sandbox told of each success. */
async function expectRunsSettledOnce(app: TestApp, runs: Awaited<ReturnType<typeof runsOf>>, price: number) {
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

describe(`the scheduler in server processes (${dbKind()})`, () => {
  let db: TestDatabase | undefined;
  let inspector: TestApp | undefined;

  afterAll(async () => {
    await Promise.all([...children].map((child) => kill(child, 'SIGKILL')));
    await inspector?.built.fastify.close();
    await db?.drop();
  });

  it.skipIf(dbKind() !== 'postgres')(
    'three processes plan and claim one schedule: every run executes once and is charged once',
    async () => {
      await ensureServerBuilt();
      db = await createTestDatabase();
      const secret = randomBytes(32).toString('base64url');
      const env = {
        SCHEDULER: 'on',
        SCHEDULER_POLL_MS: '50',
        SCHEDULER_CONCURRENCY: '4',
        SANDBOX_LATENCY_MS: '5',
        SANDBOX_FAILURE_PERCENT: '0',
      };
      const servers = await Promise.all([0, 1, 2].map(() => startServer(db!, secret, env)));
      const admin = new HttpClient(() => servers[0]!);
      await admin.ok('userLogin', { userAccount: 'admin', userPassword: 'AdminPassw0rd!' });
      const SERVICES = 24;
      const MANUAL = 4;
      const team = await members(admin, () => servers, SERVICES, { price: 1, retryLimit: 2 });
      inspector = await inspect(db);
      const ids = team.map((m) => m.serviceId);

      // Every service's check-in time comes at the same moment, a second from now: all three planners see it due.
      const dueAt = Date.now() + 1000;
      await inspector.built.context.db
        .updateTable('services')
        .set({ nextRunAt: dueAt })
        .where('id', 'in', ids)
        .execute();
      // Meanwhile each user taps "run now" a few times, through whichever process serves them.
      await Promise.all(
        team.flatMap((m) =>
          Array.from({ length: MANUAL }, () => m.client.ok('serviceRunNow', { id: m.serviceId }, newKey())),
        ),
      );

      const total = SERVICES * (1 + MANUAL);
      await waitUntil(
        'every run is final',
        async () => {
          const runs = await runsOf(inspector!, ids);
          return runs.length === total && runs.every((r) => FINAL.includes(r.state));
        },
        90_000,
      );

      const runs = await runsOf(inspector, ids);
      const planned = runs.filter((r) => r.trigger === 'schedule');
      expect(planned.map((r) => r.serviceId).sort()).toEqual([...ids].sort());
      expect(planned.every((r) => r.scheduledAt === dueAt)).toBe(true);
      expect(runs.every((r) => r.state === 'succeeded' && r.attempts === 1)).toBe(true);
      // The sandbox received each run exactly once: no run was executed by two processes.
      const checkins = await inspector.built.context.db
        .selectFrom('sandboxCheckins')
        .selectAll()
        .where('serviceId', 'in', ids)
        .execute();
      expect(checkins.length).toBe(total);
      expect(checkins.filter((c) => Number(c.deliveries) !== 1)).toEqual([]);
      await expectRunsSettledOnce(inspector, runs, 1);
      const balances = await inspector.built.context.db
        .selectFrom('users')
        .select(['id', 'coin'])
        .where(
          'id',
          'in',
          team.map((m) => m.id),
        )
        .execute();
      expect(balances.every((b) => Number(b.coin) === OPENING - 1 - MANUAL)).toBe(true);

      // Graceful shutdown: each process stops claiming, finishes its runs and exits cleanly.
      for (const server of servers) {
        await kill(server.child, 'SIGTERM');
        expect(server.child.exitCode, server.output()).toBe(0);
      }
    },
    180_000,
  );

  it('a process killed in the middle of runs: after a restart every run ends once, charged at most once, refunded when failed', async () => {
    await ensureServerBuilt();
    await inspector?.built.fastify.close();
    await db?.drop();
    db = await createTestDatabase();
    const secret = randomBytes(32).toString('base64url');
    // Slow enough that runs are in flight at the kill; a short lease so the restart takes them over soon.
    const env = {
      SCHEDULER: 'on',
      SCHEDULER_POLL_MS: '50',
      SCHEDULER_CONCURRENCY: '4',
      SCHEDULER_LEASE_MS: '2000',
      SANDBOX_LATENCY_MS: '200',
      SANDBOX_FAILURE_PERCENT: '30',
      SANDBOX_SEED: '7',
    };
    let server = await startServer(db, secret, env);
    const admin = new HttpClient(() => server);
    await admin.ok('userLogin', { userAccount: 'admin', userPassword: 'AdminPassw0rd!' });
    const PRICE = 2;
    const team = await members(admin, () => [server], 6, { price: PRICE, retryLimit: 1 });
    inspector = await inspect(db);
    const ids = team.map((m) => m.serviceId);
    for (const m of team)
      for (let i = 0; i < 10; i++) await m.client.ok('serviceRunNow', { id: m.serviceId }, newKey());

    await waitUntil(
      'some runs are done and others in flight',
      async () => {
        const runs = await runsOf(inspector!, ids);
        return runs.filter((r) => FINAL.includes(r.state)).length >= 8 && runs.some((r) => r.state === 'running');
      },
      30_000,
    );
    server.child.kill('SIGKILL');
    await new Promise<void>((r) =>
      server.child.exitCode !== null || server.child.signalCode !== null ? r() : server.child.once('exit', () => r()),
    );
    children.delete(server.child);
    const atKill = await runsOf(inspector, ids);
    expect(atKill.filter((r) => r.state === 'running').length).toBeGreaterThan(0);
    await expectLedgerConsistent(inspector);

    server = await startServer(db, secret, env);
    await waitUntil(
      'every run is final',
      async () => (await runsOf(inspector!, ids)).every((r) => FINAL.includes(r.state)),
      120_000,
    );
    const runs = await runsOf(inspector, ids);
    expect(runs.length).toBe(60);
    await expectRunsSettledOnce(inspector, runs, PRICE);
    const states = Object.fromEntries(FINAL.map((s) => [s, runs.filter((r) => r.state === s).length]));
    console.log(
      `scheduler crash (${dbKind()}): ${atKill.filter((r) => r.state === 'running').length} runs in flight at the kill; after the restart ${JSON.stringify(states)}`,
    );
    expect(states.succeeded).toBeGreaterThan(0);
    await kill(server.child, 'SIGTERM');
    expect(server.child.exitCode, server.output()).toBe(0);
  }, 240_000);
});
