import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/operations.js';
import { balanceOf, entriesOf, expectLedgerConsistent, grant, idem } from '../helpers/ledger.js';
import { grantQuota, expectQuotaConsistent } from '../helpers/quotas.js';
import { addPlatform, noticesOf, runsOf, siteTime, startService } from '../helpers/services.js';
import { useTestApp } from '../helpers/test-app.js';

// A per_day platform's day is paid exactly once if any of its runs succeeds, and costs nothing if none does, whatever
// the order of failures, retries and refunds. Before, the run that paid the day could fail (and be refunded) after a
// later run of the same day had been let through as "already paid", and the day ended unpaid.
const app = useTestApp({}, { startAt: siteTime('2026-11-30T07:00') });
// Planned at 21:00 each day: the tests' own runs, by hand, come first.
const EVENINGS = { days: [1, 2, 3, 4, 5, 6, 7], checkInTime: '21:00', notify: 'inbox' };
const PRICE = 5;

async function dayService(retryLimit: number) {
  const platformId = await addPlatform(app(), { price: PRICE, billingUnit: 'per_day', retryLimit });
  const user = await app().newUser();
  await grant(app(), user.userAccount, 100);
  const service = await startService(user.client, platformId, EVENINGS);
  const admin = await app().admin();
  const sandbox = (mode: Schemas['SandboxMode']) => admin.ok('serviceSandbox', { body: { id: service.id, mode } });
  const runNow = () => user.client.ok<Schemas['Run']>('serviceRunNow', { body: { id: service.id }, headers: idem() });
  const charges = async () =>
    (await entriesOf(app(), user.id))
      .filter((e) => e.kind === 'service_charge' || e.kind === 'service_refund')
      .map((e) => e.amount);
  return { platformId, user, service, sandbox, runNow, charges };
}

/** A moment later (two runs tapped in one millisecond take the next ones), the scheduler's turn. */
const tick = () => {
  app().clock.advance(100);
  return app().built.scheduler.tick();
};
const runById = async (serviceId: number, id: number) => (await runsOf(app(), serviceId)).find((r) => r.id === id)!;

describe('per_day billing when runs of one day fail and succeed', () => {
  it('a day whose paying run failed and was refunded is paid by the run that later succeeds', async () => {
    const s = await dayService(0);
    await s.sandbox('permanent');
    const first = await s.runNow();
    await tick();
    expect(await runById(s.service.id, first.id)).toMatchObject({ state: 'refunded' });
    await s.sandbox('ok');
    const second = await s.runNow();
    await tick();
    expect(await runById(s.service.id, second.id)).toMatchObject({ state: 'succeeded', charged: PRICE });
    expect(await s.charges()).toEqual([-PRICE, PRICE, -PRICE]);
    expect(await balanceOf(app(), s.user.id)).toBe(100 - PRICE);
    await expectLedgerConsistent(app());
  });

  it('the paying run failing after another run of the day succeeded keeps the day paid, once', async () => {
    const s = await dayService(2);
    await s.sandbox('transient');
    const paying = await s.runNow();
    await tick(); // charged, failed once, waits for its retry
    expect(await runById(s.service.id, paying.id)).toMatchObject({ state: 'due', charged: PRICE });
    await s.sandbox('ok');
    const other = await s.runNow();
    await tick(); // the day is paid: runs without a charge and succeeds
    expect(await runById(s.service.id, other.id)).toMatchObject({ state: 'succeeded', charged: 0 });
    await s.sandbox('permanent');
    app().clock.advance(30 * 60_000); // past every backoff
    await tick();
    expect(await runById(s.service.id, paying.id)).toMatchObject({ state: 'failed', charged: 0 });
    expect(await runById(s.service.id, other.id)).toMatchObject({ state: 'succeeded', charged: PRICE });
    expect(await s.charges()).toEqual([-PRICE]);
    expect((await noticesOf(app(), s.user.id)).at(-1)!.body).toContain('当天已有执行成功');
    await expectLedgerConsistent(app());
  });

  it('passes the payment to a run of the day still to come, and refunds it when that one fails too', async () => {
    const s = await dayService(0);
    await s.sandbox('permanent');
    const a = await s.runNow();
    const b = await s.runNow();
    await tick();
    const runs = await runsOf(app(), s.service.id);
    expect([a.id, b.id].map((id) => runs.find((r) => r.id === id)!.state).sort()).toEqual(['failed', 'refunded']);
    // Paid once, refunded once, whichever of the two held the payment last.
    expect(await s.charges()).toEqual([-PRICE, PRICE]);
    expect(await balanceOf(app(), s.user.id)).toBe(100);

    // The day is unpaid again: a later run that succeeds pays it, once.
    await s.sandbox('ok');
    const c = await s.runNow();
    await tick();
    expect(await runById(s.service.id, c.id)).toMatchObject({ state: 'succeeded', charged: PRICE });
    expect(await s.charges()).toEqual([-PRICE, PRICE, -PRICE]);
    await expectLedgerConsistent(app());
  });

  it('a day quota follows the same rule: one unit used for the day if a run succeeds', async () => {
    const s = await dayService(0);
    const granted = await grantQuota(app(), {
      userAccount: s.user.userAccount,
      platformId: s.platformId,
      unit: 'days',
      amount: 3,
      reason: '测试',
    });
    await s.sandbox('permanent');
    await s.runNow();
    await tick();
    await s.sandbox('ok');
    const later = await s.runNow();
    await tick();
    const run = await runById(s.service.id, later.id);
    expect(run).toMatchObject({ state: 'succeeded', charged: 0, quotaGrantId: granted.id });
    expect(await s.charges()).toEqual([]);
    const held = await app()
      .built.context.db.selectFrom('quotaGrants')
      .select('remaining')
      .where('id', '=', granted.id)
      .executeTakeFirstOrThrow();
    expect(Number(held.remaining)).toBe(2);
    await expectQuotaConsistent(app());
  });
});
