import { sql } from 'kysely';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/operations.js';
import { grantQuota as grantInTransaction } from '../../src/server/modules/quotas/service.js';
import { auditTrail } from '../helpers/audit.js';
import { balanceOf, entriesOf, expectLedgerConsistent, grant, idem, newKey } from '../helpers/ledger.js';
import { expectQuotaConsistent, grantQuota, quotaEntriesOf } from '../helpers/quotas.js';
import { addPlatform, noticesOf, runsOf, runUntil, siteTime, startService } from '../helpers/services.js';
import { useTestApp } from '../helpers/test-app.js';

// Free quota: granted by an admin, kept like coins (append-only entries, remaining = their sum), used by the
// scheduler's charge before coins, given back when a run it paid is refunded. The scheduler runs on a fake clock.
const app = useTestApp();
const DAY = 24 * 3600_000;
const EVERY_DAY = { days: [1, 2, 3, 4, 5, 6, 7], checkInTime: '09:00', notify: 'inbox' };

beforeAll(() => {
  // Monday, midnight, site time.
  app().clock.current = siteTime('2026-11-30T00:00');
});

afterEach(async () => {
  await expectQuotaConsistent(app());
  await expectLedgerConsistent(app());
});

async function userWith(coins: number) {
  const user = await app().newUser();
  if (coins > 0) await grant(app(), user.userAccount, coins);
  return user;
}

const coinServiceEntries = async (userId: number) =>
  (await entriesOf(app(), userId)).filter((e) => e.kind === 'service_charge' || e.kind === 'service_refund');

const listGrants = async (query: Schemas['QuotaQuery']) =>
  (await app().admin()).ok<Schemas['QuotaGrantPage']>('quotaListPage', { body: query });

describe('granting', () => {
  it('grants runs on one platform: listed as active, in the audit log, told to the user, and usable there only', async () => {
    const platformId = await addPlatform(app(), { price: 2, billingUnit: 'per_run' });
    const other = await addPlatform(app(), { price: 2, billingUnit: 'per_run' });
    const user = await userWith(0);
    const granted = await grantQuota(app(), {
      userAccount: user.userAccount,
      platformId,
      unit: 'runs',
      amount: 5,
      reason: '新用户体验',
    });
    expect(granted).toMatchObject({ userId: user.id, platformId, unit: 'runs', amount: 5, remaining: 5, used: 0 });
    expect(granted.status).toBe('active');
    expect(granted.actorAccount).toBe('admin');
    expect(await quotaEntriesOf(app(), granted.id)).toEqual([{ kind: 'grant', amount: 5, remainingAfter: 5 }]);

    expect(await user.client.ok('quotaMy', { query: { platformId } })).toEqual({ runs: 5, days: 0 });
    expect(await user.client.ok('quotaMy', { query: { platformId: other } })).toEqual({ runs: 0, days: 0 });
    expect(await user.client.ok('quotaMy')).toEqual({ runs: 5, days: 0 });

    const audit = await auditTrail(app(), 'quota', granted.id);
    expect(audit.map((a) => [a.action, a.actorId])).toEqual([['quota.grant', await app().adminId()]]);
    expect(audit[0]!.after).toMatchObject({ userAccount: user.userAccount, amount: 5, reason: '新用户体验' });
    expect((await noticesOf(app(), user.id)).map((n) => [n.kind, n.title])).toEqual([
      ['quota_granted', '获得免费额度'],
    ]);
  });

  it('refuses a unit that does not match the platform, an unknown account, a past expiry, and non-admins', async () => {
    const admin = await app().admin();
    const perRun = await addPlatform(app(), { price: 2, billingUnit: 'per_run' });
    const oneOff = await addPlatform(app(), { price: 2, billingUnit: 'one_off' });
    const user = await userWith(0);
    const ask = (body: Schemas['QuotaGrantRequest']) => admin.call('quotaGrant', { body, headers: idem() });
    const base = { userAccount: user.userAccount, amount: 1, reason: '测试' };
    const cases = [
      await ask({ ...base, platformId: perRun, unit: 'days' }),
      await ask({ ...base, platformId: oneOff, unit: 'runs' }),
      await ask({ ...base, userAccount: 'nobody_here', unit: 'runs' }),
      await ask({ ...base, unit: 'runs', expiresAt: app().clock.current - 1 }),
    ];
    expect(cases.map((r) => [r.status, r.code, r.message])).toEqual([
      [400, 40000, '额度单位与平台的计费方式不一致'],
      [400, 40000, '一次性计费的平台不使用免费额度'],
      [404, 40400, '用户不存在'],
      [400, 40000, '过期时间须晚于现在'],
    ]);
    const byUser = await user.client.call('quotaGrant', { body: { ...base, unit: 'runs' }, headers: idem() });
    expect([byUser.status, byUser.code]).toEqual([403, 40101]);
    expect((await listGrants({ searchText: user.userAccount })).total).toBe(0);
  });

  it('50 concurrent retries with one Idempotency-Key grant once and all answer the same grant; another body is 409', async () => {
    const admin = await app().admin();
    const user = await userWith(0);
    const key = newKey();
    const body = { userAccount: user.userAccount, unit: 'runs' as const, amount: 3, reason: '并发重试' };
    const results = await Promise.all(
      Array.from({ length: 50 }, () => admin.call('quotaGrant', { body, headers: idem(key) })),
    );
    const ids = new Set(results.map((r) => [r.status, r.code, (r.data as Schemas['QuotaGrant']).id].join()));
    expect(ids.size).toBe(1);
    expect(results[0]!.code).toBe(0);
    expect((await listGrants({ searchText: user.userAccount })).total).toBe(1);
    expect(await user.client.ok('quotaMy')).toEqual({ runs: 3, days: 0 });

    const changed = await admin.call('quotaGrant', { body: { ...body, amount: 4 }, headers: idem(key) });
    expect([changed.status, changed.code]).toEqual([409, 40900]);
  });

  it('grantQuota runs inside a caller’s transaction: its retry grants nothing, and a rollback leaves nothing', async () => {
    const user = await userWith(0);
    const { db } = app().built.context;
    const actorId = await app().adminId();
    const request = { userAccount: user.userAccount, unit: 'days' as const, amount: 2, reason: '批量发放' };
    const now = app().clock.current;
    const first = await db
      .transaction()
      .execute((trx) => grantInTransaction(trx, { actorId, idempotencyKey: 'batch-1-item-1', request, now }));
    const again = await db
      .transaction()
      .execute((trx) => grantInTransaction(trx, { actorId, idempotencyKey: 'batch-1-item-1', request, now }));
    expect(again).toEqual(first);

    await expect(
      db.transaction().execute(async (trx) => {
        await grantInTransaction(trx, { actorId, idempotencyKey: 'batch-1-item-2', request, now });
        throw new Error('the batch chunk fails');
      }),
    ).rejects.toThrow('the batch chunk fails');
    expect(await user.client.ok('quotaMy')).toEqual({ runs: 0, days: 2 });
    expect((await listGrants({ searchText: user.userAccount })).total).toBe(1);
  });

  it('the database refuses to change or delete a quota entry', async () => {
    const user = await userWith(0);
    const granted = await grantQuota(app(), { userAccount: user.userAccount, unit: 'runs', amount: 1, reason: '测试' });
    const { db } = app().built.context;
    await expect(
      db.updateTable('quotaEntries').set({ amount: 100 }).where('grantId', '=', granted.id).execute(),
    ).rejects.toThrow(/append-only/);
    await expect(db.deleteFrom('quotaEntries').where('grantId', '=', granted.id).execute()).rejects.toThrow(
      /append-only/,
    );
    await expect(sql`delete from quota_entries`.execute(db)).rejects.toThrow(/append-only/);
  });
});

describe('runs use quota before coins', () => {
  it('per_run: runs covered by quota move no coins and name their grant; then coins pay', async () => {
    const platformId = await addPlatform(app(), { price: 3, billingUnit: 'per_run' });
    const user = await userWith(100);
    const granted = await grantQuota(app(), {
      userAccount: user.userAccount,
      platformId,
      unit: 'runs',
      amount: 2,
      reason: '体验',
    });
    const service = await startService(user.client, platformId, EVERY_DAY);
    await runUntil(app(), app().clock.current + 3 * DAY, { keepAlive: [user.client] });
    const runs = await runsOf(app(), service.id);
    expect(runs.map((r) => [r.state, r.charged, r.quotaGrantId === null ? null : Number(r.quotaGrantId)])).toEqual([
      ['succeeded', 0, granted.id],
      ['succeeded', 0, granted.id],
      ['succeeded', 3, null],
    ]);
    // What the run list answers says which runs the free quota paid.
    const listed = (await user.client.ok('runMy', { body: { serviceId: service.id } })).records;
    expect(listed.map((r: { charged: number; paidByQuota: boolean }) => [r.charged, r.paidByQuota]).reverse()).toEqual([
      [0, true],
      [0, true],
      [3, false],
    ]);
    expect((await coinServiceEntries(user.id)).map((e) => e.amount)).toEqual([-3]);
    expect(await balanceOf(app(), user.id)).toBe(97);
    expect((await quotaEntriesOf(app(), granted.id)).map((e) => [e.kind, e.amount])).toEqual([
      ['grant', 2],
      ['use', -1],
      ['use', -1],
    ]);
    const [row] = (await listGrants({ searchText: user.userAccount })).records;
    expect(row).toMatchObject({ remaining: 0, used: 2, status: 'used' });
  });

  it('a user with no coins but quota is not skipped', async () => {
    const platformId = await addPlatform(app(), { price: 5, billingUnit: 'per_run' });
    const user = await userWith(0);
    await grantQuota(app(), { userAccount: user.userAccount, unit: 'runs', amount: 10, reason: '全部平台' });
    const service = await startService(user.client, platformId, EVERY_DAY);
    await runUntil(app(), app().clock.current + 2 * DAY, { keepAlive: [user.client] });
    expect((await runsOf(app(), service.id)).map((r) => r.state)).toEqual(['succeeded', 'succeeded']);
    expect(await balanceOf(app(), user.id)).toBe(0);
    expect(await user.client.ok('quotaMy', { query: { platformId } })).toEqual({ runs: 8, days: 0 });
  });

  it('per_day: a day quota pays a day; a run quota does not', async () => {
    const platformId = await addPlatform(app(), { price: 5, billingUnit: 'per_day' });
    const user = await userWith(50);
    await grantQuota(app(), { userAccount: user.userAccount, unit: 'runs', amount: 10, reason: '按次额度' });
    const days = await grantQuota(app(), {
      userAccount: user.userAccount,
      platformId,
      unit: 'days',
      amount: 1,
      reason: '按天额度',
    });
    const service = await startService(user.client, platformId, { ...EVERY_DAY, checkOutTime: '18:00' });
    await runUntil(app(), app().clock.current + 2 * DAY, { keepAlive: [user.client] });
    const runs = await runsOf(app(), service.id);
    expect(runs.every((r) => r.state === 'succeeded')).toBe(true);
    expect(runs.filter((r) => r.quotaGrantId !== null).map((r) => Number(r.quotaGrantId))).toEqual([days.id]);
    expect(await balanceOf(app(), user.id)).toBe(45);
    expect(await user.client.ok('quotaMy', { query: { platformId } })).toEqual({ runs: 10, days: 0 });
  });

  it('a refunded run gives its unit back to the grant that paid it, and moves no coins', async () => {
    const platformId = await addPlatform(app(), { price: 4, billingUnit: 'per_run', retryLimit: 0 });
    const user = await userWith(40);
    const granted = await grantQuota(app(), { userAccount: user.userAccount, unit: 'runs', amount: 1, reason: '体验' });
    const service = await startService(user.client, platformId, EVERY_DAY);
    await (await app().admin()).ok('serviceSandbox', { body: { id: service.id, mode: 'permanent' } });
    await user.client.ok('serviceRunNow', { body: { id: service.id }, headers: idem() });
    await app().built.scheduler.tick();
    const [run] = await runsOf(app(), service.id);
    expect(run).toMatchObject({ state: 'refunded', charged: 0, refundReference: `refund-${run!.chargeReference}` });
    expect(Number(run!.quotaGrantId)).toBe(granted.id);
    expect((await quotaEntriesOf(app(), granted.id)).map((e) => [e.kind, e.amount])).toEqual([
      ['grant', 1],
      ['use', -1],
      ['refund', 1],
    ]);
    expect(await coinServiceEntries(user.id)).toEqual([]);
    expect(await balanceOf(app(), user.id)).toBe(40);
    const notices = (await noticesOf(app(), user.id)).filter((n) => n.kind === 'run_failed');
    expect(notices.map((n) => n.body.includes('已退回 1 次免费额度'))).toEqual([true]);
  });

  it('an expired grant is not used: coins pay, and the list shows it expired', async () => {
    const platformId = await addPlatform(app(), { price: 2, billingUnit: 'per_run' });
    const user = await userWith(20);
    const granted = await grantQuota(app(), {
      userAccount: user.userAccount,
      platformId,
      unit: 'runs',
      amount: 5,
      expiresAt: app().clock.current + 12 * 3600_000,
      reason: '限时',
    });
    const service = await startService(user.client, platformId, EVERY_DAY);
    await runUntil(app(), app().clock.current + 2 * DAY, { keepAlive: [user.client] });
    const runs = await runsOf(app(), service.id);
    expect(runs.map((r) => [r.charged, r.quotaGrantId === null])).toEqual([
      [0, false],
      [2, true],
    ]);
    expect(await balanceOf(app(), user.id)).toBe(18);
    expect(await user.client.ok('quotaMy', { query: { platformId } })).toEqual({ runs: 0, days: 0 });
    const expired = await listGrants({ searchText: user.userAccount, status: 'expired' });
    expect(expired.records.map((g) => [g.id, g.remaining, g.used])).toEqual([[granted.id, 4, 1]]);
    expect((await listGrants({ searchText: user.userAccount, status: 'active' })).total).toBe(0);
  });
});

describe('revoking', () => {
  it('takes back what is unused, keeps what was used, is audited, and changes nothing the second time', async () => {
    const platformId = await addPlatform(app(), { price: 3, billingUnit: 'per_run' });
    const user = await userWith(30);
    const granted = await grantQuota(app(), { userAccount: user.userAccount, unit: 'runs', amount: 5, reason: '体验' });
    const service = await startService(user.client, platformId, EVERY_DAY);
    await runUntil(app(), app().clock.current + 2 * DAY, { keepAlive: [user.client] });
    const admin = await app().admin();
    const revoked = await admin.ok<Schemas['QuotaGrant']>('quotaRevoke', { body: { id: granted.id } });
    expect(revoked).toMatchObject({ remaining: 0, used: 2, status: 'revoked' });
    expect(await admin.ok('quotaRevoke', { body: { id: granted.id } })).toEqual(revoked);
    expect((await quotaEntriesOf(app(), granted.id)).map((e) => [e.kind, e.amount])).toEqual([
      ['grant', 5],
      ['use', -1],
      ['use', -1],
      ['revoke', -3],
    ]);
    expect((await auditTrail(app(), 'quota', granted.id)).map((a) => [a.action, a.before, a.after])).toEqual([
      ['quota.grant', null, expect.anything()],
      ['quota.revoke', { remaining: 3 }, { remaining: 0 }],
    ]);
    // Runs after the revoke are paid in coins.
    await runUntil(app(), app().clock.current + DAY, { keepAlive: [user.client] });
    expect((await runsOf(app(), service.id)).map((r) => r.charged)).toEqual([0, 0, 3]);
    expect(await balanceOf(app(), user.id)).toBe(27);
    const missing = await admin.call('quotaRevoke', { body: { id: 999999 } });
    expect([missing.status, missing.code]).toEqual([404, 40400]);
  });
});

describe('the admin list', () => {
  it('searches by account or platform name and filters by status', async () => {
    const platformId = await addPlatform(app(), { price: 1, billingUnit: 'per_run' });
    const { name } = await (await app().admin()).ok('platformGet', { query: { id: platformId } });
    const user = await userWith(0);
    const onPlatform = await grantQuota(app(), {
      userAccount: user.userAccount,
      platformId,
      unit: 'runs',
      amount: 1,
      reason: '平台额度',
    });
    const everywhere = await grantQuota(app(), {
      userAccount: user.userAccount,
      unit: 'days',
      amount: 1,
      reason: '全部',
    });
    await (await app().admin()).ok('quotaRevoke', { body: { id: everywhere.id } });
    const ids = (page: Schemas['QuotaGrantPage']) => page.records.map((g) => g.id);
    expect(ids(await listGrants({ searchText: user.userAccount.toUpperCase() }))).toEqual([
      everywhere.id,
      onPlatform.id,
    ]);
    expect(ids(await listGrants({ searchText: name }))).toEqual([onPlatform.id]);
    expect(ids(await listGrants({ searchText: user.userAccount, status: 'revoked' }))).toEqual([everywhere.id]);
    expect(ids(await listGrants({ searchText: user.userAccount, status: 'active' }))).toEqual([onPlatform.id]);
    expect(ids(await listGrants({ searchText: user.userAccount, platformId }))).toEqual([onPlatform.id]);
    const [row] = (await listGrants({ searchText: user.userAccount, status: 'revoked' })).records;
    expect([row!.platformId, row!.platformName]).toEqual([null, null]);
  });

  it('the platform page answers the user’s quota there', async () => {
    await addPlatform(app(), { price: 1, billingUnit: 'per_run' });
    const user = await userWith(0);
    const overview = await user.client.ok<Schemas['PlatformOverview']>('platformOverview', { query: { kind: 'gxy' } });
    expect(overview.quota).toEqual({ runs: 0, days: 0 });
    // The page shows the kind's first platform on shelf, whichever test added it.
    const { id: platformId, billingUnit } = overview.platform!;
    const unit = billingUnit === 'per_day' ? 'days' : 'runs';
    await grantQuota(app(), { userAccount: user.userAccount, platformId, unit, amount: 7, reason: '体验' });
    const after = await user.client.ok<Schemas['PlatformOverview']>('platformOverview', { query: { kind: 'gxy' } });
    expect(after.quota).toEqual(unit === 'runs' ? { runs: 7, days: 0 } : { runs: 0, days: 7 });
  });
});
