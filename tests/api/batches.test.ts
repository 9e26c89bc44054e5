import { afterEach, describe, expect, it } from 'vitest';
import { insertUsers, noticeCounts } from '../helpers/batches.js';
import { expectLedgerConsistent, grant } from '../helpers/ledger.js';
import { addPlatform, runsOf, startService } from '../helpers/services.js';
import { TEST_JOBS_CONFIG, useTestApp } from '../helpers/test-app.js';

// Batch tasks on the scheduler's runner, driven by its tick (no background loop): chunks of at most 200 items.
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
    // What the confirmation names before sending: as many as the broadcast then counts and reaches.
    const { count } = await admin.ok('noticeBroadcastRecipients', { query: { role: 'agent' } });
    expect(count).toBe(10_000);
    const everyone = await admin.ok('noticeBroadcastRecipients', { query: { role: 'all' } });
    expect(everyone.count).toBeGreaterThan(10_000);
    const started = await admin.ok('noticeBroadcast', {
      body: { title: '全员通知', body: '系统升级完成。', role: 'agent' },
    });
    expect(started).toMatchObject({ kind: 'broadcast', state: 'queued', total: count, done: 0, failed: 0 });
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
    // Two chunks, each sized to a slice of time (at most BATCH_CHUNK items): some of the recipients, not all.
    const { state, done } = await task(id);
    expect(state).toBe('running');
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(1000);

    expect(await admin.ok('taskCancel', { body: { id } })).toMatchObject({ state: 'cancelled', done });
    // The process holding it tries its next chunk, and a drain finds nothing to claim.
    await runner.work(id);
    await app().built.scheduler.tick();
    expect(await task(id)).toMatchObject({ state: 'cancelled', done });
    const written = await db()
      .selectFrom('notices')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('title', '=', '取消测试')
      .executeTakeFirstOrThrow();
    expect(Number(written.n)).toBe(done);
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
    await users[2].client.ok('servicePause', { body: { id: services[2]!.id } });
    const admin = await app().admin();
    // What the admin is told before confirming: the services the batch touches (active ones), of all there are.
    expect(await admin.ok('platformGet', { query: { id: platformId } })).toMatchObject({
      services: 3,
      activeServices: 2,
    });

    const run = await admin.ok('taskPlatform', { body: { platformId, action: 'run' } });
    expect(run).toMatchObject({ kind: 'platform_run', total: 2 });
    await app().built.scheduler.tick();
    expect(await task(run.id)).toMatchObject({ state: 'done', done: 2, failed: 0 });
    expect((await runsOf(app(), services[0]!.id)).map((r) => r.trigger)).toEqual(['manual']);
    expect(await runsOf(app(), services[2]!.id)).toEqual([]);

    const pause = await admin.ok('taskPlatform', { body: { platformId, action: 'pause' } });
    await app().built.scheduler.tick();
    expect(await task(pause.id)).toMatchObject({ state: 'done', total: 2, done: 2 });
    for (const s of services) expect((await admin.ok('serviceGet', { query: { id: s.id } })).state).toBe('paused');
    const told = await noticeCounts(db(), 'service_paused');
    expect([told.get(users[0].id), told.get(users[1].id), told.get(users[2].id)]).toEqual([1, 1, undefined]);
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
    // The screen's words and the site's clock (Asia/Shanghai in tests: UTC+8), not kind codes and UTC instants.
    const [entry] = (await admin.ok('coinEntries', { query: { userId: u.id } })).records;
    const at = new Date(Number(entry!.createdAt) + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
    expect(lines).toContain(`${u.userAccount},${at},管理员加积分,12,12,${entry!.description},${entry!.reference}`);
    expect(String(csv.data)).not.toMatch(/admin_add|\.\d{3}Z/);
  });
});

it('only admins may start or see batches', async () => {
  const user = await app().newUser();
  const r = await user.client.call('taskListPage', { body: {} });
  expect([r.status, r.code]).toEqual([403, 40101]);
});

describe('a quota grant from a CSV', () => {
  const grantsOf = async (userIds: number[]) =>
    db().selectFrom('quotaGrants').select(['userId', 'amount', 'reason']).where('userId', 'in', userIds).execute();

  it('grants each listed account once, with the amount of its line', async () => {
    const ids = await insertUsers(db(), 2000, 'qgrt', app().clock.now());
    const csv = ['userAccount,amount', ...ids.map((_, i) => `qgrt${i},${(i % 5) + 1}`)].join('\n') + '\n';
    const admin = await app().admin();
    const started = await admin.ok('taskQuotaGrant', { body: { csv, unit: 'runs', reason: '批量活动' } });
    expect(started).toMatchObject({ kind: 'quota_grant', state: 'queued', total: 2000 });
    await app().built.scheduler.tick();
    expect(await task(started.id)).toMatchObject({ state: 'done', done: 2000, failed: 0 });
    const grants = await grantsOf(ids);
    expect(grants).toHaveLength(2000);
    const byUser = new Map(grants.map((g) => [g.userId, Number(g.amount)]));
    expect(ids.every((id, i) => byUser.get(id) === (i % 5) + 1)).toBe(true);
    expect((await noticeCounts(db(), 'quota_granted')).get(ids[0]!)).toBe(1);
  });

  it('reports a malformed CSV line by line, unknown accounts too, as a list of problems, and starts nothing', async () => {
    const [known] = await insertUsers(db(), 1, 'mfmf', app().clock.now());
    const admin = await app().admin();
    const before = (await admin.ok('taskListPage', { body: {} })).total;
    const csv = ['userAccount,amount', 'mfmf0,2', '', 'nobody_here,1', 'mfmf0,3', 'mfmf0', 'MFMF0,x', 'a-b,1'].join(
      '\n',
    );
    const r = await admin.call('taskQuotaGrant', { body: { csv, unit: 'runs', reason: '测试' } });
    expect([r.status, r.code]).toEqual([400, 40000]);
    // One short sentence for the person; the lines themselves come as data, in line order.
    expect(r.message).toBe('CSV 有 6 处错误，任务未开始，请按下方列表改正后重新上传');
    expect(r.problems).toEqual([
      { line: 3, account: '', reason: '空行' },
      // Found only after asking the database, still with its line.
      { line: 4, account: 'nobody_here', reason: '账号不存在或已注销' },
      { line: 5, account: 'mfmf0', reason: '与第 2 行的账号重复，每个账号只能出现一次' },
      { line: 6, account: 'mfmf0', reason: '应为两列：账号,数量' },
      { line: 7, account: 'MFMF0', reason: '数量应为 1 到 10000 的整数' },
      { line: 8, account: 'a-b', reason: '账号格式不对：应为 4–16 位字母、数字或下划线' },
    ]);
    const header = await admin.call('taskQuotaGrant', {
      body: { csv: 'account;amount\nmfmf0,1', unit: 'runs', reason: '测试' },
    });
    expect(header.problems).toEqual([{ line: 1, account: '', reason: '表头应为 userAccount,amount' }]);
    expect((await admin.ok('taskListPage', { body: {} })).total).toBe(before);
    expect(await grantsOf([known!])).toEqual([]);
  });

  it('sends every problem of a 20,000-line file, not the first ones only (the page copies them all)', async () => {
    const admin = await app().admin();
    const before = (await admin.ok('taskListPage', { body: {} })).total;
    // A wrong header and 20,000 lines naming no account that exists: 20,001 problems, the most a file can have.
    const lines = Array.from({ length: 20_000 }, (_, i) => `ghost_${i},1`);
    const csv = ['account,amount', ...lines].join('\n');
    const r = await admin.call('taskQuotaGrant', { body: { csv, unit: 'runs', reason: '测试' } });
    expect([r.status, r.code]).toEqual([400, 40000]);
    expect(r.message).toBe('CSV 有 20,001 处错误，任务未开始，请按下方列表改正后重新上传');
    expect(r.problems).toHaveLength(20_001);
    expect(r.problems![0]).toEqual({ line: 1, account: '', reason: '表头应为 userAccount,amount' });
    expect(r.problems!.at(-1)).toEqual({ line: 20_001, account: 'ghost_19999', reason: '账号不存在或已注销' });
    expect(r.problems!.every((p, i) => p.line === i + 1)).toBe(true);
    // A longer file is one problem past its last allowed line, and nothing more to read.
    const tooLong = await admin.call('taskQuotaGrant', {
      body: { csv: ['userAccount,amount', ...lines, 'ghost_x,1'].join('\n'), unit: 'runs', reason: '测试' },
    });
    expect(tooLong.problems).toEqual([
      { line: 20_002, account: '', reason: '最多 20000 行，请把其余的行分到另一个文件' },
    ]);
    expect((await admin.ok('taskListPage', { body: {} })).total).toBe(before);
  });

  it('lists the lines that failed while it ran, with reasons, and downloads them as CSV', async () => {
    const ids = await insertUsers(db(), 3, 'flfl', app().clock.now());
    const admin = await app().admin();
    const csv = 'userAccount,amount\nflfl0,1\nflfl1,1\nflfl2,1\n';
    const { id } = await admin.ok('taskQuotaGrant', { body: { csv, unit: 'runs', reason: '测试' } });
    // Deleted after the start: its line fails when its turn comes; the others are granted.
    await db().updateTable('users').set({ deletedAt: app().clock.now() }).where('id', '=', ids[1]!).execute();
    await app().built.scheduler.tick();
    expect(await task(id)).toMatchObject({ state: 'done', total: 3, done: 2, failed: 1, result: '部分失败' });
    const failures = await admin.ok('taskFailures', { body: { id } });
    expect(failures.records).toEqual([{ seq: 3, label: 'flfl1', error: '账号不存在或已注销' }]);
    const file = await admin.call('taskFailuresExport', { query: { id } });
    expect(String(file.data)).toContain('3,flfl1,账号不存在或已注销');
  });
});
