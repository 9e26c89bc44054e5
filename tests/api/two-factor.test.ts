import { spawnSync } from 'node:child_process';
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { auditTrail } from '../helpers/audit.js';
import type { ApiClient } from '../helpers/client.js';
import { operations } from '../helpers/contract.js';
import type { OperationId } from '../../src/api/operations.js';
import { ADMIN, PASSWORD, useTestApp, type TestApp } from '../helpers/test-app.js';

// Two-factor sign-in (TOTP, RFC 6238): enrolment confirmed by a code, the login's second step (a challenge that is
// not a session), ±1 step of drift, no replay, five wrong codes lock, one-time recovery codes, an admin's reset, and
// ADMIN_2FA=required keeping an admin without it to enrolment. Codes come from otpauth on the test's clock.

const START = Date.UTC(2026, 10, 26, 2, 0, 10); // 10 s into a 30-second step
const STEP = 30_000;

const codeAt = (key: string, timestamp: number) =>
  new TOTP({ secret: Secret.fromBase32(key), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp });

/** Turns two-factor sign-in on for the signed-in client; answers its key and recovery codes. */
async function enrol(t: TestApp, c: ApiClient): Promise<{ key: string; codes: string[] }> {
  const { key } = await c.ok('twoFactorSetup');
  const { codes } = await c.ok('twoFactorEnable', { body: { code: codeAt(key, t.clock.now()) } });
  // The enrolment took this step's code: move on, so the next code a test makes is a fresh one.
  t.clock.advance(STEP);
  return { key, codes };
}

async function passwordStep(t: TestApp, userAccount: string, password = PASSWORD) {
  const c = t.client();
  const answer = await c.ok('userLogin', { body: { userAccount, userPassword: password } });
  return { c, answer };
}

describe('two-factor sign-in, ADMIN_2FA=optional', () => {
  const app = useTestApp({}, { startAt: START });

  it('enrols with a QR code and the key as text, counted only once a valid code confirms it; the key is sealed', async () => {
    const t = app();
    const { client: c, id } = await t.newUser();
    const setup = await c.ok('twoFactorSetup');
    expect(setup.key).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.otpauthUri).toContain(`secret=${setup.key}`);
    expect(setup.qrSvg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    expect(await c.ok('twoFactorGet')).toMatchObject({ enabled: false, recoveryCodesLeft: 0 });

    const wrong = await c.call('twoFactorEnable', { body: { code: codeAt(setup.key, t.clock.now() + 5 * STEP) } });
    expect([wrong.status, wrong.code]).toEqual([400, 40000]);
    const { codes } = await c.ok('twoFactorEnable', { body: { code: codeAt(setup.key, t.clock.now()) } });
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect(await c.ok('twoFactorGet')).toMatchObject({ enabled: true, recoveryCodesLeft: 10 });
    expect((await c.ok('userGetLogin')).twoFactor).toBe(true);
    // Never answered again: a second setup is refused, and the database holds no clear key or code.
    expect((await c.call('twoFactorSetup')).code).toBe(40900);
    const db = t.built.context.db;
    const row = await db.selectFrom('twoFactorKeys').selectAll().where('userId', '=', id).executeTakeFirstOrThrow();
    expect(row.sealedKey).not.toContain(setup.key);
    const stored = await db.selectFrom('recoveryCodes').select('codeHash').where('userId', '=', id).execute();
    expect(stored.map((r) => r.codeHash)).not.toContain(codes[0]);
    t.clock.advance(STEP);
  });

  it('names the site in the authenticator app: its current name as issuer, the default while it has none', async () => {
    const t = app();
    const issuer = async () => {
      const { client } = await t.newUser();
      return new URL((await client.ok('twoFactorSetup')).otpauthUri).searchParams.get('issuer');
    };
    await (await t.admin()).ok('basicInformationUpdate', { body: { id: 1, websiteName: '星河商城' } });
    expect(await issuer()).toBe('星河商城');
    // A name of blanks (an older database may hold one) is no name: the seed's default stands in.
    await t.built.context.db.updateTable('siteInformation').set({ websiteName: '  ' }).where('id', '=', 1).execute();
    expect(await issuer()).toBe('积分商城');
    await (await t.admin()).ok('basicInformationUpdate', { body: { id: 1, websiteName: '积分商城' } });
  });

  it('signs in in two steps: the password answers a challenge that is not a session, a code starts the session', async () => {
    const t = app();
    const { client, userAccount } = await t.newUser();
    const { key } = await enrol(t, client);

    const { c, answer } = await passwordStep(t, userAccount);
    expect(answer).toMatchObject({ methods: ['totp', 'recovery'] });
    expect(answer.expiresAt).toBe(t.clock.now() + 5 * 60_000);
    expect(c.cookie).toBeUndefined();
    expect((await c.call('userGetLogin')).code).toBe(40100);

    const user = await c.ok('userLoginSecondStep', {
      body: { challenge: answer.challenge, code: codeAt(key, t.clock.now()) },
    });
    expect(user).toMatchObject({ userAccount, twoFactor: true, enrolTwoFactor: false });
    expect((await c.ok('userGetLogin')).userAccount).toBe(userAccount);
    t.clock.advance(STEP);
  });

  it('takes ±1 step of clock drift, not 2; a code is taken once, even by another sign-in in its window', async () => {
    const t = app();
    const { client, userAccount } = await t.newUser();
    const { key } = await enrol(t, client);
    // Past the step after the enrolment's, so the step before now was never taken.
    t.clock.advance(STEP);
    const now = () => t.clock.now();
    const second = async (code: string) => {
      const { c, answer } = await passwordStep(t, userAccount);
      return c.call('userLoginSecondStep', { body: { challenge: answer.challenge, code } });
    };

    expect((await second(codeAt(key, now() - 2 * STEP))).code).toBe(40000);
    expect((await second(codeAt(key, now() + 2 * STEP))).code).toBe(40000);
    expect((await second(codeAt(key, now() - STEP))).code).toBe(0);
    const current = codeAt(key, now());
    expect((await second(current)).code).toBe(0);
    const replay = await second(current);
    expect([replay.status, replay.code]).toEqual([400, 40000]);
    expect(replay.message).toContain('已经用过');
    // A code of an earlier step than the last one taken is a replay too, even inside the drift allowed.
    expect((await second(codeAt(key, now() - STEP))).code).toBe(40000);
    expect((await second(codeAt(key, now() + STEP))).code).toBe(0);
    t.clock.advance(3 * STEP);
  });

  it('five wrong codes lock the account like passwords do; the lock ends after 15 minutes', async () => {
    const t = app();
    const { client, userAccount } = await t.newUser();
    const { key } = await enrol(t, client);
    const { c, answer } = await passwordStep(t, userAccount);
    const good = codeAt(key, t.clock.now());
    const bad = good === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++)
      expect((await c.call('userLoginSecondStep', { body: { challenge: answer.challenge, code: bad } })).code).toBe(
        40000,
      );
    const locked = await c.call('userLoginSecondStep', { body: { challenge: answer.challenge, code: good } });
    expect([locked.status, locked.code]).toEqual([429, 42900]);
    expect(locked.headers['retry-after']).toBeDefined();
    t.clock.advance(15 * 60_000 + STEP);
    const again = await passwordStep(t, userAccount);
    expect(
      (
        await again.c.call('userLoginSecondStep', {
          body: { challenge: again.answer.challenge, code: codeAt(key, t.clock.now()) },
        })
      ).code,
    ).toBe(0);
    t.clock.advance(STEP);
  });

  it('a recovery code signs in once (any case, dash or not); regenerating replaces them all', async () => {
    const t = app();
    const { client, userAccount } = await t.newUser();
    const { key, codes } = await enrol(t, client);
    const withCode = async (code: string) => {
      const { c, answer } = await passwordStep(t, userAccount);
      return c.call('userLoginSecondStep', { body: { challenge: answer.challenge, code } });
    };
    expect((await withCode(codes[0]!)).code).toBe(0);
    expect((await withCode(codes[0]!)).code).toBe(40000);
    expect((await withCode(codes[1]!.replace('-', '').toUpperCase())).code).toBe(0);
    expect((await client.ok('twoFactorGet')).recoveryCodesLeft).toBe(8);

    const fresh = await client.ok('twoFactorRecoveryCodes', { body: { code: codeAt(key, t.clock.now()) } });
    expect((await withCode(codes[2]!)).code).toBe(40000);
    expect((await withCode(fresh.codes[0])).code).toBe(0);
    expect((await client.ok('twoFactorGet')).recoveryCodesLeft).toBe(9);
    t.clock.advance(STEP);
  });

  it('refuses a challenge that expired, was altered, or outlived a password change', async () => {
    const t = app();
    const { client, userAccount } = await t.newUser();
    const { key } = await enrol(t, client);
    const second = (c: ApiClient, challenge: string) =>
      c.call('userLoginSecondStep', { body: { challenge, code: codeAt(key, t.clock.now()) } });

    const late = await passwordStep(t, userAccount);
    t.clock.advance(5 * 60_000);
    expect((await second(late.c, late.answer.challenge)).message).toContain('重新输入密码');

    const altered = await passwordStep(t, userAccount);
    const [id, expires, nonce, mac] = altered.answer.challenge.split('.');
    expect((await second(altered.c, `${id}.${Number(expires) + 60_000}.${nonce}.${mac}`)).code).toBe(40000);

    const before = await passwordStep(t, userAccount);
    await client.ok('userUpdatePassword', {
      body: { oldPassword: PASSWORD, newPassword: 'N3wPassw0rd!', checkPassword: 'N3wPassw0rd!' },
    });
    expect((await second(before.c, before.answer.challenge)).code).toBe(40000);
    t.clock.advance(STEP);
  });

  it('another admin resets a user’s 2FA: audited, every session of the user ended, the user told in the inbox, then the password alone signs in', async () => {
    const t = app();
    const { client, id, userAccount } = await t.newUser();
    await enrol(t, client);
    const user = (await t.newUser()).client;
    expect((await user.call('twoFactorReset', { body: { id } })).code).toBe(40101);
    const admin = await t.admin();
    expect((await admin.call('twoFactorReset', { body: { id: await t.adminId() } })).code).toBe(40000);

    expect(await admin.ok('twoFactorReset', { body: { id } })).toBe(true);
    expect((await admin.call('twoFactorReset', { body: { id } })).code).toBe(40900);
    expect((await admin.ok('userGet', { query: { id } })).twoFactor).toBe(false);
    const trail = await auditTrail(t, 'user', id);
    expect(trail.at(-1)).toMatchObject({ action: 'user.twoFactorReset', after: { twoFactorAt: null } });
    // The session that relied on the codes is over: its next call says why.
    const ended = await client.call('noticeMy', { body: { current: 1, pageSize: 10 } });
    expect([ended.status, ended.code]).toEqual([401, 40001]);
    expect(ended.message).toContain('重置');

    const { c, answer } = await passwordStep(t, userAccount);
    expect(answer.userAccount).toBe(userAccount);
    const inbox = await c.ok('noticeMy', { body: { current: 1, pageSize: 10 } });
    expect(inbox.records.some((n: { kind: string }) => n.kind === 'two_factor_reset')).toBe(true);
  });

  it('turning it off takes a valid code; afterwards the password alone signs in', async () => {
    const t = app();
    const { client, userAccount } = await t.newUser();
    const { key } = await enrol(t, client);
    expect((await client.call('twoFactorDisable', { body: { code: '000000' } })).code).toBe(40000);
    expect(await client.ok('twoFactorDisable', { body: { code: codeAt(key, t.clock.now()) } })).toBe(true);
    expect((await passwordStep(t, userAccount)).answer.userAccount).toBe(userAccount);
  });
});

describe('ADMIN_2FA=required', () => {
  const app = useTestApp({ admin2fa: 'required' }, { startAt: START });

  it('refuses an admin that must enrol every operation but enrolment, with 403 / 40102 as the contract declares', async () => {
    const t = app();
    const c = t.client();
    await c.ok('userLogin', { body: ADMIN });
    // Read from the contract: every admin operation not marked x-before-two-factor (and not open to visitors).
    const closed = operations.filter((op) => op.roles.includes('admin') && !op.roles.includes('visitor'));
    const open = closed.filter((op) => op.beforeTwoFactor).map((op) => op.operationId);
    // Enrolment is two-factor codes or a passkey (a passkey sign-in counts as two factors).
    expect(open.sort()).toEqual([
      'passkeyAdd',
      'passkeyList',
      'passkeyRegistrationOptions',
      'passkeyRemove',
      'twoFactorEnable',
      'twoFactorGet',
      'twoFactorSetup',
      'userGetLogin',
    ]);
    for (const op of closed.filter((o) => !o.beforeTwoFactor)) {
      const answer = await c.call(op.operationId as OperationId);
      expect([op.operationId, answer.status, answer.code]).toEqual([op.operationId, 403, 40102]);
    }
  });

  it('an admin without 2FA may only enrol until done; then signs in with a code and can do everything', async () => {
    const t = app();
    const c = t.client();
    const me = await c.ok('userLogin', { body: ADMIN });
    expect(me).toMatchObject({ userRole: 'admin', enrolTwoFactor: true });
    expect((await c.ok('userGetLogin')).enrolTwoFactor).toBe(true);
    const refused = await c.call('userListPage', { query: { current: 1, pageSize: 10 } });
    expect([refused.status, refused.code]).toEqual([403, 40102]);
    expect(refused.message).toBe('请先开启两步验证');
    expect((await c.ok('twoFactorGet')).required).toBe(true);

    const { key } = await enrol(t, c);
    expect((await c.ok('userGetLogin')).enrolTwoFactor).toBe(false);
    expect((await c.call('userListPage', { query: { current: 1, pageSize: 10 } })).code).toBe(0);
    // An admin cannot turn it off while it is required.
    expect((await c.call('twoFactorDisable', { body: { code: codeAt(key, t.clock.now()) } })).code).toBe(40000);

    const next = t.client();
    const answer = await next.ok('userLogin', { body: ADMIN });
    expect(answer.challenge).toBeDefined();
    await next.ok('userLoginSecondStep', { body: { challenge: answer.challenge, code: codeAt(key, t.clock.now()) } });
    expect((await next.call('userListPage', { query: { current: 1, pageSize: 10 } })).code).toBe(0);
    t.clock.advance(STEP);
  });

  it('an admin locked out of its 2FA is reset from the command line, then asked to enrol again', async () => {
    const t = app();
    // The admin enrolled in the first test of this block: its password alone answers a challenge.
    expect((await t.client().ok('userLogin', { body: ADMIN })).challenge).toBeDefined();
    const config = t.db.config;
    const run = spawnSync('npx', ['tsx', 'src/server/cli/reset-2fa.ts', ADMIN.userAccount], {
      encoding: 'utf8',
      env: {
        ...process.env,
        DATABASE_URL: config.kind === 'sqlite' ? `sqlite:${config.path}` : config.url,
        ...(config.kind === 'postgres' && config.schema ? { DATABASE_SCHEMA: config.schema } : {}),
        SESSION_SECRET: 'test-secret-test-secret-test-secret!',
      },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('reset');

    const c = t.client();
    const me = await c.ok('userLogin', { body: ADMIN });
    expect(me).toMatchObject({ userAccount: ADMIN.userAccount, twoFactor: false, enrolTwoFactor: true });
    const trail = await auditTrail(t, 'user', me.id);
    expect(trail.at(-1)).toMatchObject({ action: 'user.twoFactorReset', actorId: null });
    // Its inbox tells it (read from the database: until it enrols again the admin may read nothing else).
    const notices = await t.built.context.db.selectFrom('notices').select('kind').where('userId', '=', me.id).execute();
    expect(notices.map((n) => n.kind)).toContain('two_factor_reset');
  });

  it('users and agents are not asked to enrol', async () => {
    const t = app();
    const { client } = await t.newUser();
    expect((await client.ok('userGetLogin')).enrolTwoFactor).toBe(false);
    expect((await client.call('noticeMy', { body: { current: 1, pageSize: 10 } })).code).toBe(0);
  });
});
