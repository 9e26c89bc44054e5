import { auditTrail } from '../helpers/audit.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/client.js';
import { sqlOutsideTheApp } from '../helpers/database.js';
import { LIVE_SITE_TTL_MS } from '../../src/server/modules/site/live-site-cache.js';
import { useTestApp } from '../helpers/test-app.js';

const app = useTestApp();

const adminId = () => app().adminId();

const siteAudit = (id: number) => auditTrail(app(), 'site', id);

describe('basicInformationGet', () => {
  it('answers the seeded record 1 to a visitor', async () => {
    const r = await app()
      .client()
      .call('basicInformationGet', { query: { id: 1 } });
    expect(r.code).toBe(0);
    expect(r.data).toMatchObject({
      id: 1,
      websiteName: '积分商城',
      noticeBar: '欢迎来到积分商城',
      noticeAnnouncementTitle: '公告',
      coinName: '积分',
      addCoin: 0,
      amount: 0,
      status: 1,
      analyticsUrl: '',
      userId: null,
    });
    expect(r.data.noticeAnnouncement.length).toBeGreaterThan(0);
    expect(r.data.pointsNotification.length).toBeGreaterThan(0);
    expect(r.data.updatedAt).toBeGreaterThan(0);
  });

  it('answers 404 / 40400 for an unknown id and 400 / 40000 for a malformed one', async () => {
    const visitor = app().client();
    const unknown = await visitor.call('basicInformationGet', { query: { id: 999_999 } });
    expect([unknown.status, unknown.code, unknown.message]).toEqual([404, 40400, '站点信息不存在']);
    for (const query of [{ id: 0 }, { id: 'abc' }, {}, { id: 1, extra: 1 }]) {
      const r = await visitor.call('basicInformationGet', { query });
      expect([r.status, r.code], JSON.stringify(query)).toEqual([400, 40000]);
    }
  });
});

describe('basicInformationUpdate', () => {
  it('changes only the fields sent, records who and when, and users read the new notice bar', async () => {
    const admin = await app().admin();
    const before = await admin.ok('basicInformationGet', { query: { id: 1 } });
    app().clock.advance(5000);
    expect(await admin.ok('basicInformationUpdate', { body: { id: 1, noticeBar: '新的公告栏文字' } })).toBe(true);
    const after = await admin.ok('basicInformationGet', { query: { id: 1 } });
    expect(after).toEqual({
      ...before,
      noticeBar: '新的公告栏文字',
      userId: await adminId(),
      updatedAt: app().clock.now(),
    });

    const { client } = await app().newUser();
    expect((await client.ok('basicInformationGet', { query: { id: 1 } })).noticeBar).toBe('新的公告栏文字');
    expect(
      (
        await app()
          .client()
          .ok('basicInformationGet', { query: { id: 1 } })
      ).noticeBar,
    ).toBe('新的公告栏文字');

    const audit = (await siteAudit(1)).filter((a) => a.action === 'site.update').at(-1);
    expect(audit).toMatchObject({
      actorId: await adminId(),
      before: { noticeBar: before.noticeBar },
      after: { noticeBar: '新的公告栏文字' },
    });
  });

  it('changes several fields at once and keeps multi-line text in the announcement', async () => {
    const admin = await app().admin();
    const before = await admin.ok('basicInformationGet', { query: { id: 1 } });
    const patch = {
      websiteName: '我的商城',
      noticeAnnouncementTitle: '重要通知',
      noticeAnnouncement: '第一行\n第二行',
      pointsNotification: '付款后\n联系客服',
      coinName: '金币',
      addCoin: 20,
      amount: 500,
    };
    await admin.ok('basicInformationUpdate', { body: { id: 1, ...patch } });
    const after = await admin.ok('basicInformationGet', { query: { id: 1 } });
    expect(after).toEqual({ ...before, ...patch, updatedAt: app().clock.now(), userId: await adminId() });
  });

  it('accepts an https:// analytics address or an empty one, and rejects http:// and javascript:', async () => {
    const admin = await app().admin();
    const url = 'https://stats.example.com/script.js?site=1';
    expect((await admin.call('basicInformationUpdate', { body: { id: 1, analyticsUrl: url } })).code).toBe(0);
    expect(
      (
        await app()
          .client()
          .ok('basicInformationGet', { query: { id: 1 } })
      ).analyticsUrl,
    ).toBe(url);

    for (const bad of [
      'http://stats.example.com/script.js',
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'https://',
      ' https://stats.example.com/a.js',
      'https://stats.example.com/a.js"><script>alert(1)</script>',
      '//stats.example.com/a.js',
      'data:text/javascript,alert(1)',
      `https://example.com/${'a'.repeat(200)}`,
    ]) {
      const r = await admin.call('basicInformationUpdate', { body: { id: 1, analyticsUrl: bad } });
      expect([r.status, r.code], bad).toEqual([400, 40000]);
      expect(r.message, bad).toContain('统计脚本地址');
    }
    expect((await admin.ok('basicInformationGet', { query: { id: 1 } })).analyticsUrl).toBe(url);

    expect((await admin.call('basicInformationUpdate', { body: { id: 1, analyticsUrl: '' } })).code).toBe(0);
    expect((await admin.ok('basicInformationGet', { query: { id: 1 } })).analyticsUrl).toBe('');
  });

  it('refuses malformed fields with 400 / 40000 and changes nothing', async () => {
    const admin = await app().admin();
    const before = await admin.ok('basicInformationGet', { query: { id: 1 } });
    for (const body of [
      { id: 1, websiteName: '' },
      { id: 1, websiteName: 'x'.repeat(33) },
      { id: 1, noticeBar: '两行\n文字' },
      { id: 1, coinName: '' },
      { id: 1, addCoin: -1 },
      { id: 1, amount: 1.5 },
      { id: 1, status: 2 },
      // Read-only fields the record carries are ignored (tests/api/seed-client.test.ts); others are still refused.
      { id: 1, createdBy: 5 },
      { id: 1, userId: 'x' },
      { noticeBar: 'no id' },
    ]) {
      const r = await admin.call('basicInformationUpdate', { body });
      expect([r.status, r.code], JSON.stringify(body)).toEqual([400, 40000]);
    }
    expect(await admin.ok('basicInformationGet', { query: { id: 1 } })).toEqual(before);
  });

  it('answers 404 for an unknown record, 403 to non-admins, 401 to visitors and 40300 without the anti-CSRF header', async () => {
    const admin = await app().admin();
    const unknown = await admin.call('basicInformationUpdate', { body: { id: 999_999, noticeBar: 'x' } });
    expect([unknown.status, unknown.code, unknown.message]).toEqual([404, 40400, '站点信息不存在']);
    const { client } = await app().newUser({ role: 'agent' });
    const agent = await client.call('basicInformationUpdate', { body: { id: 1, noticeBar: 'hacked' } });
    expect([agent.status, agent.code]).toEqual([403, 40101]);
    const visitor = await app()
      .client()
      .call('basicInformationUpdate', { body: { id: 1, noticeBar: 'hacked' } });
    expect([visitor.status, visitor.code]).toEqual([401, 40100]);
    const csrf = await admin.call('basicInformationUpdate', {
      body: { id: 1, noticeBar: 'hacked' },
      withoutCsrf: true,
    });
    expect([csrf.status, csrf.code]).toEqual([403, 40300]);
    expect((await admin.ok('basicInformationGet', { query: { id: 1 } })).noticeBar).not.toBe('hacked');
  });
});

describe('basicInformationAdd / basicInformationDelete', () => {
  it('adds a record with defaults for what is not sent', async () => {
    const admin = await app().admin();
    app().clock.advance(1000);
    const id = await admin.ok<number>('basicInformationAdd', { body: { websiteName: '分站' } });
    expect(id).toBeGreaterThan(1);
    expect(await admin.ok('basicInformationGet', { query: { id } })).toEqual({
      id,
      websiteName: '分站',
      noticeBar: '',
      noticeAnnouncementTitle: '',
      noticeAnnouncement: '',
      pointsNotification: '',
      coinName: '积分',
      addCoin: 0,
      amount: 0,
      rebatePercent: 0,
      status: 0,
      analyticsUrl: '',
      userId: await adminId(),
      updatedAt: app().clock.now(),
      // The site's zone (TZ_SITE of the test app), which the web app shows every time in.
      timeZone: 'Asia/Shanghai',
      policyVersion: 1,
    });
    expect((await siteAudit(id)).map((a) => a.action)).toEqual(['site.add']);
  });

  it('adds a record with every field given', async () => {
    const admin = await app().admin();
    const body = {
      websiteName: '积分商城二号',
      noticeBar: '欢迎',
      noticeAnnouncementTitle: '标题',
      noticeAnnouncement: '内容\n第二行',
      pointsNotification: '须知',
      coinName: '钻石',
      addCoin: 10,
      amount: 1000,
      rebatePercent: 15,
      status: 1,
      analyticsUrl: 'https://stats.example.com/a.js',
    };
    const id = await admin.ok<number>('basicInformationAdd', { body });
    expect(await admin.ok('basicInformationGet', { query: { id } })).toMatchObject({ id, ...body });
  });

  it('refuses a record without a name, with unknown fields, or with an unsafe analytics address', async () => {
    const admin = await app().admin();
    for (const body of [
      {},
      { noticeBar: 'x' },
      { websiteName: '' },
      { websiteName: 'x', id: 5 },
      { websiteName: 'x', analyticsUrl: 'http://stats.example.com/a.js' },
      { websiteName: 'x', analyticsUrl: 'javascript:alert(1)' },
      { websiteName: 'x', addCoin: -5 },
    ]) {
      const r = await admin.call('basicInformationAdd', { body });
      expect([r.status, r.code], JSON.stringify(body)).toEqual([400, 40000]);
    }
    const { client } = await app().newUser();
    const user = await client.call('basicInformationAdd', { body: { websiteName: 'x' } });
    expect([user.status, user.code]).toEqual([403, 40101]);
  });

  it('never deletes record 1 (40000); deletes others; 404 for unknown or already deleted records', async () => {
    const admin = await app().admin();
    const live = await admin.call('basicInformationDelete', { body: { id: 1 } });
    expect([live.status, live.code, live.message]).toEqual([400, 40000, '正在使用的站点信息（编号 1）不能删除']);
    expect(
      (
        await app()
          .client()
          .call('basicInformationGet', { query: { id: 1 } })
      ).code,
    ).toBe(0);

    const id = await admin.ok<number>('basicInformationAdd', { body: { websiteName: '临时' } });
    expect(await admin.ok('basicInformationDelete', { body: { id } })).toBe(true);
    const gone = await admin.call('basicInformationGet', { query: { id } });
    expect([gone.status, gone.code]).toEqual([404, 40400]);
    const twice = await admin.call('basicInformationDelete', { body: { id } });
    expect([twice.status, twice.code, twice.message]).toEqual([404, 40400, '站点信息不存在']);
    const unknown = await admin.call('basicInformationDelete', { body: { id: 999_999 } });
    expect([unknown.status, unknown.code]).toEqual([404, 40400]);
    expect((await siteAudit(id)).map((a) => a.action)).toEqual(['site.add', 'site.delete']);
  });

  it('lets only admins delete', async () => {
    const admin = await app().admin();
    const id = await admin.ok<number>('basicInformationAdd', { body: { websiteName: '保留' } });
    const { client } = await app().newUser({ role: 'agent' });
    const r = await client.call('basicInformationDelete', { body: { id } });
    expect([r.status, r.code]).toEqual([403, 40101]);
    const visitor = await app().client().call('basicInformationDelete', { body: { id } });
    expect([visitor.status, visitor.code]).toEqual([401, 40100]);
    expect((await admin.call('basicInformationGet', { query: { id } })).code).toBe(0);
  });
});

describe('basicInformationList / basicInformationListPage', () => {
  let admin: ApiClient;
  const ids: Record<string, number> = {};
  let adminUserId: number;

  beforeAll(async () => {
    admin = await app().admin();
    adminUserId = await adminId();
    // Start from record 1 alone, so every expectation below is exact.
    for (const r of await admin.ok<{ id: number }[]>('basicInformationList', { query: { pageSize: 100 } })) {
      if (r.id !== 1) await admin.ok('basicInformationDelete', { body: { id: r.id } });
    }
    await admin.ok('basicInformationUpdate', {
      body: { id: 1, websiteName: '积分商城', coinName: '积分', noticeBar: '欢迎', addCoin: 0, amount: 0, status: 1 },
    });
    const records = {
      alpha: {
        websiteName: 'Alpha站',
        coinName: '金币',
        noticeBar: 'Hello WORLD 100%',
        pointsNotification: '请联系 admin_x',
        status: 0,
        addCoin: 5,
        amount: 100,
      },
      beta: {
        websiteName: 'beta站',
        coinName: '钻石',
        noticeBar: 'hello there',
        pointsNotification: '请联系 adminX',
        status: 1,
        addCoin: 0,
        amount: 0,
      },
      gamma: {
        websiteName: 'Gamma',
        coinName: '金豆',
        noticeBar: 'plain',
        pointsNotification: '',
        status: 0,
        addCoin: 5,
        amount: 0,
      },
    };
    for (const [key, body] of Object.entries(records)) {
      app().clock.advance(1000);
      ids[key] = await admin.ok<number>('basicInformationAdd', { body });
    }
    ids.one = 1;
  });

  const listIds = async (query: Record<string, unknown>) =>
    (await admin.ok<{ id: number }[]>('basicInformationList', { query })).map((r) => r.id);
  const expectIds = (...keys: string[]) => keys.map((k) => ids[k]);

  it('filters by id, status, coin amounts and the admin who changed them', async () => {
    expect(await listIds({})).toEqual(expectIds('one', 'alpha', 'beta', 'gamma'));
    expect(await listIds({ id: ids.beta })).toEqual(expectIds('beta'));
    expect(await listIds({ status: 0 })).toEqual(expectIds('alpha', 'gamma'));
    expect(await listIds({ status: 1 })).toEqual(expectIds('one', 'beta'));
    expect(await listIds({ addCoin: 5 })).toEqual(expectIds('alpha', 'gamma'));
    expect(await listIds({ amount: 100 })).toEqual(expectIds('alpha'));
    expect(await listIds({ addCoin: 5, amount: 0 })).toEqual(expectIds('gamma'));
    expect(await listIds({ userId: adminUserId })).toEqual(expectIds('one', 'alpha', 'beta', 'gamma'));
    expect(await listIds({ userId: 999_999 })).toEqual([]);
    expect(await listIds({ id: 999_999 })).toEqual([]);
  });

  it('matches coinName, noticeBar and pointsNotification as case-insensitive literal text', async () => {
    expect(await listIds({ coinName: '金' })).toEqual(expectIds('alpha', 'gamma'));
    expect(await listIds({ noticeBar: 'HELLO' })).toEqual(expectIds('alpha', 'beta'));
    expect(await listIds({ noticeBar: '0%' })).toEqual(expectIds('alpha'));
    expect(await listIds({ noticeBar: '%' })).toEqual(expectIds('alpha'));
    expect(await listIds({ pointsNotification: 'admin_' })).toEqual(expectIds('alpha'));
    expect(await listIds({ noticeBar: 'hello', status: 1 })).toEqual(expectIds('beta'));
  });

  it('answers at most pageSize records, from the asked page', async () => {
    expect(await listIds({ pageSize: 2 })).toEqual(expectIds('one', 'alpha'));
    expect(await listIds({ pageSize: 2, current: 2 })).toEqual(expectIds('beta', 'gamma'));
    expect(await listIds({ pageSize: 2, current: 3 })).toEqual([]);
  });

  it('pages with total, current and pageSize', async () => {
    const first = await admin.ok('basicInformationListPage', { body: { current: 1, pageSize: 3 } });
    expect([first.total, first.current, first.pageSize]).toEqual([4, 1, 3]);
    expect(first.records.map((r: { id: number }) => r.id)).toEqual(expectIds('one', 'alpha', 'beta'));
    const second = await admin.ok('basicInformationListPage', { body: { current: 2, pageSize: 3 } });
    expect([second.total, second.current, second.pageSize, second.records.length]).toEqual([4, 2, 3, 1]);
    const filtered = await admin.ok('basicInformationListPage', { body: { status: 0, pageSize: 1 } });
    expect([filtered.total, filtered.records.length]).toEqual([2, 1]);
    const defaults = await admin.ok('basicInformationListPage', { body: {} });
    expect([defaults.total, defaults.current, defaults.pageSize]).toEqual([4, 1, 10]);
  });

  it('sorts by a whitelisted field in the asked order', async () => {
    const sorted = async (sortField: string, sortOrder: string) =>
      (await admin.ok('basicInformationListPage', { body: { sortField, sortOrder } })).records.map(
        (r: { id: number }) => r.id,
      );
    expect(await sorted('id', 'descend')).toEqual(expectIds('gamma', 'beta', 'alpha', 'one'));
    expect(await sorted('websiteName', 'ascend')).toEqual(expectIds('alpha', 'gamma', 'beta', 'one'));
    expect(await sorted('websiteName', 'descend')).toEqual(expectIds('one', 'beta', 'gamma', 'alpha'));
    expect(await sorted('updatedAt', 'descend')).toEqual(expectIds('gamma', 'beta', 'alpha', 'one'));
    // Equal statuses keep id order.
    expect(await sorted('status', 'descend')).toEqual(expectIds('one', 'beta', 'alpha', 'gamma'));
  });

  it('refuses fields outside the whitelist and malformed paging with 400 / 40000', async () => {
    for (const body of [
      { sortField: 'coinName' },
      { sortOrder: 'up' },
      { pageSize: 0 },
      { pageSize: 101 },
      { current: 0 },
      { websiteName: 'x' },
      { status: 3 },
    ]) {
      const r = await admin.call('basicInformationListPage', { body });
      expect([r.status, r.code], JSON.stringify(body)).toEqual([400, 40000]);
    }
    for (const query of [
      { sortField: 'analyticsUrl' },
      { status: 2 },
      { noticeBar: 'x'.repeat(33) },
      { websiteName: 'x' },
    ]) {
      const r = await admin.call('basicInformationList', { query });
      expect([r.status, r.code], JSON.stringify(query)).toEqual([400, 40000]);
    }
  });

  it('is for admins only', async () => {
    const { client } = await app().newUser({ role: 'agent' });
    const list = await client.call('basicInformationList', { query: {} });
    expect([list.status, list.code]).toEqual([403, 40101]);
    const page = await client.call('basicInformationListPage', { body: {} });
    expect([page.status, page.code]).toEqual([403, 40101]);
    const visitor = await app().client().call('basicInformationListPage', { body: {} });
    expect([visitor.status, visitor.code]).toEqual([401, 40100]);
  });
});

describe('draft records are not public', () => {
  it('lets only an admin read a record other than 1', async () => {
    const admin = await app().admin();
    const id = await admin.ok('basicInformationAdd', {
      body: { websiteName: '草稿站点', noticeBar: '尚未公开的通知' },
    });
    expect((await admin.ok('basicInformationGet', { query: { id } })).noticeBar).toBe('尚未公开的通知');
    const visitor = await app().client().call('basicInformationGet', { query: { id } });
    expect([visitor.status, visitor.code]).toEqual([404, 40400]);
    const { client } = await app().newUser();
    expect((await client.call('basicInformationGet', { query: { id } })).code).toBe(40400);
    expect((await client.call('basicInformationGet', { query: { id: 1 } })).code).toBe(0);
  });
});

// The live record is the one thing a server keeps in memory (modules/site/live-site-cache.ts): its own changes are
// answered at once, anyone else's within LIVE_SITE_TTL_MS.
describe('the live site record kept in memory', () => {
  const read = async () =>
    (
      await app()
        .client()
        .ok('basicInformationGet', { query: { id: 1 } })
    ).noticeBar;

  it('answers an admin’s change at once', async () => {
    for (let i = 0; i < 3; i++) await read();
    const noticeBar = `公告 ${Date.now()}`;
    await (await app().admin()).ok('basicInformationUpdate', { body: { id: 1, noticeBar } });
    expect(await read()).toBe(noticeBar);
  });

  it('answers a change written by SQL outside the app within LIVE_SITE_TTL_MS', async () => {
    for (let i = 0; i < 3; i++) await read();
    const noticeBar = `直接改库 ${Date.now()}`;
    await sqlOutsideTheApp(app().db.config, 'update site_information set notice_bar = ? where id = 1', [noticeBar]);
    const started = performance.now();
    let seen = await read();
    while (seen !== noticeBar && performance.now() - started < LIVE_SITE_TTL_MS + 500) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen = await read();
    }
    expect(seen).toBe(noticeBar);
  });
});
