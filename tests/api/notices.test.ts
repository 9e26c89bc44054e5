import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as events from '../../src/server/modules/notices/events.js';
import { NOTICE_MAILS_PER_HOUR } from '../../src/server/modules/notices/mail.js';
import type { ApiClient } from '../helpers/client.js';
import { expectLedgerConsistent, grant, idem } from '../helpers/ledger.js';
import { grantQuota } from '../helpers/quotas.js';
import { addPlatform, siteTime, siteWallClock, startService } from '../helpers/services.js';
import { useTestApp } from '../helpers/test-app.js';

// The inbox: every event a user should hear of writes exactly one notice, for that user, in the event's transaction;
// the inbox operations see only the caller's own notices.
const app = useTestApp();
const EVERY_DAY = { days: [1, 2, 3, 4, 5, 6, 7], checkInTime: '09:00' };
const db = () => app().built.context.db;

beforeAll(() => {
  app().clock.current = siteTime('2026-11-30T00:00');
});

afterEach(async () => {
  await expectLedgerConsistent(app());
});

const lastNoticeId = async () =>
  Number((await db().selectFrom('notices').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst())?.id ?? 0);

/** Runs the event and answers the notices it wrote, across every user. */
async function noticesWrittenBy(event: () => Promise<unknown>) {
  const before = await lastNoticeId();
  await event();
  return db().selectFrom('notices').selectAll().where('id', '>', before).orderBy('id').execute();
}

async function setRebatePercent(rebatePercent: number) {
  await (await app().admin()).ok('basicInformationUpdate', { body: { id: 1, rebatePercent } });
}

async function expectOneNotice(event: () => Promise<unknown>, userId: number, kind: string) {
  const written = await noticesWrittenBy(event);
  expect(written.map((n) => [n.userId, n.kind])).toEqual([[userId, kind]]);
  return written[0]!;
}

const runNow = (client: ApiClient, id: number) => client.ok('serviceRunNow', { body: { id }, headers: idem() });

/** The clock moves on a second first: a manual run is due from its own millisecond, one per millisecond. */
async function tick() {
  app().clock.current += 1000;
  await app().built.scheduler.tick();
}

describe('each event writes one notice for the right user', () => {
  it('a run that succeeds, only when the settings ask for notices', async () => {
    const platformId = await addPlatform(app(), { price: 0, billingUnit: 'per_run' });
    const asks = await app().newUser();
    const quiet = await app().newUser();
    const told = await startService(asks.client, platformId, { ...EVERY_DAY, notify: 'inbox' });
    const silent = await startService(quiet.client, platformId, { ...EVERY_DAY, notify: 'none' });
    const n = await expectOneNotice(
      async () => {
        await runNow(asks.client, told.id);
        await runNow(quiet.client, silent.id);
        await tick();
      },
      asks.id,
      'run_succeeded',
    );
    expect(n.title).toBe('执行成功');
    // The run is named by its platform and its time on the site's clock (the words a user knows), never by its id.
    const [run] = (await asks.client.ok('runMy', { body: { serviceId: told.id } })).records;
    const { name } = await (await app().admin()).ok('platformGet', { query: { id: platformId } });
    const when = siteWallClock(run!.scheduledAt);
    expect(n.body).toBe(`${name} ${when.day.slice(5)} ${when.time} 的执行已成功完成。`);
    expect(n.body).not.toMatch(/#\d/);
  });

  it('a run that fails and is refunded', async () => {
    const platformId = await addPlatform(app(), { price: 2, billingUnit: 'per_run', retryLimit: 0 });
    const user = await app().newUser();
    await grant(app(), user.userAccount, 10);
    const service = await startService(user.client, platformId, { ...EVERY_DAY, notify: 'none' });
    await (await app().admin()).ok('serviceSandbox', { body: { id: service.id, mode: 'permanent' } });
    const n = await expectOneNotice(
      async () => {
        await runNow(user.client, service.id);
        await tick();
      },
      user.id,
      'run_failed',
    );
    expect(n.body).toContain('已退回 2 积分');
  });

  it('a run skipped for want of coins', async () => {
    const platformId = await addPlatform(app(), { price: 5, billingUnit: 'per_run' });
    const user = await app().newUser();
    await grant(app(), user.userAccount, 5);
    const service = await startService(user.client, platformId, { ...EVERY_DAY, notify: 'none' });
    await runNow(user.client, service.id);
    await tick();
    await expectOneNotice(
      async () => {
        await runNow(user.client, service.id);
        await tick();
      },
      user.id,
      'run_skipped',
    );
  });

  it('a service paused by an admin (not when its owner pauses it)', async () => {
    const platformId = await addPlatform(app(), { price: 0, billingUnit: 'per_run' });
    const user = await app().newUser();
    const service = await startService(user.client, platformId, { ...EVERY_DAY, notify: 'none' });
    const admin = await app().admin();
    await expectOneNotice(() => admin.ok('servicePause', { body: { id: service.id } }), user.id, 'service_paused');
    await user.client.ok('serviceStart', { body: { id: service.id }, headers: idem() });
    expect(await noticesWrittenBy(() => user.client.ok('servicePause', { body: { id: service.id } }))).toEqual([]);
  });

  it('an order confirmed; an order cancelled by an admin (not by its buyer)', async () => {
    const admin = await app().admin();
    const packageId: number = await admin.ok('mallAdd', {
      body: { coinName: `套餐${Date.now() % 10000}`, amount: 100, addCoin: 30, status: 1, sort: 0 },
    });
    const buyer = await app().newUser();
    const order = async () => buyer.client.ok<{ id: number }>('orderSubmit', { body: { packageId }, headers: idem() });
    const paid = await order();
    const n = await expectOneNotice(
      () => admin.ok('orderConfirm', { body: { id: paid.id }, headers: idem() }),
      buyer.id,
      'order_confirmed',
    );
    expect(n.body).toContain('30 积分');
    const byAdmin = await order();
    await expectOneNotice(() => admin.ok('orderCancel', { body: { id: byAdmin.id } }), buyer.id, 'order_cancelled');
    const byBuyer = await order();
    expect(await noticesWrittenBy(() => buyer.client.ok('orderCancel', { body: { id: byBuyer.id } }))).toEqual([]);
  });

  it('coins received by transfer: the payee only', async () => {
    const payer = await app().newUser();
    const payee = await app().newUser();
    await grant(app(), payer.userAccount, 20);
    const n = await expectOneNotice(
      () =>
        payer.client.ok('userTransferCoin', {
          body: { userAccount: payee.userAccount, coin: 7 },
          headers: idem(),
        }),
      payee.id,
      'coins_received',
    );
    expect(n.body).toContain(payer.userAccount);
  });

  it('coins an admin adds or takes away: 积分到账 / 积分扣除 with the reason and the balance, and the badge moves', async () => {
    const admin = await app().admin();
    const user = await app().newUser();
    const unread = async () => (await user.client.ok('noticeUnread')).count as number;
    const before = await unread();
    const added = await expectOneNotice(
      () =>
        admin.ok('userAddCoin', {
          body: { userAccount: user.userAccount, coin: 40, description: '活动奖励' },
          headers: idem(),
        }),
      user.id,
      'coins_credited',
    );
    expect([added.title, added.body]).toEqual([
      '积分到账',
      '管理员加积分（活动奖励）：到账 40 积分，当前余额 40 积分。',
    ]);
    const taken = await expectOneNotice(
      () =>
        admin.ok('userReduceCoin', {
          body: { userAccount: user.userAccount, coin: 15, description: '误充更正' },
          headers: idem(),
        }),
      user.id,
      'coins_debited',
    );
    expect(taken.title).toBe('积分扣除');
    expect(taken.body).toContain('扣除 15 积分，当前余额 25 积分');
    expect(await unread()).toBe(before + 2);
    await expectLedgerConsistent(app());
  });

  it("an agent's rebate: 积分到账 for the agent, with the buyer and the percentage", async () => {
    await setRebatePercent(10);
    try {
      const admin = await app().admin();
      const agent = await app().newUser({ role: 'agent' });
      const { invitationCode } = await agent.client.ok('userGetLogin');
      const buyer = await app().newUser({ invitationCode });
      const packageId: number = await admin.ok('mallAdd', {
        body: { coinName: `返利套餐${Date.now() % 10000}`, amount: 100, addCoin: 50, status: 1, sort: 0 },
      });
      const order = await buyer.client.ok<{ id: number }>('orderSubmit', { body: { packageId }, headers: idem() });
      const written = await noticesWrittenBy(() =>
        admin.ok('orderConfirm', { body: { id: order.id }, headers: idem() }),
      );
      expect(written.map((n) => [n.userId, n.kind]).sort()).toEqual(
        [
          [buyer.id, 'order_confirmed'],
          [agent.id, 'coins_credited'],
        ].sort(),
      );
      const rebate = written.find((n) => n.userId === agent.id)!;
      expect(rebate.body).toContain(buyer.userAccount);
      expect(rebate.body).toContain('10%');
      expect(rebate.body).toContain('到账 5 积分');
      await expectLedgerConsistent(app());
    } finally {
      await setRebatePercent(0);
    }
  });

  it('a redeem code used', async () => {
    const admin = await app().admin();
    const { codes } = await admin.ok<{ codes: string[] }>('redeemGenerate', {
      body: { count: 1, coin: 9, expiresAt: app().clock.now() + 86_400_000 },
      headers: idem(),
    });
    const user = await app().newUser();
    await expectOneNotice(
      () => user.client.ok('redeemUse', { body: { code: codes[0]! }, headers: idem() }),
      user.id,
      'redeem_used',
    );
  });

  it('quota granted by an admin: the grant, its platform and its reason', async () => {
    const user = await app().newUser();
    const n = await expectOneNotice(
      () => grantQuota(app(), { userAccount: user.userAccount, unit: 'runs', amount: 3, reason: '活动奖励' }),
      user.id,
      'quota_granted',
    );
    expect(n.body).toBe('全部平台：3 次免费额度。原因：活动奖励');
  });

  it('an admin broadcast to a role: one notice per user of that role, none to others', async () => {
    const agent = await app().newUser({ role: 'agent' });
    const user = await app().newUser();
    const admin = await app().admin();
    const written = await noticesWrittenBy(async () => {
      await admin.ok('noticeBroadcast', { body: { title: '代理通知', body: '本周返利已结算。', role: 'agent' } });
      await tick();
    });
    const agents = await db()
      .selectFrom('users')
      .select('id')
      .where('userRole', '=', 'agent')
      .where('deletedAt', 'is', null)
      .execute();
    expect(written.map((n) => n.userId).sort((a, b) => a - b)).toEqual(agents.map((a) => a.id).sort((a, b) => a - b));
    expect(written.every((n) => n.kind === 'broadcast' && n.title === '代理通知')).toBe(true);
    expect(written.some((n) => n.userId === agent.id)).toBe(true);
    expect(written.some((n) => n.userId === user.id)).toBe(false);
  });

  it('mails a notice when the settings ask for e-mail, at most the per-user limit an hour', async () => {
    const platformId = await addPlatform(app(), { price: 0, billingUnit: 'per_run' });
    const user = await app().newUser();
    const email = `${user.userAccount}@example.com`.toLowerCase();
    await db().updateTable('users').set({ email }).where('id', '=', user.id).execute();
    const service = await startService(user.client, platformId, { ...EVERY_DAY, notify: 'email' });
    const written = await noticesWrittenBy(async () => {
      for (let i = 0; i < NOTICE_MAILS_PER_HOUR + 2; i++) {
        await runNow(user.client, service.id);
        await tick();
      }
    });
    expect(written).toHaveLength(NOTICE_MAILS_PER_HOUR + 2);
    const mails = app().mailer.sent.filter((m) => m.to === email);
    expect(mails).toHaveLength(NOTICE_MAILS_PER_HOUR);
    expect(mails[0]!.subject).toBe('执行成功');
  });
});

describe('the inbox operations', () => {
  async function inboxWith(count: number) {
    const user = await app().newUser();
    await db()
      .transaction()
      .execute(async (trx) => {
        for (let i = 0; i < count; i++)
          await events.redeemUsed(trx, { userId: user.id, coin: i + 1 }, app().clock.now());
      });
    return user;
  }

  it('pages the newest first, counts unread, marks one read on open and all read', async () => {
    const user = await inboxWith(3);
    expect(await user.client.ok('noticeUnread')).toEqual({ count: 3 });
    const page = await user.client.ok('noticeMy', { body: { current: 1, pageSize: 2 } });
    expect(page.total).toBe(3);
    expect(page.records.map((n: { body: string }) => n.body)).toEqual([
      '兑换码已使用，获得 3 积分。',
      '兑换码已使用，获得 2 积分。',
    ]);
    const opened = await user.client.ok('noticeRead', { body: { id: page.records[0].id } });
    expect(opened.read).toBe(true);
    expect(await user.client.ok('noticeUnread')).toEqual({ count: 2 });
    // Opening it again changes nothing.
    await user.client.ok('noticeRead', { body: { id: page.records[0].id } });
    expect(await user.client.ok('noticeUnread')).toEqual({ count: 2 });
    expect(await user.client.ok('noticeReadAll')).toEqual({ count: 2 });
    expect(await user.client.ok('noticeUnread')).toEqual({ count: 0 });
  });

  it('deletes one', async () => {
    const user = await inboxWith(2);
    const { records } = await user.client.ok('noticeMy', { body: {} });
    expect(await user.client.ok('noticeDelete', { body: { id: records[0].id } })).toBe(true);
    const after = await user.client.ok('noticeMy', { body: {} });
    expect(after.records.map((n: { id: number }) => n.id)).toEqual([records[1].id]);
    expect(await user.client.ok('noticeUnread')).toEqual({ count: 1 });
  });

  it("a user can neither read, mark nor delete another user's notices", async () => {
    const owner = await inboxWith(1);
    const other = await inboxWith(1);
    const [mine] = (await owner.client.ok('noticeMy', { body: {} })).records as { id: number }[];
    for (const op of ['noticeRead', 'noticeDelete'] as const) {
      const r = await other.client.call(op, { body: { id: mine!.id } });
      expect([op, r.status, r.code]).toEqual([op, 404, 40400]);
    }
    expect((await other.client.ok('noticeMy', { body: {} })).records.map((n: { id: number }) => n.id)).not.toContain(
      mine!.id,
    );
    await other.client.ok('noticeReadAll');
    expect(await owner.client.ok('noticeUnread')).toEqual({ count: 1 });
    const row = await db().selectFrom('notices').selectAll().where('id', '=', mine!.id).executeTakeFirstOrThrow();
    expect(row.readAt).toBeNull();
  });
});
