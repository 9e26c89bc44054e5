import { beforeAll, describe, expect, it } from 'vitest';
import { insertUsers } from '../helpers/batches.js';
import type { ApiClient } from '../helpers/client.js';
import { addPlatform, siteTime } from '../helpers/services.js';
import { TEST_JOBS_CONFIG, useTestApp } from '../helpers/test-app.js';

// Background work gives way to requests (lib/give-way.ts): a request sent while a large batch runs is answered before
// the batch ends, and a cancel tapped mid-way stops the batch within one chunk. Behaviour, not timings: what the
// request's answer shows about the batch's progress, and what was applied after the cancel's answer.
// Chunks of at most 50 items, so a batch here is a hundred chunks or more. The clock is fixed at a site noon: the
// dashboard leaves yesterday live for ten minutes after midnight (ROLLUP_MARGIN_MS), so on the real clock the count
// of days rolled up would depend on the hour the suite runs.
const app = useTestApp({ jobs: { ...TEST_JOBS_CONFIG, batchChunk: 50 } }, { startAt: siteTime('2026-03-10 12:00') });
const db = () => app().built.context.db;

// get/login is sent over a socket, as a phone's request arrives: it is read only when the event loop gets a turn.
let base = '';
beforeAll(async () => {
  base = await app().built.fastify.listen({ host: '127.0.0.1', port: 0 });
});
const getLogin = async (client: ApiClient) => {
  const response = await fetch(`${base}/api/user/get/login`, { headers: { cookie: client.cookie ?? '' } });
  return ((await response.json()) as { data: { userAccount: string } }).data;
};

const progress = async (id: number) => {
  const b = await db().selectFrom('batches').select(['state', 'done', 'total']).where('id', '=', id).executeTakeFirst();
  return { state: b!.state, done: Number(b!.done), total: Number(b!.total) };
};

/** A long piece of work under way, not waited for; `ended` tells when it has. */
function underWay<T>(work: Promise<T>) {
  let ended = false;
  const working = work.finally(() => (ended = true));
  return { working, ended: () => ended };
}

/** Works the queued batches as the scheduler's loop would, without waiting for them. */
const workInBackground = () => underWay(app().built.scheduler.batches.drain());

describe('a request while a batch runs', () => {
  it('is answered before the batch ends: a broadcast to 8,000 users still has work left when get/login answers', async () => {
    await insertUsers(db(), 8000, 'gw', app().clock.now());
    const admin = await app().admin();
    const user = await app().newUser();
    const { id, total } = await admin.ok('noticeBroadcast', {
      body: { title: '让路测试', body: '后台任务运行时请求照常应答。', role: 'agent' },
    });
    expect(total).toBeGreaterThanOrEqual(8000);

    const batch = workInBackground();
    // Once it has applied a first chunk (read straight from the database, not through a request):
    while ((await progress(id)).done === 0 && !batch.ended());
    const me = await getLogin(user.client);
    expect(me.userAccount).toBe(user.userAccount);
    // Answered while the batch is still under way.
    expect(batch.ended(), 'get/login was answered only after the batch had finished').toBe(false);
    const meanwhile = await progress(id);
    expect(meanwhile.state).toBe('running');
    expect(meanwhile.done).toBeLessThan(total);

    await batch.working;
    expect(await progress(id)).toEqual({ state: 'done', done: total, total });
  });
});

describe('cancel while a quota batch runs', () => {
  it('is answered mid-way and stops the batch within one chunk: nothing applied after the answer, done = lines granted', async () => {
    const lines = 1500;
    const ids = await insertUsers(db(), lines, 'cncl', app().clock.now());
    const admin = await app().admin();
    const csv = ['userAccount,amount', ...ids.map((_, i) => `cncl${i},1`)].join('\n');
    const { id } = await admin.ok('taskQuotaGrant', { body: { csv, unit: 'runs', reason: '取消测试' } });
    const granted = async () =>
      (await db().selectFrom('quotaGrants').select('userId').where('userId', 'in', ids).execute()).length;

    const batch = workInBackground();
    // The admin watches the progress (each look a request of its own) and taps cancel once some lines are done.
    let seen = await admin.ok('taskGet', { query: { id } });
    while (seen.done === 0 && !batch.ended()) seen = await admin.ok('taskGet', { query: { id } });
    const cancelled = await admin.ok('taskCancel', { body: { id } });
    expect(batch.ended(), 'the cancel was answered only after the batch had finished').toBe(false);
    expect(cancelled.state).toBe('cancelled');
    expect(cancelled.done).toBeGreaterThan(0);
    expect(cancelled.done).toBeLessThan(lines);
    // What the answer says is done is exactly what was granted, then and after the runner stopped.
    expect(await granted()).toBe(cancelled.done);

    await batch.working;
    expect(await progress(id)).toMatchObject({ state: 'cancelled', done: cancelled.done });
    expect(await granted()).toBe(cancelled.done);
    const items = await db()
      .selectFrom('batchItems')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('batchId', '=', id)
      .where('state', '=', 'done')
      .executeTakeFirstOrThrow();
    expect(Number(items.n)).toBe(cancelled.done);
  });
});

describe('a request while a long request works through the ledger or the dashboard', () => {
  it('is answered before the ledger check ends', async () => {
    await insertUsers(db(), 6000, 'lc', app().clock.now());
    const admin = await app().admin();
    const user = await app().newUser();
    const check = underWay(admin.ok('coinLedgerCheck'));
    expect((await getLogin(user.client)).userAccount).toBe(user.userAccount);
    expect(check.ended(), 'get/login was answered only after the ledger check').toBe(false);
    expect((await check.working).mismatches).toEqual([]);
  });

  it('is answered before the dashboard has rolled up 200 days it had not', async () => {
    // Users who joined 200 days ago: the dashboard's next look rolls up every day since, one day at a time.
    await insertUsers(db(), 10, 'old', app().clock.now() - 200 * 86_400_000);
    const admin = await app().admin();
    const user = await app().newUser();
    const dashboard = underWay(admin.ok('dashboardSummary'));
    expect((await getLogin(user.client)).userAccount).toBe(user.userAccount);
    expect(dashboard.ended(), 'get/login was answered only after the dashboard').toBe(false);
    await dashboard.working;
    const rolled = await db()
      .selectFrom('dashboardDayRollups')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(rolled.n)).toBe(200);
  });
});

describe("a request while the scheduler's pass plans and claims", () => {
  it('is answered before a pass over 200 due services ends', async () => {
    const platformId = await addPlatform(app(), { price: 1, billingUnit: 'per_run' });
    const now = app().clock.now();
    const ids = await insertUsers(db(), 200, 'due', now);
    // Due a minute ago, owned by users without coins: each run is planned, claimed and skipped (the tightest loop:
    // no connector call between claims).
    const settings = JSON.stringify({ days: [1, 2, 3, 4, 5, 6, 7], checkInTime: '09:00', notify: 'none' });
    await db()
      .insertInto('services')
      .values(
        ids.map((userId) => ({
          userId,
          platformId,
          settings,
          state: 'active' as const,
          nextRunAt: now - 60_000,
          createdAt: now,
          updatedAt: now,
        })),
      )
      .execute();
    const user = await app().newUser();
    const pass = underWay(app().built.scheduler.tick());
    expect((await getLogin(user.client)).userAccount).toBe(user.userAccount);
    expect(pass.ended(), "get/login was answered only after the scheduler's pass").toBe(false);
    expect((await pass.working).planned).toBe(200);
    const skipped = await db()
      .selectFrom('runs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('platformId', '=', platformId)
      .where('state', '=', 'skipped')
      .executeTakeFirstOrThrow();
    expect(Number(skipped.n)).toBe(200);
  });
});
