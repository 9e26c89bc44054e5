import BetterSqlite3 from 'better-sqlite3';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/server/app.js';
import { ApiClient } from '../helpers/client.js';
import { POSTGRES_URL } from '../helpers/database.js';
import { LIVE_SITE_TTL_MS } from '../../src/server/modules/site/live-site-cache.js';
import { testConfig, useTestApp } from '../helpers/test-app.js';

// The reads every page makes (get/login, the site record) are answered over the network by a fast path in front of
// Fastify (src/server/http/hot-reads.ts). Fastify's injector never reaches it, so these tests call a listening server
// and hold its answers to what the same app answers through Fastify.

const app = useTestApp();
let base = '';

beforeAll(async () => {
  const { fastify } = app().built;
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}`;
});

/** Headers that differ between two answers for reasons of transport only. */
const TRANSPORT = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

async function overNetwork(url: string, cookie?: string, method = 'GET') {
  const response = await fetch(`${base}${url}`, { method, headers: cookie ? { cookie } : {} });
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!TRANSPORT.has(name)) headers[name] = value;
  });
  return { status: response.status, headers, body: await response.text() };
}

async function throughFastify(url: string, cookie?: string) {
  const response = await app().built.fastify.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers))
    if (!TRANSPORT.has(name) && value !== undefined) headers[name] = String(value);
  return { status: response.statusCode, headers, body: response.body };
}

describe('the hot reads answer over the network exactly as the app does', () => {
  it('answers get/login for a signed-in user with the same status, headers and body', async () => {
    const { client, userAccount } = await app().newUser();
    const fast = await overNetwork('/api/user/get/login', client.cookie);
    expect(fast.status).toBe(200);
    expect(JSON.parse(fast.body)).toMatchObject({ code: 0, data: { userAccount } });
    expect(fast).toEqual(await throughFastify('/api/user/get/login', client.cookie));
    expect(fast.headers['content-security-policy']).toContain("default-src 'self'");
    expect(fast.headers['cache-control']).toBe('no-store');
  });

  it('answers the live site record with the same status, headers and body, and a change at once', async () => {
    const url = '/api/basicInformation/get?id=1';
    const before = await overNetwork(url);
    expect(before.status).toBe(200);
    expect(before).toEqual(await throughFastify(url));
    const admin = await app().admin();
    const noticeBar = `公告 ${Date.now()}`;
    await admin.ok('basicInformationUpdate', { body: { id: 1, noticeBar } });
    const after = await overNetwork(url);
    expect(JSON.parse(after.body).data.noticeBar).toBe(noticeBar);
  });

  it('answers a visitor, a stale cookie and a HEAD the way the rest of the app does', async () => {
    const visitor = await overNetwork('/api/user/get/login');
    expect([visitor.status, JSON.parse(visitor.body).code]).toEqual([401, 40100]);
    expect(visitor).toEqual(await throughFastify('/api/user/get/login'));
    const forged = await overNetwork('/api/user/get/login', `sid=${'A'.repeat(43)}`);
    expect([forged.status, JSON.parse(forged.body).code]).toEqual([401, 40100]);
    const { client } = await app().newUser();
    const head = await overNetwork('/api/user/get/login', client.cookie, 'HEAD');
    expect([head.status, head.body]).toEqual([200, '']);
    expect(head.headers['x-frame-options']).toBe('DENY');
  });
});

describe('a session ended anywhere ends on the fast path at once (nothing kept in memory)', () => {
  let second: BuiltApp;
  beforeAll(async () => {
    // Another process on the same database: the session ends there.
    second = await buildApp(testConfig(app().db.config), { logger: false });
  });
  afterAll(async () => {
    await second.fastify.close();
  });

  it('answers 40001 to a cookie logged out in another process', async () => {
    const { client } = await app().newUser();
    expect((await overNetwork('/api/user/get/login', client.cookie)).status).toBe(200);
    const elsewhere = new ApiClient(second.fastify);
    elsewhere.cookie = client.cookie;
    await elsewhere.ok('userLogout');
    const after = await overNetwork('/api/user/get/login', client.cookie);
    expect([after.status, JSON.parse(after.body).code]).toEqual([401, 40001]);
    expect(after.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers 40001 to a user banned in another process', async () => {
    const { client, id } = await app().newUser();
    expect((await overNetwork('/api/user/get/login', client.cookie)).status).toBe(200);
    const admin = new ApiClient(second.fastify);
    await admin.ok('userLogin', {
      body: { userAccount: 'admin', userPassword: testConfig(app().db.config).adminPassword },
    });
    await admin.ok('userBan', { query: { id } });
    const after = await overNetwork('/api/user/get/login', client.cookie);
    expect([after.status, JSON.parse(after.body).code]).toEqual([401, 40001]);
  });
});

/** SQL run on a connection of its own, as an operator's script or the sqlite3 shell would: no app code involved. */
async function outsideTheApp(statement: string, parameters: unknown[]): Promise<void> {
  const config = app().db.config;
  if (config.kind === 'sqlite') {
    const other = new BetterSqlite3(config.path);
    try {
      other.pragma('busy_timeout = 2000');
      other.prepare(statement).run(...parameters);
    } finally {
      other.close();
    }
    return;
  }
  const other = new pg.Client({ connectionString: POSTGRES_URL });
  await other.connect();
  try {
    await other.query(`set search_path to ${config.schema}`);
    // pg numbers its placeholders; the statements below are written with ? for both.
    let n = 0;
    await other.query(
      statement.replace(/\?/g, () => `$${++n}`),
      parameters,
    );
  } finally {
    await other.end();
  }
}

describe('what a request reads is what the database holds now, whoever wrote it', () => {
  // On SQLite the session lookup is remembered between commits (db/prepared.ts): a change that no code of this app
  // made must still be answered by the very next request.
  it('answers the site record changed by SQL outside the app within a second', async () => {
    const url = '/api/basicInformation/get?id=1';
    for (let i = 0; i < 3; i++) await overNetwork(url);
    const noticeBar = `直接改库 ${Date.now()}`;
    await outsideTheApp('update site_information set notice_bar = ? where id = 1', [noticeBar]);
    // Servers keep the public site record up to LIVE_SITE_TTL_MS (site/live-site-cache.ts): a change nobody told this
    // server about is answered within that time.
    const started = performance.now();
    let seen = '';
    while (seen !== noticeBar && performance.now() - started < LIVE_SITE_TTL_MS + 500) {
      seen = JSON.parse((await overNetwork(url)).body).data.noticeBar;
      if (seen !== noticeBar) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(seen).toBe(noticeBar);
    expect(JSON.parse((await throughFastify(url)).body).data.noticeBar).toBe(noticeBar);
  });

  it('ends a session revoked and a user banned by SQL outside the app, on the next request', async () => {
    const first = await app().newUser();
    const second = await app().newUser();
    for (const { client } of [first, second])
      for (let i = 0; i < 3; i++) expect((await overNetwork('/api/user/get/login', client.cookie)).status).toBe(200);
    await outsideTheApp("update sessions set revoked_at = ?, revoke_reason = 'logout' where user_id = ?", [
      Date.now(),
      first.id,
    ]);
    expect(JSON.parse((await overNetwork('/api/user/get/login', first.client.cookie)).body).code).toBe(40001);
    await outsideTheApp("update users set status = 'banned' where id = ?", [second.id]);
    expect(JSON.parse((await overNetwork('/api/user/get/login', second.client.cookie)).body).code).toBe(40001);
  });

  it('answers a new user name written by SQL outside the app, on the next request', async () => {
    const { client, id } = await app().newUser();
    for (let i = 0; i < 3; i++) await overNetwork('/api/user/get/login', client.cookie);
    // Not how coins move (that is the ledger's one function); only a way to change a row the lookup reads.
    await outsideTheApp('update users set user_name = ? where id = ?', ['改名之后', id]);
    expect(JSON.parse((await overNetwork('/api/user/get/login', client.cookie)).body).data.userName).toBe('改名之后');
  });
});
