import { auditTrail } from '../helpers/audit.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/client.js';
import { ADMIN, PASSWORD, uniqueAccount, useTestApp } from '../helpers/test-app.js';

const app = useTestApp();

const NEW_PASSWORD = 'N3w-Passw0rd!';
const MINUTE = 60 * 1000;

const db = () => app().built.context.db;

const auditOf = (userId: number) => auditTrail(app(), 'user', userId);

const adminId = () => app().adminId();

async function login(userAccount: string, userPassword: string) {
  // A test address of its own, so these deliberate failures never count towards a lock on other tests.
  return app().client().call('userLogin', { body: { userAccount, userPassword }, ip: '203.0.113.77' });
}

describe('userAdd', () => {
  it('adds a user with the default role and name, who can then log in', async () => {
    const admin = await app().admin();
    const userAccount = uniqueAccount('add');
    const id = await admin.ok<number>('userAdd', { body: { userAccount, userPassword: PASSWORD } });
    expect(await admin.ok('userGet', { query: { id } })).toMatchObject({
      id,
      userAccount,
      userName: userAccount,
      userRole: 'user',
      status: 'active',
      email: null,
      inviterAccount: null,
      lastLoginAt: null,
    });
    const r = await login(userAccount, PASSWORD);
    expect(r.code).toBe(0);
    expect(r.data).toMatchObject({ id, userAccount, userRole: 'user' });
  });

  it('adds a user with the chosen role and name', async () => {
    const admin = await app().admin();
    for (const userRole of ['user', 'agent', 'admin'] as const) {
      const userAccount = uniqueAccount('role');
      const id = await admin.ok<number>('userAdd', {
        body: { userAccount, userName: `小王${userRole}`, userPassword: PASSWORD, userRole },
      });
      expect(await admin.ok('userGet', { query: { id } })).toMatchObject({
        userAccount,
        userName: `小王${userRole}`,
        userRole,
      });
      expect((await login(userAccount, PASSWORD)).data).toMatchObject({ id, userRole });
    }
  });

  it('answers 409 / 40900 for an account that is already taken, by userAdd and by registration', async () => {
    const admin = await app().admin();
    const { userAccount } = await app().newUser();
    const again = await admin.call('userAdd', { body: { userAccount, userPassword: PASSWORD } });
    expect([again.status, again.code, again.message]).toEqual([409, 40900, '账号已被占用']);
    const seeded = await admin.call('userAdd', { body: { userAccount: ADMIN.userAccount, userPassword: PASSWORD } });
    expect([seeded.status, seeded.code]).toEqual([409, 40900]);
  });

  it('keeps the account name of a soft-deleted user taken', async () => {
    const admin = await app().admin();
    const { id, userAccount } = await app().newUser();
    await admin.ok('userDelete', { body: { id } });
    const add = await admin.call('userAdd', { body: { userAccount, userPassword: PASSWORD } });
    expect([add.status, add.code, add.message]).toEqual([409, 40900, '账号已被占用']);
    const register = await app()
      .client()
      .call('userRegister', {
        body: { userAccount, userPassword: PASSWORD, checkPassword: PASSWORD },
        ip: '198.18.0.1',
      });
    expect([register.status, register.code]).toEqual([409, 40900]);
  });

  it('refuses a malformed account or password with 400 / 40000', async () => {
    const admin = await app().admin();
    const short = await admin.call('userAdd', { body: { userAccount: 'ab', userPassword: PASSWORD } });
    expect([short.status, short.code]).toEqual([400, 40000]);
    const weak = await admin.call('userAdd', { body: { userAccount: uniqueAccount('add'), userPassword: 'short' } });
    expect([weak.status, weak.code]).toEqual([400, 40000]);
    const badRole = await admin.call('userAdd', {
      body: { userAccount: uniqueAccount('add'), userPassword: PASSWORD, userRole: 'boss' },
    });
    expect([badRole.status, badRole.code]).toEqual([400, 40000]);
  });

  it('is for admins only', async () => {
    const { client } = await app().newUser({ role: 'agent' });
    const body = { userAccount: uniqueAccount('add'), userPassword: PASSWORD };
    const agent = await client.call('userAdd', { body });
    expect([agent.status, agent.code]).toEqual([403, 40101]);
    const visitor = await app().client().call('userAdd', { body });
    expect([visitor.status, visitor.code]).toEqual([401, 40100]);
  });
});

describe('userDelete', () => {
  it('soft-deletes: the row stays, the user disappears from get and lists, and its sessions end with 40001', async () => {
    const admin = await app().admin();
    const { id, userAccount, client } = await app().newUser();
    app().clock.advance(1000);
    expect(await admin.ok('userDelete', { body: { id } })).toBe(true);

    const row = await db()
      .selectFrom('users')
      .select(['id', 'userAccount', 'deletedAt'])
      .where('id', '=', id)
      .executeTakeFirst();
    expect(row).toEqual({ id, userAccount, deletedAt: app().clock.now() });

    const get = await admin.call('userGet', { query: { id } });
    expect([get.status, get.code]).toEqual([404, 40400]);
    const page = await admin.ok('userListPage', { query: { searchText: userAccount } });
    expect(page).toMatchObject({ records: [], total: 0 });
    expect(await admin.ok('userList', { query: { searchText: userAccount } })).toEqual([]);
    expect(await admin.ok('userList', { query: { id } })).toEqual([]);

    const stale = await client.call('userGetLogin');
    expect([stale.status, stale.code, stale.message]).toEqual([401, 40001, '账号已被删除']);
    const again = await login(userAccount, PASSWORD);
    expect([again.status, again.code, again.message]).toEqual([400, 40000, '账号或密码错误']);

    expect((await auditOf(id)).map((a) => a.action)).toContain('user.delete');
  });

  it('cannot delete the acting admin or another admin', async () => {
    const admin = await app().admin();
    const self = await admin.call('userDelete', { body: { id: await adminId() } });
    expect([self.status, self.code, self.message]).toEqual([400, 40000, '不能删除自己']);
    const other = await app().newUser({ role: 'admin' });
    const r = await admin.call('userDelete', { body: { id: other.id } });
    expect([r.status, r.code, r.message]).toEqual([400, 40000, '不能删除管理员账号']);
    expect((await other.client.call('userGetLogin')).code).toBe(0);
  });

  it('answers 404 / 40400 for an unknown or already deleted user', async () => {
    const admin = await app().admin();
    const unknown = await admin.call('userDelete', { body: { id: 2_000_000_000 } });
    expect([unknown.status, unknown.code, unknown.message]).toEqual([404, 40400, '用户不存在']);
    const { id } = await app().newUser();
    await admin.ok('userDelete', { body: { id } });
    const twice = await admin.call('userDelete', { body: { id } });
    expect([twice.status, twice.code]).toEqual([404, 40400]);
  });

  it('is for admins only, and needs the anti-CSRF header', async () => {
    const { id } = await app().newUser();
    const { client } = await app().newUser();
    const r = await client.call('userDelete', { body: { id } });
    expect([r.status, r.code]).toEqual([403, 40101]);
    const csrf = await (await app().admin()).call('userDelete', { body: { id }, withoutCsrf: true });
    expect([csrf.status, csrf.code]).toEqual([403, 40300]);
    expect((await (await app().admin()).ok('userGet', { query: { id } })).id).toBe(id);
  });
});

describe('userBan / userUnBan', () => {
  it('ends every session of the user at once and writes before/after to the audit log', async () => {
    const admin = await app().admin();
    const { id, userAccount, client } = await app().newUser();
    const second = app().client();
    await second.ok('userLogin', { body: { userAccount, userPassword: PASSWORD } });

    expect(await admin.ok('userBan', { query: { id } })).toBe(true);
    for (const c of [client, second]) {
      const r = await c.call('userGetLogin');
      expect([r.status, r.code, r.message]).toEqual([401, 40001, '账号已被封禁，请联系管理员']);
    }
    expect((await admin.ok('userGet', { query: { id } })).status).toBe('banned');
    const refused = await login(userAccount, PASSWORD);
    expect([refused.status, refused.code, refused.message]).toEqual([403, 40300, '账号已被封禁，请联系管理员']);

    expect(await admin.ok('userUnBan', { query: { id } })).toBe(true);
    expect((await admin.ok('userGet', { query: { id } })).status).toBe('active');
    // Unbanning lets the user log in again, but never revives the sessions the ban ended.
    expect((await client.call('userGetLogin')).code).toBe(40001);
    expect((await login(userAccount, PASSWORD)).code).toBe(0);

    const actorId = await adminId();
    const rows = (await auditOf(id)).filter((a) => a.action === 'user.ban' || a.action === 'user.unban');
    expect(rows).toMatchObject([
      { actorId, action: 'user.ban', targetType: 'user', before: { status: 'active' }, after: { status: 'banned' } },
      { actorId, action: 'user.unban', targetType: 'user', before: { status: 'banned' }, after: { status: 'active' } },
    ]);
    expect(rows[0]!.createdAt).toBe(app().clock.now());
  });

  it('cannot ban the acting admin or another admin', async () => {
    const admin = await app().admin();
    const self = await admin.call('userBan', { query: { id: await adminId() } });
    expect([self.status, self.code, self.message]).toEqual([400, 40000, '不能封禁自己']);
    const other = await app().newUser({ role: 'admin' });
    const r = await admin.call('userBan', { query: { id: other.id } });
    expect([r.status, r.code, r.message]).toEqual([400, 40000, '不能封禁管理员账号']);
    expect((await other.client.call('userGetLogin')).code).toBe(0);
    expect((await admin.call('userUnBan', { query: { id: other.id } })).code).toBe(40000);
  });

  it('answers 404 for an unknown user and 403 / 40300 without the anti-CSRF header', async () => {
    const admin = await app().admin();
    for (const op of ['userBan', 'userUnBan'] as const) {
      const r = await admin.call(op, { query: { id: 2_000_000_000 } });
      expect([r.status, r.code]).toEqual([404, 40400]);
    }
    const { id, client } = await app().newUser();
    const csrf = await admin.call('userBan', { query: { id }, withoutCsrf: true });
    expect([csrf.status, csrf.code]).toEqual([403, 40300]);
    expect((await client.call('userGetLogin')).code).toBe(0);
  });

  it('is for admins only', async () => {
    const { id } = await app().newUser();
    const { client } = await app().newUser({ role: 'agent' });
    for (const op of ['userBan', 'userUnBan'] as const) {
      const r = await client.call(op, { query: { id } });
      expect([r.status, r.code]).toEqual([403, 40101]);
    }
  });
});

describe('userUpdate', () => {
  it('lets an admin rename anyone, with an audit row', async () => {
    const admin = await app().admin();
    const { id, userAccount, client } = await app().newUser();
    expect(await admin.ok('userUpdate', { body: { id, userName: '张三丰' } })).toBe(true);
    expect((await admin.ok('userGet', { query: { id } })).userName).toBe('张三丰');
    expect((await client.ok('userGetLogin')).userName).toBe('张三丰');
    expect((await auditOf(id)).find((a) => a.action === 'user.update')).toMatchObject({
      actorId: await adminId(),
      before: { userName: userAccount },
      after: { userName: '张三丰' },
    });
  });

  it('lets a user rename itself only; another id is 403 / 40101 whether or not it exists', async () => {
    const { id, client } = await app().newUser();
    const other = await app().newUser();
    expect(await client.ok('userUpdate', { body: { id, userName: 'New Name' } })).toBe(true);
    expect((await client.ok('userGetLogin')).userName).toBe('New Name');

    for (const target of [other.id, 2_000_000_000]) {
      const r = await client.call('userUpdate', { body: { id: target, userName: 'hacked' } });
      expect([r.status, r.code, r.message]).toEqual([403, 40101, '只能修改自己的资料']);
    }
    expect((await other.client.ok('userGetLogin')).userName).toBe(other.userAccount);
  });

  it('answers 404 for an unknown or deleted user and 400 for a bad name', async () => {
    const admin = await app().admin();
    const unknown = await admin.call('userUpdate', { body: { id: 2_000_000_000, userName: 'x' } });
    expect([unknown.status, unknown.code]).toEqual([404, 40400]);
    const { id } = await app().newUser();
    await admin.ok('userDelete', { body: { id } });
    const deleted = await admin.call('userUpdate', { body: { id, userName: 'x' } });
    expect([deleted.status, deleted.code]).toEqual([404, 40400]);
    const { id: live } = await app().newUser();
    for (const userName of ['', ' padded', 'a'.repeat(21), 'line\nbreak']) {
      const r = await admin.call('userUpdate', { body: { id: live, userName } });
      expect([r.status, r.code], JSON.stringify(userName)).toEqual([400, 40000]);
    }
  });

  it('needs a session', async () => {
    const r = await app()
      .client()
      .call('userUpdate', { body: { id: 2, userName: 'x' } });
    expect([r.status, r.code]).toEqual([401, 40100]);
  });
});

describe('userGet', () => {
  it('shows the admin view, with the inviter and the last login', async () => {
    const admin = await app().admin();
    const inviter = await app().newUser({ role: 'agent' });
    const code = (await inviter.client.ok('userGetInvitationCode')).invitationCode;
    const { id, userAccount } = await app().newUser({ invitationCode: code });
    const view = await admin.ok('userGet', { query: { id } });
    expect(view).toMatchObject({
      id,
      userAccount,
      userRole: 'user',
      status: 'active',
      inviterAccount: inviter.userAccount,
    });
    expect(view.lastLoginAt).toBe(app().clock.now());
    expect(view.invitationCode).toMatch(/^[A-Z2-9]{8}$/);
  });

  it('answers 404 / 40400 for an unknown or deleted user, 403 to others', async () => {
    const admin = await app().admin();
    const unknown = await admin.call('userGet', { query: { id: 2_000_000_000 } });
    expect([unknown.status, unknown.code, unknown.message]).toEqual([404, 40400, '用户不存在']);
    const { id, client } = await app().newUser();
    const self = await client.call('userGet', { query: { id } });
    expect([self.status, self.code]).toEqual([403, 40101]);
    await admin.ok('userDelete', { body: { id } });
    const deleted = await admin.call('userGet', { query: { id } });
    expect([deleted.status, deleted.code]).toEqual([404, 40400]);
  });
});

describe('userList / userListPage', () => {
  // Accounts that share a tag, so searches see only this block's users.
  const tag = `q${Math.random()
    .toString(36)
    .slice(2, 6)
    .replace(/[^a-z0-9]/g, 'x')}`;
  const people = [
    { key: 'a', userAccount: `${tag}a01`, userName: 'Alice Wong' },
    { key: 'b', userAccount: `${tag}b02`, userName: 'bob' },
    { key: 'c', userAccount: `${tag}c03`, userName: '小王' },
    { key: 'd', userAccount: `${tag}_d04`, userName: '100%满意' },
    { key: 'e', userAccount: `${tag}xd04`, userName: 'eve' },
  ];
  const ids: Record<string, number> = {};
  let admin: ApiClient;

  beforeAll(async () => {
    admin = await app().admin();
    for (const p of people) {
      app().clock.advance(1000);
      ids[p.key] = await admin.ok<number>('userAdd', {
        body: { userAccount: p.userAccount, userName: p.userName, userPassword: PASSWORD },
      });
    }
    // b logs in first, then a; the others never log in.
    app().clock.advance(1000);
    expect((await login(people[1]!.userAccount, PASSWORD)).code).toBe(0);
    app().clock.advance(1000);
    expect((await login(people[0]!.userAccount, PASSWORD)).code).toBe(0);
  });

  const accounts = (records: { userAccount: string }[]) => records.map((r) => r.userAccount);
  const page = (query: Record<string, unknown>) => admin.ok('userListPage', { query: { searchText: tag, ...query } });

  it('pages through the matches with total, current and pageSize, newest first by default', async () => {
    const first = await page({ current: 1, pageSize: 2 });
    const second = await page({ current: 2, pageSize: 2 });
    const third = await page({ current: 3, pageSize: 2 });
    const beyond = await page({ current: 4, pageSize: 2 });
    expect([first.total, first.current, first.pageSize, first.records.length]).toEqual([5, 1, 2, 2]);
    expect([second.total, second.current, second.pageSize, second.records.length]).toEqual([5, 2, 2, 2]);
    expect([third.total, third.current, third.records.length]).toEqual([5, 3, 1]);
    expect(beyond).toMatchObject({ records: [], total: 5, current: 4, pageSize: 2 });
    const all = [...first.records, ...second.records, ...third.records].map((r) => r.id);
    expect(all).toEqual(['e', 'd', 'c', 'b', 'a'].map((k) => ids[k]));

    const defaults = await page({});
    expect([defaults.current, defaults.pageSize, defaults.total]).toEqual([1, 10, 5]);
  });

  it('answers the same filters as a plain array from userList, at most pageSize long', async () => {
    const list = await admin.ok<{ id: number }[]>('userList', { query: { searchText: tag, pageSize: 2, current: 2 } });
    expect(list.map((r) => r.id)).toEqual([ids.c, ids.b]);
    expect((await admin.ok<unknown[]>('userList', { query: { searchText: tag } })).length).toBe(5);
    expect(await admin.ok('userList', { query: { id: ids.d } })).toMatchObject([
      { id: ids.d, userAccount: `${tag}_d04`, userName: '100%满意' },
    ]);
  });

  it('searches account or name, case-insensitively', async () => {
    expect(
      accounts((await admin.ok('userListPage', { query: { searchText: tag.toUpperCase() } })).records).sort(),
    ).toEqual(people.map((p) => p.userAccount).sort());
    expect(accounts((await admin.ok('userListPage', { query: { searchText: 'ALICE w' } })).records)).toEqual([
      `${tag}a01`,
    ]);
    expect(accounts((await admin.ok('userListPage', { query: { searchText: `${tag}C0` } })).records)).toEqual([
      `${tag}c03`,
    ]);
    expect(accounts(await admin.ok('userList', { query: { searchText: '小王' } }))).toContain(`${tag}c03`);
  });

  it('treats % and _ in the search text literally', async () => {
    const underscore = await admin.ok('userListPage', { query: { searchText: `${tag}_` } });
    expect(accounts(underscore.records)).toEqual([`${tag}_d04`]);
    const percent = await admin.ok('userListPage', { query: { searchText: '%' } });
    expect(percent.total).toBeGreaterThan(0);
    expect(
      percent.records.every((r: { userAccount: string; userName: string }) =>
        `${r.userAccount}${r.userName}`.includes('%'),
      ),
    ).toBe(true);
    expect(accounts(percent.records)).toContain(`${tag}_d04`);
    const both = await admin.ok('userListPage', { query: { searchText: '0%满' } });
    expect(accounts(both.records)).toEqual([`${tag}_d04`]);
    const none = await admin.ok('userListPage', { query: { searchText: `${tag}%a` } });
    expect(none.total).toBe(0);
  });

  it('sorts by a whitelisted field in the asked order', async () => {
    const byAccount = (await page({ sortField: 'userAccount', sortOrder: 'ascend' })).records;
    expect(accounts(byAccount)).toEqual(people.map((p) => p.userAccount).sort());
    const byAccountDesc = (await page({ sortField: 'userAccount', sortOrder: 'descend' })).records;
    expect(accounts(byAccountDesc)).toEqual(
      people
        .map((p) => p.userAccount)
        .sort()
        .reverse(),
    );
    const byName = (await page({ sortField: 'userName', sortOrder: 'ascend' })).records;
    expect(byName.map((r: { userName: string }) => r.userName)).toEqual(people.map((p) => p.userName).sort());
    const byCreated = (await page({ sortField: 'createdAt', sortOrder: 'ascend' })).records;
    expect(byCreated.map((r: { id: number }) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e'].map((k) => ids[k]));
    const byCreatedDesc = (await page({ sortField: 'createdAt', sortOrder: 'descend' })).records;
    expect(byCreatedDesc.map((r: { id: number }) => r.id)).toEqual(['e', 'd', 'c', 'b', 'a'].map((k) => ids[k]));
    const byId = (await page({ sortField: 'id' })).records;
    expect(byId.map((r: { id: number }) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e'].map((k) => ids[k]));
  });

  it('applies sortOrder to the default order when no sortField is given', async () => {
    const ascend = (await page({ sortOrder: 'ascend' })).records;
    expect(ascend.map((r: { id: number }) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e'].map((k) => ids[k]));
    const descend = (await page({ sortOrder: 'descend' })).records;
    expect(descend.map((r: { id: number }) => r.id)).toEqual(['e', 'd', 'c', 'b', 'a'].map((k) => ids[k]));
  });

  it('sorts by last login the same way on every database: never-logged-in users last', async () => {
    const descend = (await page({ sortField: 'lastLoginAt', sortOrder: 'descend' })).records.map(
      (r: { id: number }) => r.id,
    );
    expect(descend).toEqual(['a', 'b', 'e', 'd', 'c'].map((k) => ids[k]));
    const ascend = (await page({ sortField: 'lastLoginAt', sortOrder: 'ascend' })).records.map(
      (r: { id: number }) => r.id,
    );
    expect(ascend).toEqual(['b', 'a', 'c', 'd', 'e'].map((k) => ids[k]));
  });

  it('refuses a sort field outside the whitelist and malformed paging with 400 / 40000', async () => {
    for (const query of [
      { sortField: 'passwordHash' },
      { sortField: 'status' },
      { sortOrder: 'up' },
      { pageSize: 0 },
      { pageSize: 101 },
      { current: 0 },
      { searchText: 'x'.repeat(33) },
    ]) {
      for (const op of ['userList', 'userListPage'] as const) {
        const r = await admin.call(op, { query });
        expect([r.status, r.code], `${op} ${JSON.stringify(query)}`).toEqual([400, 40000]);
      }
    }
  });

  it('is for admins only', async () => {
    const { client } = await app().newUser({ role: 'agent' });
    for (const op of ['userList', 'userListPage'] as const) {
      const r = await client.call(op, { query: {} });
      expect([r.status, r.code]).toEqual([403, 40101]);
    }
  });
});

describe('userUpdateBoss', () => {
  it('toggles user ↔ agent, takes effect on the live session, and is audited', async () => {
    const admin = await app().admin();
    const { id, userAccount, client } = await app().newUser();
    const denied = await client.call('userSubordinate', { body: {} });
    expect([denied.status, denied.code]).toEqual([403, 40101]);

    expect(await admin.ok('userUpdateBoss', { query: { userAccount } })).toEqual({ userAccount, userRole: 'agent' });
    expect((await admin.ok('userGet', { query: { id } })).userRole).toBe('agent');
    expect((await client.ok('userGetLogin')).userRole).toBe('agent');
    expect((await client.call('userSubordinate', { body: {} })).code).toBe(0);

    expect(await admin.ok('userUpdateBoss', { query: { userAccount } })).toEqual({ userAccount, userRole: 'user' });
    expect((await client.ok('userGetLogin')).userRole).toBe('user');
    expect((await client.call('userSubordinate', { body: {} })).code).toBe(40101);

    const actorId = await adminId();
    expect((await auditOf(id)).filter((a) => a.action === 'user.role')).toMatchObject([
      { actorId, before: { userRole: 'user' }, after: { userRole: 'agent' } },
      { actorId, before: { userRole: 'agent' }, after: { userRole: 'user' } },
    ]);
  });

  it('refuses admins, unknown and deleted accounts', async () => {
    const admin = await app().admin();
    const other = await app().newUser({ role: 'admin' });
    for (const userAccount of [ADMIN.userAccount, other.userAccount]) {
      const r = await admin.call('userUpdateBoss', { query: { userAccount } });
      expect([r.status, r.code, r.message]).toEqual([400, 40000, '不能修改管理员的角色']);
    }
    expect((await admin.ok('userGet', { query: { id: other.id } })).userRole).toBe('admin');
    const unknown = await admin.call('userUpdateBoss', { query: { userAccount: uniqueAccount('none') } });
    expect([unknown.status, unknown.code]).toEqual([404, 40400]);
    const { id, userAccount } = await app().newUser();
    await admin.ok('userDelete', { body: { id } });
    const deleted = await admin.call('userUpdateBoss', { query: { userAccount } });
    expect([deleted.status, deleted.code]).toEqual([404, 40400]);
  });

  it('is for admins only', async () => {
    const { userAccount, client } = await app().newUser({ role: 'agent' });
    const r = await client.call('userUpdateBoss', { query: { userAccount } });
    expect([r.status, r.code]).toEqual([403, 40101]);
  });
});

describe('userBossUpdatePassword', () => {
  it('replaces the password, ends the target’s sessions with a password message, and audits without the password', async () => {
    const admin = await app().admin();
    const { id, userAccount, client } = await app().newUser();
    expect(await admin.ok('userBossUpdatePassword', { body: { id, newPassword: NEW_PASSWORD } })).toBe(true);

    const stale = await client.call('userGetLogin');
    expect([stale.status, stale.code, stale.message]).toEqual([401, 40001, '密码已修改，请重新登录']);
    expect((await login(userAccount, PASSWORD)).message).toBe('账号或密码错误');
    expect((await login(userAccount, NEW_PASSWORD)).code).toBe(0);
    // The admin's own session is untouched.
    expect((await admin.call('userGetLogin')).code).toBe(0);

    const rows = (await auditOf(id)).filter((a) => a.action === 'user.password.reset');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.actorId).toBe(await adminId());
    const stored = await db().selectFrom('auditLog').selectAll().where('targetId', '=', String(id)).execute();
    expect(JSON.stringify(stored)).not.toContain(NEW_PASSWORD);
    expect(JSON.stringify(stored)).not.toMatch(/scrypt\$/);
  });

  it('cannot reset another admin, answers 404 for unknown or deleted users and 400 for a weak password', async () => {
    const admin = await app().admin();
    const other = await app().newUser({ role: 'admin' });
    const r = await admin.call('userBossUpdatePassword', { body: { id: other.id, newPassword: NEW_PASSWORD } });
    expect([r.status, r.code, r.message]).toEqual([400, 40000, '不能重置其他管理员的密码']);
    expect((await other.client.call('userGetLogin')).code).toBe(0);
    const unknown = await admin.call('userBossUpdatePassword', {
      body: { id: 2_000_000_000, newPassword: NEW_PASSWORD },
    });
    expect([unknown.status, unknown.code]).toEqual([404, 40400]);
    const { id } = await app().newUser();
    const weak = await admin.call('userBossUpdatePassword', { body: { id, newPassword: 'short' } });
    expect([weak.status, weak.code]).toEqual([400, 40000]);
    await admin.ok('userDelete', { body: { id } });
    const deleted = await admin.call('userBossUpdatePassword', { body: { id, newPassword: NEW_PASSWORD } });
    expect([deleted.status, deleted.code]).toEqual([404, 40400]);
  });

  it('is for admins only', async () => {
    const { id } = await app().newUser();
    const { client } = await app().newUser({ role: 'agent' });
    const r = await client.call('userBossUpdatePassword', { body: { id, newPassword: NEW_PASSWORD } });
    expect([r.status, r.code]).toEqual([403, 40101]);
  });
});

describe('userUpdatePassword', () => {
  const change = (client: ApiClient, oldPassword: string, newPassword: string, checkPassword = newPassword) =>
    client.call('userUpdatePassword', { body: { oldPassword, newPassword, checkPassword } });

  it('refuses a mismatched confirmation, a new password equal to the old one, and a wrong old password', async () => {
    const { client, userAccount } = await app().newUser();
    const mismatch = await change(client, PASSWORD, NEW_PASSWORD, `${NEW_PASSWORD}x`);
    expect([mismatch.status, mismatch.code, mismatch.message]).toEqual([400, 40000, '两次输入的新密码不一致']);
    const same = await change(client, PASSWORD, PASSWORD);
    expect([same.status, same.code, same.message]).toEqual([400, 40000, '新密码不能与原密码相同']);
    const wrong = await change(client, 'Wrong-pass1', NEW_PASSWORD);
    expect([wrong.status, wrong.code, wrong.message]).toEqual([400, 40000, '原密码错误']);
    // Nothing changed.
    expect((await client.call('userGetLogin')).code).toBe(0);
    expect((await login(userAccount, PASSWORD)).code).toBe(0);
  });

  it('changes the password with the old one: every other session of the user ends, this one stays', async () => {
    const { client, userAccount } = await app().newUser();
    const other = app().client();
    await other.ok('userLogin', { body: { userAccount, userPassword: PASSWORD } });

    const r = await change(client, PASSWORD, NEW_PASSWORD);
    expect(r.code).toBe(0);
    expect(String(r.headers['set-cookie'] ?? '')).not.toContain('Max-Age=0');
    const stale = await other.call('userGetLogin');
    expect([stale.status, stale.code, stale.message]).toEqual([401, 40001, '密码已修改，请重新登录']);
    expect((await client.call('userGetLogin')).code).toBe(0);
    expect((await login(userAccount, PASSWORD)).code).toBe(40000);
    expect((await login(userAccount, NEW_PASSWORD)).code).toBe(0);
  });

  it('locks after 5 wrong old passwords: 429 / 42900 even with the right one, for 15 minutes', async () => {
    const { client } = await app().newUser();
    for (let i = 0; i < 5; i++) expect((await change(client, `Wrong-pass${i}`, NEW_PASSWORD)).code).toBe(40000);
    const locked = await change(client, PASSWORD, NEW_PASSWORD);
    expect([locked.status, locked.code, locked.message]).toEqual([429, 42900, '原密码错误次数过多，请 15 分钟后再试']);
    const retryAfter = Number(locked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // The user stays logged in meanwhile.
    expect((await client.call('userGetLogin')).code).toBe(0);

    app().clock.advance(15 * MINUTE + 1000);
    expect((await change(client, PASSWORD, NEW_PASSWORD)).code).toBe(0);
  });

  it('counts wrong old passwords sent at once: no more than 5 are ever checked', async () => {
    const { client } = await app().newUser();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => change(client, `Wrong-pass${i}`, NEW_PASSWORD)),
    );
    const checked = results.filter((r) => r.message === '原密码错误');
    expect(checked.length).toBeLessThanOrEqual(5);
    expect(results.every((r) => r.code === 40000 || r.code === 42900)).toBe(true);
    // Every checked guess counts: five of them lock the right password out too.
    const after = await change(client, PASSWORD, NEW_PASSWORD);
    expect(after.code).toBe(checked.length === 5 ? 42900 : 0);
  });

  it('needs a session', async () => {
    const r = await change(app().client(), PASSWORD, NEW_PASSWORD);
    expect([r.status, r.code]).toEqual([401, 40100]);
  });
});

describe('userGetInvitationCode and registering with it', () => {
  it('answers the caller’s own 8-character code, the same every time', async () => {
    const { client } = await app().newUser();
    const { invitationCode } = await client.ok('userGetInvitationCode');
    expect(invitationCode).toMatch(/^[A-Z2-9]{8}$/);
    expect((await client.ok('userGetInvitationCode')).invitationCode).toBe(invitationCode);
    expect((await client.ok('userGetLogin')).invitationCode).toBe(invitationCode);
    const other = await app().newUser();
    expect((await other.client.ok('userGetInvitationCode')).invitationCode).not.toBe(invitationCode);
    const visitor = await app().client().call('userGetInvitationCode');
    expect([visitor.status, visitor.code]).toEqual([401, 40100]);
  });

  it('makes a user who registers with a code the inviter’s subordinate; a lowercase code works too', async () => {
    const admin = await app().admin();
    const agent = await app().newUser({ role: 'agent' });
    const { invitationCode } = await agent.client.ok('userGetInvitationCode');
    const upper = await app().newUser({ invitationCode });
    const lower = await app().newUser({ invitationCode: invitationCode.toLowerCase() });
    for (const u of [upper, lower])
      expect((await admin.ok('userGet', { query: { id: u.id } })).inviterAccount).toBe(agent.userAccount);
    const subs = await agent.client.ok('userSubordinate', { body: {} });
    expect(subs.records.map((r: { id: number }) => r.id).sort()).toEqual([upper.id, lower.id].sort());
  });

  it('refuses an unknown code, or the code of a deleted or banned user, with 400 / 40000', async () => {
    const admin = await app().admin();
    const register = (invitationCode: string) =>
      app()
        .client()
        .call('userRegister', {
          body: { userAccount: uniqueAccount('inv'), userPassword: PASSWORD, checkPassword: PASSWORD, invitationCode },
          ip: `198.18.1.${Math.floor(Math.random() * 250) + 1}`,
        });
    // 0 and 1 are never part of a generated code.
    const unknown = await register('ABCD0101');
    expect([unknown.status, unknown.code, unknown.message]).toEqual([400, 40000, '邀请码不存在，请检查后重试']);

    const banned = await app().newUser();
    const bannedCode = (await banned.client.ok('userGetInvitationCode')).invitationCode;
    await admin.ok('userBan', { query: { id: banned.id } });
    expect((await register(bannedCode)).code).toBe(40000);

    const deleted = await app().newUser();
    const deletedCode = (await deleted.client.ok('userGetInvitationCode')).invitationCode;
    await admin.ok('userDelete', { body: { id: deleted.id } });
    expect((await register(deletedCode)).code).toBe(40000);

    const malformed = await register('short');
    expect([malformed.status, malformed.code]).toEqual([400, 40000]);
  });

  it('refuses a registration whose passwords differ', async () => {
    const r = await app()
      .client()
      .call('userRegister', {
        body: { userAccount: uniqueAccount('reg'), userPassword: PASSWORD, checkPassword: NEW_PASSWORD },
        ip: '198.18.2.1',
      });
    expect([r.status, r.code, r.message]).toEqual([400, 40000, '两次输入的密码不一致']);
  });
});

describe('userSubordinate', () => {
  it('shows an agent only its own subordinates, paged and searchable', async () => {
    const admin = await app().admin();
    const agent = await app().newUser({ role: 'agent' });
    const rival = await app().newUser({ role: 'agent' });
    const code = (await agent.client.ok('userGetInvitationCode')).invitationCode;
    const rivalCode = (await rival.client.ok('userGetInvitationCode')).invitationCode;
    const subs = [];
    for (let i = 0; i < 3; i++) {
      app().clock.advance(1000);
      subs.push(await app().newUser({ invitationCode: code }));
    }
    const rivalSub = await app().newUser({ invitationCode: rivalCode });
    await admin.ok('userUpdate', { body: { id: subs[1]!.id, userName: 'Special Name' } });

    const all = await agent.client.ok('userSubordinate', { body: {} });
    expect([all.total, all.current, all.pageSize]).toEqual([3, 1, 10]);
    expect(all.records.map((r: { id: number }) => r.id).sort()).toEqual(subs.map((s) => s.id).sort());
    expect(all.records[0]).toEqual({
      id: expect.any(Number),
      userAccount: expect.any(String),
      userName: expect.any(String),
      status: 'active',
      coin: 0,
      createdAt: expect.any(Number),
    });

    const first = await agent.client.ok('userSubordinate', {
      body: { current: 1, pageSize: 2, sortField: 'createdAt', sortOrder: 'ascend' },
    });
    const second = await agent.client.ok('userSubordinate', {
      body: { current: 2, pageSize: 2, sortField: 'createdAt', sortOrder: 'ascend' },
    });
    expect([first.total, first.records.length, second.total, second.records.length]).toEqual([3, 2, 3, 1]);
    expect([...first.records, ...second.records].map((r: { id: number }) => r.id)).toEqual(subs.map((s) => s.id));

    const byName = await agent.client.ok('userSubordinate', { body: { searchText: 'special' } });
    expect(byName.records.map((r: { id: number }) => r.id)).toEqual([subs[1]!.id]);
    const byAccount = await agent.client.ok('userSubordinate', {
      body: { searchText: subs[2]!.userAccount.toUpperCase() },
    });
    expect(byAccount.records.map((r: { id: number }) => r.id)).toEqual([subs[2]!.id]);
    // Another agent's subordinate is never found, not even by its exact account.
    const foreign = await agent.client.ok('userSubordinate', { body: { searchText: rivalSub.userAccount } });
    expect(foreign).toMatchObject({ records: [], total: 0 });

    // A banned subordinate stays listed as banned; a deleted one disappears.
    await admin.ok('userBan', { query: { id: subs[0]!.id } });
    await admin.ok('userDelete', { body: { id: subs[2]!.id } });
    const after = await agent.client.ok('userSubordinate', { body: { sortField: 'createdAt', sortOrder: 'ascend' } });
    expect(after.total).toBe(2);
    expect(after.records.map((r: { id: number; status: string }) => [r.id, r.status])).toEqual([
      [subs[0]!.id, 'banned'],
      [subs[1]!.id, 'active'],
    ]);
  });

  it('refuses a bad query with 400, plain users with 403 / 40101 and visitors with 401', async () => {
    const agent = await app().newUser({ role: 'agent' });
    const bad = await agent.client.call('userSubordinate', { body: { sortField: 'passwordHash' } });
    expect([bad.status, bad.code]).toEqual([400, 40000]);
    const extra = await agent.client.call('userSubordinate', { body: { inviterId: 1 } });
    expect([extra.status, extra.code]).toEqual([400, 40000]);
    const { client } = await app().newUser();
    const user = await client.call('userSubordinate', { body: {} });
    expect([user.status, user.code]).toEqual([403, 40101]);
    const visitor = await app().client().call('userSubordinate', { body: {} });
    expect([visitor.status, visitor.code]).toEqual([401, 40100]);
  });
});

describe('userGetUserInfo', () => {
  it('answers the account and a masked name: the first character, then stars', async () => {
    const admin = await app().admin();
    const { client } = await app().newUser();
    const cases: [string, RegExp][] = [
      ['小王八', /^小\*\*$/],
      ['alice', /^a\*\*\*\*$/],
      ['Z', /^Z\*$/],
      ['😀 smile', /^😀\*+$/],
    ];
    for (const [userName, masked] of cases) {
      const target = await app().newUser();
      await admin.ok('userUpdate', { body: { id: target.id, userName } });
      const profile = await client.ok('userGetUserInfo', { query: { userAccount: target.userAccount } });
      expect(profile.userAccount).toBe(target.userAccount);
      expect(profile.maskedName).toMatch(masked);
    }
  });

  it('answers 404 / 40400 for unknown, banned and deleted accounts, and 401 to visitors', async () => {
    const admin = await app().admin();
    const { client } = await app().newUser();
    const unknown = await client.call('userGetUserInfo', { query: { userAccount: uniqueAccount('none') } });
    expect([unknown.status, unknown.code, unknown.message]).toEqual([404, 40400, '该账号不存在或不可用']);

    const banned = await app().newUser();
    await admin.ok('userBan', { query: { id: banned.id } });
    const b = await client.call('userGetUserInfo', { query: { userAccount: banned.userAccount } });
    expect([b.status, b.code, b.message]).toEqual([404, 40400, unknown.message]);

    const deleted = await app().newUser();
    await admin.ok('userDelete', { body: { id: deleted.id } });
    const d = await client.call('userGetUserInfo', { query: { userAccount: deleted.userAccount } });
    expect([d.status, d.code, d.message]).toEqual([404, 40400, unknown.message]);

    const live = await app().newUser();
    const visitor = await app()
      .client()
      .call('userGetUserInfo', { query: { userAccount: live.userAccount } });
    expect([visitor.status, visitor.code]).toEqual([401, 40100]);
    const malformed = await client.call('userGetUserInfo', { query: { userAccount: 'a b' } });
    expect([malformed.status, malformed.code]).toEqual([400, 40000]);
  });
});
