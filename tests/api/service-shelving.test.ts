import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/operations.js';
import { balanceOf, expectLedgerConsistent, grant, idem } from '../helpers/ledger.js';
import { addPlatform, runsOf, runUntil, siteTime, siteWallClock, startService } from '../helpers/services.js';
import { useTestApp } from '../helpers/test-app.js';

// A platform taken off shelf stops its services' runs: those not started yet are skipped with the reason, nothing
// charged, and none is planned while it is off. Put back on shelf, planning resumes from then: what fell due while
// it was off is not run late (before, a platform back within the hour ran the missed check-in late).
const app = useTestApp({}, { startAt: siteTime('2026-11-30T07:00') });
const EVERY_DAY = { days: [1, 2, 3, 4, 5, 6, 7], checkInTime: '09:00', notify: 'inbox' };

describe('taking a platform off shelf and back', () => {
  it('skips what had not started, plans nothing while off, and resumes from now without running the missed time', async () => {
    const platformId = await addPlatform(app(), { price: 2, billingUnit: 'per_run' });
    const user = await app().newUser();
    await grant(app(), user.userAccount, 50);
    const service = await startService(user.client, platformId, EVERY_DAY);
    const admin = await app().admin();
    const waiting = await user.client.ok<Schemas['Run']>('serviceRunNow', {
      body: { id: service.id },
      headers: idem(),
    });

    await admin.ok('platformShelf', { body: { id: platformId, status: 0 } });
    const [skipped] = await runsOf(app(), service.id);
    expect(skipped).toMatchObject({ id: waiting.id, state: 'skipped', charged: 0, result: '平台已下架，本次跳过' });

    // 09:00 passes while the platform is off shelf: nothing is planned.
    await runUntil(app(), siteTime('2026-11-30T09:40'), { stepMs: 10 * 60_000 });
    expect(await runsOf(app(), service.id)).toHaveLength(1);

    // Back on shelf within the hour: the 09:00 it missed is not run late; the next is tomorrow's.
    await admin.ok('platformShelf', { body: { id: platformId, status: 1 } });
    await runUntil(app(), siteTime('2026-11-30T11:00'), { stepMs: 10 * 60_000 });
    expect(await runsOf(app(), service.id)).toHaveLength(1);
    const next = (await user.client.ok<Schemas['Service']>('serviceGet', { query: { id: service.id } })).nextRunAt;
    expect(siteWallClock(next!)).toMatchObject({ day: '2026-12-01', time: '09:00' });

    await runUntil(app(), siteTime('2026-12-01T09:30'), { stepMs: 30 * 60_000, keepAlive: [user.client] });
    const runs = await runsOf(app(), service.id);
    expect(runs.map((r) => [r.state, r.charged])).toEqual([
      ['skipped', 0],
      ['succeeded', 2],
    ]);
    expect(await balanceOf(app(), user.id)).toBe(48);
    await expectLedgerConsistent(app());
  });
});
