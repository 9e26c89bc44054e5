import { describe, expect, it } from 'vitest';
import { auditTrail } from '../helpers/audit.js';
import { PASSWORD, uniqueAccount, useTestApp } from '../helpers/test-app.js';

// 用户协议 and 隐私政策 (issue 35): texts an admin edits, read by anyone, agreed to at registration; a change raises the
// one version both share, and a signed-in user whose agreed version is lower is asked again (the page compares
// LoginUser.policyAccepted with the site's policyVersion).

const app = useTestApp();
const EDITED = '第一条：本站只在站内使用积分。第二条：我们只保存提供服务所需的信息。';

const register = (policyVersion?: number) => {
  const userAccount = uniqueAccount();
  return {
    userAccount,
    answer: app()
      .client()
      .call('userRegister', {
        body: {
          userAccount,
          userPassword: PASSWORD,
          checkPassword: PASSWORD,
          ...(policyVersion !== undefined ? { policyVersion } : {}),
        },
        ip: `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`,
      }),
  };
};

async function signedIn(userAccount: string) {
  const c = app().client();
  await c.ok('userLogin', { body: { userAccount, userPassword: PASSWORD } });
  return c;
}

async function siteVersion(): Promise<number> {
  const site = await app()
    .client()
    .ok('basicInformationGet', { query: { id: 1 } });
  return Number(site.policyVersion);
}

describe('reading the texts', () => {
  it('gives a visitor the defaults, which say what the site stores, at version 1', async () => {
    const visitor = app().client();
    const terms = await visitor.ok('policyGet', { query: { kind: 'terms' } });
    const privacy = await visitor.ok('policyGet', { query: { kind: 'privacy' } });
    expect(terms).toMatchObject({ kind: 'terms', title: '用户协议', version: 1, updatedAt: null });
    expect(privacy).toMatchObject({ kind: 'privacy', title: '隐私政策', version: 1, updatedAt: null });
    for (const stored of ['账号', '昵称', '邮箱', '登录会话与设备', '积分明细', '服务设置与执行记录'])
      expect(privacy.body).toContain(stored);
    expect(terms.body).toContain('注销');
    expect(await siteVersion()).toBe(1);
  });
});

describe('agreeing', () => {
  it('records the version agreed at registration, refuses a stale one, and leaves 0 when none was sent', async () => {
    const agreed = register(1);
    expect((await agreed.answer).code).toBe(0);
    expect((await (await signedIn(agreed.userAccount)).ok('userGetLogin')).policyAccepted).toBe(1);

    const stale = register(7);
    const refused = await stale.answer;
    expect([refused.status, refused.code]).toEqual([409, 40900]);
    expect(refused.message).toContain('请重新阅读');

    const silent = register();
    expect((await silent.answer).code).toBe(0);
    expect((await (await signedIn(silent.userAccount)).ok('userGetLogin')).policyAccepted).toBe(0);
  });
});

describe('changing a text', () => {
  it('is for admins; a change raises the version and asks users again, the same text raises nothing', async () => {
    const user = await app().newUser();
    const notAdmin = await user.client.call('policyUpdate', { body: { kind: 'terms', body: EDITED } });
    expect(notAdmin.status).toBe(403);
    const short = await (await app().admin()).call('policyUpdate', { body: { kind: 'terms', body: '太短' } });
    expect([short.status, short.message]).toEqual([400, '正文至少 20 个字符']);

    const before = await siteVersion();
    await user.client.ok('policyAccept', { body: { version: before } });
    expect((await user.client.ok('userGetLogin')).policyAccepted).toBe(before);

    const saved = await (await app().admin()).ok('policyUpdate', { body: { kind: 'terms', body: EDITED } });
    expect(saved).toMatchObject({ kind: 'terms', body: EDITED, version: before + 1 });
    expect(saved.updatedAt).toBe(app().clock.now());
    expect(await siteVersion()).toBe(before + 1);
    expect(
      (
        await app()
          .client()
          .ok('policyGet', { query: { kind: 'terms' } })
      ).body,
    ).toBe(EDITED);
    // The user's agreed version is now behind: the page asks again.
    expect((await user.client.ok('userGetLogin')).policyAccepted).toBe(before);

    await (await app().admin()).ok('policyUpdate', { body: { kind: 'terms', body: EDITED } });
    expect(await siteVersion()).toBe(before + 1);

    // Agreeing to what was read before the change is refused; agreeing to the new version is recorded.
    const late = await user.client.call('policyAccept', { body: { version: before } });
    expect([late.status, late.code]).toEqual([409, 40900]);
    await user.client.ok('policyAccept', { body: { version: before + 1 } });
    expect((await user.client.ok('userGetLogin')).policyAccepted).toBe(before + 1);

    const audit = await auditTrail(app(), 'policy', before + 1);
    expect(audit.map((a) => [a.action, a.after])).toEqual([['policy.update', { kind: 'terms', version: before + 1 }]]);
  });
});
