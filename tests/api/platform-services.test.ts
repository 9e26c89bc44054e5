import { describe, expect, it } from 'vitest';
import { PLATFORM_KINDS } from '../../src/api/generated/platform-kinds.gen.js';
import { openapi } from '../helpers/contract.js';
import { idem } from '../helpers/ledger.js';
import { addPlatform, startService, WEEKDAYS_0830 } from '../helpers/services.js';
import { useTestApp } from '../helpers/test-app.js';

const app = useTestApp();

describe('platforms', () => {
  it('seeds one platform per declared kind, off shelf, so users see none until an admin prices it', async () => {
    const admin = await app().admin();
    const page = await admin.ok('platformListPage', { body: { pageSize: 100 } });
    const seeded = page.records.filter((p: { kind: string }) => PLATFORM_KINDS.some((k) => k.code === p.kind));
    expect(seeded.map((p: { kind: string }) => p.kind).sort()).toEqual(PLATFORM_KINDS.map((k) => k.code).sort());
    expect(seeded.every((p: { status: number }) => p.status === 0)).toBe(true);
    const user = await app().newUser();
    // The kinds are the `platforms` list of screens.config.ts (through codegen), in its order: a kind added there
    // is served, seeded and given its page with no other change.
    expect(await user.client.ok('platformKinds')).toEqual(PLATFORM_KINDS.map((k) => ({ ...k })));
    expect(await user.client.ok('platformList')).toEqual([]);
    for (const kind of PLATFORM_KINDS) {
      expect(await user.client.ok('platformOverview', { query: { kind: kind.code } })).toEqual({
        kind: { ...kind },
        platform: null,
        service: null,
        today: 0,
        total: 0,
        quota: { runs: 0, days: 0 },
      });
    }
    const unknown = await user.client.call('platformOverview', { query: { kind: 'nope' } });
    expect([unknown.status, unknown.code]).toEqual([404, 40400]);
  });

  it('lets an admin price, describe and shelve a platform, and refuses an undeclared kind', async () => {
    const admin = await app().admin();
    const [gxy] = (await admin.ok('platformListPage', { body: { kind: 'gxy', pageSize: 1 } })).records;
    await admin.ok('platformUpdate', {
      body: { id: gxy.id, price: 2, billingUnit: 'per_day', description: '工作日打卡', sort: 1 },
    });
    await admin.ok('platformShelf', { body: { id: gxy.id, status: 1 } });
    expect(await admin.ok('platformGet', { query: { id: gxy.id } })).toMatchObject({
      price: 2,
      billingUnit: 'per_day',
      status: 1,
      kindTitle: '工学云',
      settingsSchema: 'ClockInSettings',
    });
    const user = await app().newUser();
    expect((await user.client.ok('platformList')).map((p: { id: number }) => p.id)).toContain(gxy.id);
    expect((await user.client.ok('platformOverview', { query: { kind: 'gxy' } })).platform.id).toBe(gxy.id);

    const bad = await admin.call('platformAdd', {
      body: { kind: 'abc', name: '未知', price: 1, billingUnit: 'per_run' },
    });
    expect([bad.status, bad.code, bad.message]).toEqual([400, 40000, '平台类型不存在']);
    await admin.ok('platformShelf', { body: { id: gxy.id, status: 0 } });
    expect((await user.client.ok('platformOverview', { query: { kind: 'gxy' } })).platform).toBeNull();
  });
});

describe('service settings', () => {
  it.each([
    [
      'a check-in time that is not HH:mm',
      { ...WEEKDAYS_0830, checkInTime: '25:00' },
      '签到时间应为 24 小时制的 HH:mm，如 08:30',
    ],
    ['no day of the week', { ...WEEKDAYS_0830, days: [] }, '打卡日不正确'],
    ['a day of the week out of range', { ...WEEKDAYS_0830, days: [1, 8] }, '星期不能大于 7'],
    ['a missing check-in time', { days: [1], notify: 'inbox' }, '请填写签到时间'],
    ['a setting the schema does not have (a location)', { ...WEEKDAYS_0830, latitude: 31.2 }, '不支持的参数：latitude'],
    [
      'course settings',
      { courses: [{ name: '英语', windowStart: '08:00', windowEnd: '09:00' }], notify: 'inbox' },
      '请填写打卡日',
    ],
  ])('refuses %s on a clock-in platform with a field message', async (_, settings, message) => {
    const platformId = await addPlatform(app(), { kind: 'gxy', price: 0, billingUnit: 'per_run' });
    const user = await app().newUser();
    const r = await user.client.call('serviceSave', { body: { platformId, settings } });
    expect([r.status, r.code, r.message]).toEqual([400, 40000, message]);
  });

  it.each([
    [
      'an empty course name',
      { courses: [{ name: '', windowStart: '08:00', windowEnd: '09:00' }], notify: 'inbox' },
      '课程名称不能为空',
    ],
    [
      'a window that ends before it starts',
      { courses: [{ name: '英语', windowStart: '10:00', windowEnd: '09:00' }], notify: 'email' },
      '课程“英语”的结束时间应晚于开始时间',
    ],
    ['no course', { courses: [], notify: 'inbox' }, '课程不正确'],
  ])('refuses %s on a course platform with a field message', async (_, settings, message) => {
    const platformId = await addPlatform(app(), { kind: 'wk', price: 0, billingUnit: 'per_run' });
    const user = await app().newUser();
    const r = await user.client.call('serviceSave', { body: { platformId, settings } });
    expect([r.status, r.code, r.message]).toEqual([400, 40000, message]);
  });

  it('plans every declared kind from its settings family (the example openapi.yaml gives the family)', async () => {
    const user = await app().newUser();
    for (const kind of PLATFORM_KINDS) {
      const platformId = await addPlatform(app(), { kind: kind.code, price: 0, billingUnit: 'per_run' });
      const settings = openapi.components.schemas[kind.settings]!.example as object;
      const service = await startService(user.client, platformId, settings);
      expect([kind.code, service.state, service.settings]).toEqual([kind.code, 'active', settings]);
      // A family without a schedule would leave the service active with no next run: never run, never told.
      expect([kind.code, service.nextRunAt]).toEqual([kind.code, expect.any(Number)]);
      expect(service.nextRunAt).toBeGreaterThan(app().clock.current);
    }
  });

  it('keeps valid settings as sent and plans from them', async () => {
    const platformId = await addPlatform(app(), { kind: 'wk', price: 0, billingUnit: 'per_run' });
    const user = await app().newUser();
    const settings = { courses: [{ name: '大学英语', windowStart: '19:00', windowEnd: '21:00' }], notify: 'inbox' };
    const service = await startService(user.client, platformId, settings);
    expect(service).toMatchObject({ settings, state: 'active', kind: 'wk', userAccount: user.userAccount });
    expect(service.nextRunAt).toBeGreaterThan(app().clock.current);
    // New settings on a running service plan it again, from the new window.
    const earlier = { ...settings, courses: [{ name: '高等数学', windowStart: '06:00', windowEnd: '07:00' }] };
    const saved = await user.client.ok('serviceSave', { body: { platformId, settings: earlier } });
    expect(saved.settings).toEqual(earlier);
    expect(new Date(saved.nextRunAt).toISOString().slice(11, 16)).toBe('22:00'); // 06:00 in Shanghai
  });
});

describe("one user's services and runs are not another's", () => {
  it('answers 404 for another user’s service, and an empty list for their runs', async () => {
    const platformId = await addPlatform(app(), { price: 0, billingUnit: 'per_run' });
    const owner = await app().newUser();
    const service = await startService(owner.client, platformId);
    await owner.client.ok('serviceRunNow', { body: { id: service.id }, headers: idem() });
    await app().built.scheduler.tick();

    const stranger = await app().newUser({ role: 'agent' });
    for (const [operationId, options] of [
      ['serviceGet', { query: { id: service.id } }],
      ['serviceStart', { body: { id: service.id }, headers: idem() }],
      ['servicePause', { body: { id: service.id } }],
      ['serviceStop', { body: { id: service.id } }],
      ['serviceRunNow', { body: { id: service.id }, headers: idem() }],
    ] as const) {
      const r = await stranger.client.call(operationId, options);
      expect([operationId, r.status, r.code]).toEqual([operationId, 404, 40400]);
    }
    const runs = await stranger.client.call('runMy', { body: { serviceId: service.id } });
    expect([runs.status, runs.code]).toEqual([404, 40400]);
    expect((await stranger.client.ok('runMy', { body: { platformId } })).total).toBe(0);
    expect(await stranger.client.ok('serviceMy')).toEqual([]);
    // Saving on the same platform makes the stranger's own service; the owner's settings stay.
    const own = await stranger.client.ok('serviceSave', {
      body: { platformId, settings: { ...WEEKDAYS_0830, checkInTime: '10:00' } },
    });
    expect(own.id).not.toBe(service.id);
    expect((await owner.client.ok('serviceGet', { query: { id: service.id } })).settings).toEqual(WEEKDAYS_0830);
    expect((await owner.client.ok('runMy', { body: {} })).total).toBe(1);
  });

  it('lets an admin list everyone’s services and runs with filters, and pause any service', async () => {
    const platformId = await addPlatform(app(), { price: 0, billingUnit: 'per_run' });
    const owner = await app().newUser();
    const service = await startService(owner.client, platformId);
    await owner.client.ok('serviceRunNow', { body: { id: service.id }, headers: idem() });
    await app().built.scheduler.tick();
    const admin = await app().admin();
    const services = await admin.ok('serviceListPage', { body: { platformId, userId: owner.id, state: 'active' } });
    expect(services.records.map((s: { id: number }) => s.id)).toEqual([service.id]);
    const runs = await admin.ok('runListPage', { body: { searchText: owner.userAccount, state: 'succeeded' } });
    expect(runs.records.map((r: { serviceId: number }) => r.serviceId)).toEqual([service.id]);
    expect((await admin.ok('servicePause', { body: { id: service.id } })).state).toBe('paused');
    expect((await admin.ok('serviceListPage', { body: { platformId, state: 'active' } })).total).toBe(0);
  });
});
