import { beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/operations.js';
import { balanceOf, entriesOf, expectLedgerConsistent, grant, idem } from '../helpers/ledger.js';
import { addPlatform, noticesOf, runsOf, runUntil, siteTime, startService } from '../helpers/services.js';
import { useTestApp } from '../helpers/test-app.js';

// A ban stops every charge of the banned user in the ban's own transaction: services pause, a run not started yet
// is skipped unpaid (a manual one too), nothing is planned after it; the user is told in the inbox, and an unban
// leaves the services paused for the user to resume. The admin's user detail says how many the ban paused.
const app = useTestApp({}, { startAt: siteTime('2026-11-30T00:00') });
const DAY = 24 * 3600_000;
const EVERY_DAY = { days: [1, 2, 3, 4, 5, 6, 7], checkInTime: '09:00', notify: 'inbox' };

let admin: Awaited<ReturnType<ReturnType<typeof app>['admin']>>;
beforeAll(async () => {
  admin = await app().admin();
});

describe('banning a user with running services', () => {
  it('pauses them in the ban, skips what had not started, charges nothing after it, and an unban keeps them paused', async () => {
    const perRun = await addPlatform(app(), { price: 3, billingUnit: 'per_run' });
    const perDay = await addPlatform(app(), { price: 5, billingUnit: 'per_day' });
    const idle = await addPlatform(app(), { price: 1, billingUnit: 'per_run' });
    const user = await app().newUser();
    await grant(app(), user.userAccount, 100);
    const first = await startService(user.client, perRun, EVERY_DAY);
    const second = await startService(user.client, perDay, EVERY_DAY);
    // Saved but never started: a ban has nothing to pause there.
    await user.client.ok('serviceSave', { body: { platformId: idle, settings: EVERY_DAY } });
    // A manual run waits in the queue, not yet claimed, when the ban lands.
    const manual = await user.client.ok<Schemas['Run']>('serviceRunNow', {
      body: { id: first.id },
      headers: idem(),
    });
    const before = await balanceOf(app(), user.id);

    await admin.ok('userBan', { query: { id: user.id } });
    for (const id of [first.id, second.id])
      expect(await admin.ok<Schemas['Service']>('serviceGet', { query: { id } })).toMatchObject({
        state: 'paused',
        nextRunAt: null,
      });
    expect(await admin.ok<Schemas['UserAdminView']>('userGet', { query: { id: user.id } })).toMatchObject({
      status: 'banned',
      banPausedServices: 2,
    });
    const notices = await noticesOf(app(), user.id);
    expect(notices.at(-1)).toMatchObject({ kind: 'service_paused' });
    expect(notices.at(-1)!.body).toContain('2 项运行中的服务已暂停');

    // Three days of the scheduler: the queued manual run is skipped unpaid, nothing new is planned or charged.
    await runUntil(app(), app().clock.current + 3 * DAY);
    const runs = [...(await runsOf(app(), first.id)), ...(await runsOf(app(), second.id))];
    expect(runs.map((r) => [r.id, r.state, r.charged])).toEqual([[manual.id, 'skipped', 0]]);
    expect(runs[0]!.result).toBe('账号已被封禁，本次跳过');
    expect(await balanceOf(app(), user.id)).toBe(before);
    expect((await entriesOf(app(), user.id)).filter((e) => e.kind === 'service_charge')).toEqual([]);

    // Unbanned: the services stay paused until the user resumes them; the detail still says what the ban did.
    await admin.ok('userUnBan', { query: { id: user.id } });
    await runUntil(app(), app().clock.current + DAY);
    expect(await runsOf(app(), first.id)).toHaveLength(1);
    for (const id of [first.id, second.id])
      expect(await admin.ok<Schemas['Service']>('serviceGet', { query: { id } })).toMatchObject({ state: 'paused' });
    expect(await admin.ok<Schemas['UserAdminView']>('userGet', { query: { id: user.id } })).toMatchObject({
      status: 'active',
      banPausedServices: 2,
    });
    await expectLedgerConsistent(app());
  });
});
