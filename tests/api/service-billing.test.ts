import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { balanceOf, entriesOf, expectLedgerConsistent, grant, idem } from '../helpers/ledger.js';
import { addPlatform, noticesOf, runsOf, runUntil, siteTime, startService } from '../helpers/services.js';
import { TEST_JOBS_CONFIG, useTestApp } from '../helpers/test-app.js';

// Charges and refunds of platform services through the ledger, on a fake clock. A connector call that hangs is cut
// off after 50 ms of real time (the timeout failure mode).
const app = useTestApp({ jobs: { ...TEST_JOBS_CONFIG, runTimeoutMs: 50 } });
const DAY = 24 * 3600_000;
const EVERY_DAY = { days: [1, 2, 3, 4, 5, 6, 7], checkInTime: '09:00', notify: 'inbox' };

beforeAll(() => {
  // Monday, midnight, site time.
  app().clock.current = siteTime('2026-11-30T00:00');
});

afterEach(async () => {
  await expectLedgerConsistent(app());
});

async function payingUser(coins: number) {
  const user = await app().newUser();
  if (coins > 0) await grant(app(), user.userAccount, coins);
  return user;
}

const serviceEntries = async (userId: number) =>
  (await entriesOf(app(), userId)).filter((e) => e.kind === 'service_charge' || e.kind === 'service_refund');

describe('billing units', () => {
  it('per_run charges every run when it is claimed', async () => {
    const platformId = await addPlatform(app(), { price: 3, billingUnit: 'per_run' });
    const user = await payingUser(100);
    const service = await startService(user.client, platformId, EVERY_DAY);
    await runUntil(app(), app().clock.current + 3 * DAY, { keepAlive: [user.client] });
    const runs = await runsOf(app(), service.id);
    expect(runs.length).toBe(3);
    expect(runs.every((r) => r.state === 'succeeded' && r.charged === 3 && r.chargeReference !== null)).toBe(true);
    const entries = await serviceEntries(user.id);
    expect(entries.map((e) => [e.kind, e.amount])).toEqual([
      ['service_charge', -3],
      ['service_charge', -3],
      ['service_charge', -3],
    ]);
    expect(new Set(entries.map((e) => e.reference)).size).toBe(3);
    expect(await balanceOf(app(), user.id)).toBe(91);
  });

  it('per_day charges once per site-time-zone day, on the first run of the day', async () => {
    const platformId = await addPlatform(app(), { price: 5, billingUnit: 'per_day' });
    const user = await payingUser(100);
    // Two planned runs a day, and one more by hand on the first day.
    const service = await startService(user.client, platformId, { ...EVERY_DAY, checkOutTime: '18:00' });
    await user.client.ok('serviceRunNow', { body: { id: service.id }, headers: idem() });
    await runUntil(app(), app().clock.current + 3 * DAY, { keepAlive: [user.client] });
    const runs = await runsOf(app(), service.id);
    expect(runs.length).toBe(7);
    expect(runs.every((r) => r.state === 'succeeded')).toBe(true);
    const charged = runs.filter((r) => r.charged > 0);
    expect(new Set(charged.map((r) => r.day)).size).toBe(charged.length);
    expect(new Set(runs.map((r) => r.day)).size).toBe(charged.length);
    expect(await balanceOf(app(), user.id)).toBe(100 - 5 * charged.length);
  });

  it('one_off charges once at the first start, never for runs or a restart; without the coins the start is refused', async () => {
    const platformId = await addPlatform(app(), { price: 20, billingUnit: 'one_off' });
    const poor = await payingUser(10);
    const draft = await poor.client.ok('serviceSave', { body: { platformId, settings: EVERY_DAY } });
    const refused = await poor.client.call('serviceStart', { body: { id: draft.id }, headers: idem() });
    expect([refused.status, refused.code, refused.message]).toEqual([400, 40000, '积分不足']);
    expect((await poor.client.ok('serviceGet', { query: { id: draft.id } })).state).toBe('draft');

    const user = await payingUser(50);
    const service = await startService(user.client, platformId, EVERY_DAY);
    await runUntil(app(), app().clock.current + 2 * DAY, { keepAlive: [user.client] });
    await user.client.ok('serviceStop', { body: { id: service.id } });
    await user.client.ok('serviceStart', { body: { id: service.id }, headers: idem() });
    await runUntil(app(), app().clock.current + DAY, { keepAlive: [user.client] });
    expect((await runsOf(app(), service.id)).every((r) => r.state === 'succeeded' && r.charged === 0)).toBe(true);
    expect((await serviceEntries(user.id)).map((e) => e.amount)).toEqual([-20]);
    expect(await balanceOf(app(), user.id)).toBe(30);
  });
});

describe('failures, retries and refunds', () => {
  async function failingService(mode: 'flaky' | 'transient' | 'permanent' | 'timeout', retryLimit: number) {
    const platformId = await addPlatform(app(), { price: 4, billingUnit: 'per_run', retryLimit });
    const user = await payingUser(40);
    const service = await startService(user.client, platformId, EVERY_DAY);
    await (await app().admin()).ok('serviceSandbox', { body: { id: service.id, mode } });
    const run = await user.client.ok('serviceRunNow', { body: { id: service.id }, headers: idem() });
    // Long enough for every backoff (at most ten minutes each), short of the next planned run.
    await runUntil(app(), app().clock.current + 2 * 3600_000, { stepMs: 60_000 });
    const runs = await runsOf(app(), service.id);
    return { user, service, run: runs.find((r) => r.id === run.id)! };
  }

  it('retries a transient failure with backoff and charges it once', async () => {
    const { user, run } = await failingService('flaky', 3);
    expect(run).toMatchObject({ state: 'succeeded', attempts: 2, charged: 4 });
    expect((await serviceEntries(user.id)).map((e) => e.amount)).toEqual([-4]);
    // The settings ask for notices (inbox): the success is told once, the failed attempt before it not at all.
    expect((await noticesOf(app(), user.id)).map((n) => n.kind)).toEqual(['run_succeeded']);
  });

  it('refunds a run that still fails after the retry limit, and tells the user', async () => {
    const { user, run } = await failingService('transient', 2);
    expect(run).toMatchObject({ state: 'refunded', attempts: 3, charged: 4 });
    expect(run.refundReference).toBe(`refund-${run.chargeReference}`);
    const entries = await serviceEntries(user.id);
    expect(entries.map((e) => [e.kind, e.amount])).toEqual([
      ['service_charge', -4],
      ['service_refund', 4],
    ]);
    expect(await balanceOf(app(), user.id)).toBe(40);
    const notices = await noticesOf(app(), user.id);
    expect(notices.map((n) => [n.kind, n.readAt])).toEqual([['run_failed', null]]);
    expect(notices[0]!.body).toContain('已退回 4 积分');
  });

  it('does not retry a permanent failure', async () => {
    const { user, run } = await failingService('permanent', 3);
    expect(run).toMatchObject({ state: 'refunded', attempts: 1 });
    expect(await balanceOf(app(), user.id)).toBe(40);
  });

  it('aborts a call that does not answer in time and treats it as transient', async () => {
    const { user, run } = await failingService('timeout', 1);
    expect(run).toMatchObject({ state: 'refunded', attempts: 2, result: '平台响应超时' });
    expect(await balanceOf(app(), user.id)).toBe(40);
  });

  it('copies the failure notice by e-mail when the settings ask for it and an address is bound', async () => {
    const platformId = await addPlatform(app(), { price: 1, billingUnit: 'per_run', retryLimit: 0 });
    const user = await payingUser(5);
    const email = `${user.userAccount}@example.com`.toLowerCase();
    await app().built.context.db.updateTable('users').set({ email }).where('id', '=', user.id).execute();
    const service = await startService(user.client, platformId, { ...EVERY_DAY, notify: 'email' });
    await (await app().admin()).ok('serviceSandbox', { body: { id: service.id, mode: 'permanent' } });
    await user.client.ok('serviceRunNow', { body: { id: service.id }, headers: idem() });
    await app().built.scheduler.tick();
    const mails = app().mailer.sent.filter((m) => m.to === email);
    expect(mails.map((m) => m.subject)).toEqual(['执行失败']);
    expect(mails[0]!.text).toContain('已退回 1 积分');
  });

  it('skips a run the user cannot pay for, pauses the service and tells the user', async () => {
    const platformId = await addPlatform(app(), { price: 10, billingUnit: 'per_run' });
    const user = await payingUser(15);
    const service = await startService(user.client, platformId, EVERY_DAY);
    await runUntil(app(), app().clock.current + 4 * DAY, { keepAlive: [user.client] });
    const runs = await runsOf(app(), service.id);
    expect(runs.map((r) => [r.state, r.charged])).toEqual([
      ['succeeded', 10],
      ['skipped', 0],
    ]);
    expect(runs[1]!.result).toContain('积分不足');
    expect(await user.client.ok('serviceGet', { query: { id: service.id } })).toMatchObject({
      state: 'paused',
      nextRunAt: null,
      lastRunState: 'skipped',
    });
    expect((await noticesOf(app(), user.id)).map((n) => n.kind)).toEqual(['run_succeeded', 'run_skipped']);
    expect(await balanceOf(app(), user.id)).toBe(5);
  });
});
