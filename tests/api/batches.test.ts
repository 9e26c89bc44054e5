import { afterEach, describe, expect, it } from 'vitest';
import { insertUsers, noticeCounts } from '../helpers/batches.js';
import { expectLedgerConsistent, grant } from '../helpers/ledger.js';
import { addPlatform, runsOf, startService } from '../helpers/services.js';
import { TEST_JOBS_CONFIG, useTestApp } from '../helpers/test-app.js';

// Batch tasks on the scheduler's runner, driven by its tick (no background loop): chunks of 200 items.
const app = useTestApp({ jobs: { ...TEST_JOBS_CONFIG, batchChunk: 200 } });
const db = () => app().built.context.db;
const EVERY_DAY = { days: [1, 2, 3, 4, 5, 6, 7], checkInTime: '09:00', notify: 'none' };

afterEach(async () => {
  await expectLedgerConsistent(app());
});

const task = async (id: number) => (await app().admin()).ok('taskGet', { query: { id } });

describe('a broadcast to 10,000 users', () => {
  it('answers at once, then completes in chunks: one notice per recipient, progress to done', async () => {
    const ids = await insertUsers(db(), 10_000, 'bc', app().clock.now());
    const admin = await app().admin();
    const started = await admin.ok('noticeBroadcast', { body: { title: '全员通知', body: '系统升级完成。', role: 'agent' } });
    expect(started).toMatchObject({ kind: 'broadcast', state: 'queued', total: 10_000, done: 0, failed: 0 });
    // Nothing is written by the request itself.
    expect((await noticeCounts(db(), 'broadcast')).size).toBe(0);

    await app().built.scheduler.tick();
    expect(await task(started.id)).toMatchObject({ state: 'done', total: 10_000, done: 10_000, failed: 0 });
    const counts = await noticeCounts(db(), 'broadcast');
    expect(ids.every((id) => counts.get(id) === 1)).toBe(true);
    expect(counts.size).toBe(10_000);
    const list = await admin.ok('taskListPage', { body: { current: 1, pageSize: 10 } });
    expect(list.records[0]).toMatchObject({ id: started.id, state: 'done', createdByAccount: 'admin' });
  });
});

describe('cancel', () => {
  it('stops a running batch after the chunks already committed; the rest is never applied', async () => {
    await insertUsers(db(), 1000, 'cx', app().clock.now());
    const admin = await app().admin();
    const { id } = await admin.ok('noticeBroadcast', { body: { title: '取消测试', body: '内容', role: 'agent' } });
    const runner = app().built.scheduler.batches;
    expect(await runner.claim()).toBe(id);
    let chunks = 0;
    await runner.work(id, () => chunks++ < 2);
    expect(await task(id)).toMatchObject({ state: 'running', done: 400 });

    expect(await admin.ok('taskCancel', { body: { id } })).toMatchObject({ state: 'cancelled', done: 400 });
    // The process holding it tries its next chunk, and a drain finds nothing to claim.
    await runner.work(id);
    await app().built.scheduler.tick();
    expect(await task(id)).toMatchObject({ state: 'cancelled', done: 400 });
    const written = await db()
      .selectFrom('notices')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('title', '=', '取消测试')
      .executeTakeFirstOrThrow();
    expect(Number(written.n)).toBe(400);
    const again = await admin.call('taskCancel', { body: { id } });
    expect([again.status, again.code]).toEqual([409, 40900]);
  });
});

describe("a platform's services", () => {
  it('pauses every active service and tells each owner; runs every active one now', async () => {
    const platformId = await addPlatform(app(), { price: 1, billingUnit: 'per_run' });
    const users = await Promise.all([app().newUser(), app().newUser(), app().newUser()]);
    for (const u of users) await grant(app(), u.userAccount, 10);
    const services = [];
    for (const u of users) services.push(await startService(u.client, platformId, EVERY_DAY));
    // One already paused by its owner: not a target.
    await users[2]!.client.ok('servicePause', { body: { id: services[2]!.id } });
    const admin = await app().admin();

    const run = await admin.ok('taskPlatform', { body: { platformId, action: 'run' } });
    expect(run).toMatchObject({ kind: 'platform_run', total: 2 });
    await app().built.scheduler.tick();
    expect(await task(run.id)).toMatchObject({ state: 'done', done: 2, failed: 0 });
    expect((await runsOf(app(), services[0]!.id)).map((r) => r.trigger)).toEqual(['manual']);
    expect(await runsOf(app(), services[2]!.id)).toEqual([]);

    const pause = await admin.ok('taskPlatform', { body: { platformId, action: 'pause' } });
    await app().built.scheduler.tick();
    expect(await task(pause.id)).toMatchObject({ state: 'done', total: 2, done: 2 });
    for (const s of services)
      expect((await admin.ok('serviceGet', { query: { id: s.id } })).state).toBe('paused');
    const told = await noticeCounts(db(), 'service_paused');
    expect([told.get(users[0]!.id), told.get(users[1]!.id), told.get(users[2]!.id)]).toEqual([1, 1, undefined]);
  });
});

describe('statements export', () => {
  it("writes every user's entries into one CSV, downloadable once done", async () => {
    const u = await app().newUser();
    await grant(app(), u.userAccount, 12);
    const admin = await app().admin();
    const started = await admin.ok('taskStatements');
    const early = await admin.call('taskOutput', { query: { id: started.id } });
    expect([early.status, early.code]).toEqual([409, 40900]);
    await app().built.scheduler.tick();
    const done = await task(started.id);
    const entries = await db().selectFrom('coinEntries').select('id').execute();
    expect(done).toMatchObject({ state: 'done', hasOutput: true, done: entries.length });
    const csv = await admin.call('taskOutput', { query: { id: started.id } });
    expect(csv.status).toBe(200);
    const lines = String(csv.data).trim().split(/\r?\n/);
    expect(lines[0]).toContain('账号');
    expect(lines).toHaveLength(entries.length + 1);
    expect(lines.some((l) => l.startsWith(u.userAccount) && l.includes(',12,'))).toBe(true);
  });
});

it('only admins may start or see batches', async () => {
  const user = await app().newUser();
  const r = await user.client.call('taskListPage', { body: {} });
  expect([r.status, r.code]).toEqual([403, 40101]);
});
