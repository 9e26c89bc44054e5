import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dbKind, type TestDatabase } from '../helpers/database.js';
import { EventStreamReader } from '../helpers/event-stream.js';
import { newKey } from '../helpers/ledger.js';
import { children, ensureServerBuilt, HttpClient, kill, startServer, type Server } from '../helpers/server-process.js';
import { ADMIN, PASSWORD, uniqueAccount } from '../helpers/test-app.js';

// Three production server processes on one PostgreSQL: an event caused on one reaches streams held by the others
// within a second, through the database's NOTIFY (no other server in between), and only the streams it is for; a
// session ended on one process closes its stream on another within 2 s.

describe(`live events across server processes (${dbKind()})`, () => {
  let db: TestDatabase | undefined;
  const readers: EventStreamReader[] = [];

  afterAll(async () => {
    await Promise.all(readers.map((r) => r.close()));
    await Promise.all([...children].map((child) => kill(child, 'SIGKILL')));
    await db?.drop();
  });

  it.skipIf(dbKind() !== 'postgres')(
    'an event caused on one process reaches a stream on each other process within 1 s, and only its owner',
    async () => {
      await ensureServerBuilt();
      db = await createTestDatabase();
      const secret = randomBytes(32).toString('base64url');
      const servers: Server[] = await Promise.all([0, 1, 2].map(() => startServer(db!, secret, { SCHEDULER: 'off' })));
      const admin = new HttpClient(() => servers[0]!);
      await admin.ok('userLogin', ADMIN);

      // One user signed in on each of process 1 and 2, and a bystander on process 2.
      const signIn = async (server: Server) => {
        const userAccount = uniqueAccount('l');
        await admin.ok('userAdd', { userAccount, userPassword: PASSWORD });
        const client = new HttpClient(() => server);
        await client.ok('userLogin', { userAccount, userPassword: PASSWORD });
        return { userAccount, client };
      };
      const one = await signIn(servers[1]!);
      const two = await signIn(servers[2]!);
      const bystander = await signIn(servers[2]!);
      const listen = async (server: Server, cookie: string | undefined) => {
        const { reader, opened } = await EventStreamReader.open(server.base, cookie);
        expect(opened.status).toBe(200);
        readers.push(reader);
        await reader.next((d) => d.kind === 'ready');
        return reader;
      };
      const onOne = await listen(servers[1]!, one.client.cookie);
      const onTwo = await listen(servers[2]!, two.client.cookie);
      const silent = await listen(servers[2]!, bystander.client.cookie);
      // The admin's own stream on process 1, for an admin-scoped event caused on process 2.
      const adminOnOne = await listen(servers[1]!, admin.cookie);

      // Caused on process 0 (the admin's), heard on 1 and 2, each within a second of the commit.
      for (const target of [
        { user: one, reader: onOne },
        { user: two, reader: onTwo },
      ]) {
        const started = Date.now();
        await admin.ok(
          'userAddCoin',
          { userAccount: target.user.userAccount, coin: 5, description: '跨进程' },
          newKey(),
        );
        await target.reader.next((d) => d.kind === 'balance', 1000);
        expect(Date.now() - started).toBeLessThan(1000);
      }

      // Caused on process 2 by a user, heard by the admin's stream on process 1.
      const packageId: number = await admin.ok('mallAdd', {
        coinName: '跨进程套餐',
        amount: 100,
        addCoin: 10,
        status: 1,
        sort: 0,
      });
      const order = await two.client.ok('orderSubmit', { packageId }, newKey());
      await adminOnOne.next((d) => d.kind === 'order' && d.orderId === order.id, 1000);

      // The site record: everyone, on every process.
      await admin.ok('basicInformationUpdate', { id: 1, noticeBar: '跨进程公告' });
      await Promise.all([onOne, onTwo, silent].map((r) => r.next((d) => d.kind === 'site', 1000)));

      expect(silent.changes.map((e) => e.data.kind)).toEqual(['site']);
      // The admin's grant: the balance and its 积分到账 notice; then the site record.
      expect(onOne.changes.map((e) => e.data.kind)).toEqual(['balance', 'notice', 'site']);
    },
  );

  it.skipIf(dbKind() !== 'postgres')(
    'a session ended on one process closes its stream on another within 2 s: ban, logout, 登录设备, password change',
    async () => {
      await ensureServerBuilt();
      db = await createTestDatabase();
      const secret = randomBytes(32).toString('base64url');
      const servers: Server[] = await Promise.all([0, 1].map(() => startServer(db!, secret, { SCHEDULER: 'off' })));
      const admin = new HttpClient(() => servers[0]!);
      await admin.ok('userLogin', ADMIN);
      /** A new user signed in on process 1, its stream open there; `phone` makes its calls on process 0. */
      const streamOnOne = async () => {
        const userAccount = uniqueAccount('e');
        const id: number = await admin.ok('userAdd', { userAccount, userPassword: PASSWORD });
        const onOne = new HttpClient(() => servers[1]!);
        await onOne.ok('userLogin', { userAccount, userPassword: PASSWORD });
        const { reader, opened } = await EventStreamReader.open(servers[1]!.base, onOne.cookie);
        expect(opened.status).toBe(200);
        readers.push(reader);
        await reader.next((d) => d.kind === 'ready');
        return { id, userAccount, onOne, reader };
      };
      const endsWithin2s = async (reader: EventStreamReader, why: string, started: number) => {
        const last = await reader.next((d) => d.kind === 'signedOut', 2000);
        expect(last.data.message).toContain(why);
        await reader.until('the stream to close', (r) => r.ended, 2000);
        expect(Date.now() - started).toBeLessThan(2000);
      };

      // A ban made on process 0 (the seed's GET, with the anti-CSRF header).
      const banned = await streamOnOne();
      let started = Date.now();
      const ban = await fetch(`${servers[0]!.base}/api/user/ban?id=${banned.id}`, {
        headers: { cookie: admin.cookie!, 'x-requested-with': 'XMLHttpRequest' },
      });
      expect((await ban.json()).code).toBe(0);
      await endsWithin2s(banned.reader, '账号已被封禁', started);

      // A logout of the same session through process 0.
      const leaving = await streamOnOne();
      const sameSessionOnZero = new HttpClient(() => servers[0]!);
      sameSessionOnZero.cookie = leaving.onOne.cookie;
      started = Date.now();
      await sameSessionOnZero.ok('userLogout', {});
      await endsWithin2s(leaving.reader, '登录已失效', started);

      // 登录设备 on a phone signed in on process 0 ends the session streaming on process 1; the phone's stays.
      const ended = await streamOnOne();
      const phone = new HttpClient(() => servers[0]!);
      await phone.ok('userLogin', { userAccount: ended.userAccount, userPassword: PASSWORD });
      const { reader: phoneReader } = await EventStreamReader.open(servers[0]!.base, phone.cookie);
      readers.push(phoneReader);
      await phoneReader.next((d) => d.kind === 'ready');
      started = Date.now();
      expect((await phone.ok('sessionEndOthers', {})).ended).toBe(1);
      await endsWithin2s(ended.reader, '退出登录', started);

      // A password changed on the phone (process 0) ends the other session's stream on process 1; the phone's stays.
      const changed = await streamOnOne();
      const changer = new HttpClient(() => servers[0]!);
      await changer.ok('userLogin', { userAccount: changed.userAccount, userPassword: PASSWORD });
      started = Date.now();
      await changer.ok('userUpdatePassword', {
        oldPassword: PASSWORD,
        newPassword: 'N3wPassw0rd!',
        checkPassword: 'N3wPassw0rd!',
      });
      await endsWithin2s(changed.reader, '密码已修改', started);
      expect(phoneReader.ended).toBe(false);
    },
  );

  it.skipIf(dbKind() !== 'sqlite')(
    'on SQLite the one server process carries events in-process: a change through it reaches its streams within 1 s',
    async () => {
      await ensureServerBuilt();
      db = await createTestDatabase();
      const server = await startServer(db, randomBytes(32).toString('base64url'), { SCHEDULER: 'off' });
      const admin = new HttpClient(() => server);
      await admin.ok('userLogin', ADMIN);
      const userAccount = uniqueAccount('l');
      await admin.ok('userAdd', { userAccount, userPassword: PASSWORD });
      const client = new HttpClient(() => server);
      await client.ok('userLogin', { userAccount, userPassword: PASSWORD });
      const { reader, opened } = await EventStreamReader.open(server.base, client.cookie);
      expect(opened.status).toBe(200);
      readers.push(reader);
      await reader.next((d) => d.kind === 'ready');
      const started = Date.now();
      await admin.ok('userAddCoin', { userAccount, coin: 5, description: '进程内' }, newKey());
      await reader.next((d) => d.kind === 'balance', 1000);
      expect(Date.now() - started).toBeLessThan(1000);
    },
  );
});
