import { describe, expect, it } from 'vitest';
import { PASSWORD, uniqueAccount, useTestApp } from '../helpers/test-app.js';

/**
 * What the seed's own front end sends (a generated axios-style client on the same origin, no X-Requested-With), and
 * what a forged cross-site request looks like to the server.
 */

const app = useTestApp();

const registerWith = (headers: Record<string, string>, body: Record<string, unknown> = {}) =>
  app()
    .client()
    .call('userRegister', {
      body: { userAccount: uniqueAccount('s'), userPassword: PASSWORD, checkPassword: PASSWORD, ...body },
      withoutCsrf: true,
      headers,
      ip: `10.77.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`,
    });

// Fastify's injector sends Host: localhost:80.
const OWN = 'http://localhost';

describe('cross-site request forgery (Fetch Metadata, Origin, then X-Requested-With)', () => {
  it('accepts a state-changing call a browser marks same-origin or none, or whose Origin is this site', async () => {
    const accepted: Record<string, string>[] = [
      { 'sec-fetch-site': 'same-origin', origin: OWN },
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
      { origin: OWN },
      { origin: 'http://localhost:80' },
    ];
    for (const headers of accepted) {
      const r = await registerWith(headers);
      expect(r.code, JSON.stringify(headers)).toBe(0);
    }
  });

  it('refuses one another site made, with or without X-Requested-With', async () => {
    const refused: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'cross-site', 'x-requested-with': 'XMLHttpRequest' },
      { 'sec-fetch-site': 'same-origin', origin: 'http://evil.example' },
      { origin: 'http://evil.example', 'x-requested-with': 'XMLHttpRequest' },
      { origin: 'http://localhost:8081' },
      { origin: 'null' },
    ];
    for (const headers of refused) {
      const r = await registerWith(headers);
      expect([r.status, r.code], JSON.stringify(headers)).toEqual([403, 40300]);
    }
  });

  it('requires X-Requested-With from a client that sends neither header', async () => {
    const without = await registerWith({});
    expect([without.status, without.code, without.message]).toEqual([
      403,
      40300,
      '请求缺少安全校验头，请刷新页面后重试',
    ]);
    expect((await registerWith({ 'x-requested-with': 'XMLHttpRequest' })).code).toBe(0);
  });

  it("refuses the seed's state-changing GETs (ban) when another site links to them", async () => {
    const admin = await app().admin();
    const { id } = await app().newUser();
    const linked = await admin.call('userBan', {
      query: { id },
      withoutCsrf: true,
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect([linked.status, linked.code]).toEqual([403, 40300]);
    expect(
      (await admin.call('userBan', { query: { id }, withoutCsrf: true, headers: { 'sec-fetch-site': 'same-origin' } }))
        .code,
    ).toBe(0);
  });
});

describe('seed-shaped bodies', () => {
  it('registers with an optional userName as the nickname (the account otherwise)', async () => {
    const client = app().client();
    const userAccount = uniqueAccount('n');
    await client.ok('userRegister', {
      body: { userAccount, userName: '小明', userPassword: PASSWORD, checkPassword: PASSWORD },
      ip: '10.78.0.1',
    });
    expect(await client.ok('userLogin', { body: { userAccount, userPassword: PASSWORD } })).toMatchObject({
      userAccount,
      userName: '小明',
    });
    const bad = await app()
      .client()
      .call('userRegister', {
        body: { userAccount: uniqueAccount('n'), userName: ' ', userPassword: PASSWORD, checkPassword: PASSWORD },
        ip: '10.78.0.2',
      });
    expect([bad.status, bad.code]).toEqual([400, 40000]);
  });

  it('saves site information sent back whole as read, ignoring its read-only fields, and still refuses unknown ones', async () => {
    const admin = await app().admin();
    const record = await admin.ok('basicInformationGet', { query: { id: 1 } });
    expect(
      await admin.ok('basicInformationUpdate', {
        body: { ...record, noticeBar: '整条发回', userId: 999_999, updatedAt: 1, timeZone: 'UTC' },
      }),
    ).toBe(true);
    const after = await admin.ok('basicInformationGet', { query: { id: 1 } });
    expect(after.noticeBar).toBe('整条发回');
    expect(after.userId).toBe(await app().adminId());
    expect(after.updatedAt).toBeGreaterThan(1);
    // The zone is the server's TZ_SITE, not something a save can change.
    expect(after.timeZone).toBe(record.timeZone);

    const unknown = await admin.call('basicInformationUpdate', { body: { ...record, createdBy: 1 } });
    expect([unknown.status, unknown.code, unknown.message]).toEqual([400, 40000, '不支持的参数：createdBy']);
  });
});
