import type { Db } from '../../db/database.js';
import { insertNotice, type NewNotice } from './repo.js';

// The words of each event's notice, in one place. Each function writes the notice inside the caller's transaction
// (the event's own), so an event that rolls back leaves no notice and a committed one always has exactly one.

async function tell(trx: Db, notice: NewNotice, now: number): Promise<NewNotice> {
  await insertNotice(trx, notice, now);
  return notice;
}

/** `when`: the run's scheduled time in the site's time zone, the way its user knows it. */
export const runSucceeded = (trx: Db, e: { userId: number; platformName: string; when: string }, now: number) =>
  tell(
    trx,
    {
      userId: e.userId,
      kind: 'run_succeeded',
      title: '执行成功',
      body: `${e.platformName} ${e.when} 的执行已成功完成。`,
    },
    now,
  );

/** A service paused by someone other than its owner (an admin, a batch task). */
export const servicePaused = (trx: Db, e: { userId: number; platformName: string }, now: number) =>
  tell(
    trx,
    {
      userId: e.userId,
      kind: 'service_paused',
      title: '服务已暂停',
      body: `你在${e.platformName}的服务已被管理员暂停，如有疑问请联系管理员。`,
    },
    now,
  );

/** A ban paused the user's services (read after an unban: they stay paused until the user resumes them). */
export const servicesPausedByBan = (trx: Db, e: { userId: number; count: number }, now: number) =>
  tell(
    trx,
    {
      userId: e.userId,
      kind: 'service_paused',
      title: '服务已暂停',
      body: `你的账号已被封禁，${e.count} 项运行中的服务已暂停，暂停期间不会执行，也不会扣费。解封后请在服务页面自行恢复。`,
    },
    now,
  );

export const orderConfirmed = (trx: Db, e: { userId: number; coinName: string; addCoin: number }, now: number) =>
  tell(
    trx,
    {
      userId: e.userId,
      kind: 'order_confirmed',
      title: '订单已确认',
      body: `套餐「${e.coinName}」已确认付款，${e.addCoin} 积分已到账。`,
    },
    now,
  );

export const orderCancelled = (trx: Db, e: { userId: number; coinName: string; orderNo: string }, now: number) =>
  tell(
    trx,
    {
      userId: e.userId,
      kind: 'order_cancelled',
      title: '订单已取消',
      body: `订单 ${e.orderNo}（套餐「${e.coinName}」）已被管理员取消。`,
    },
    now,
  );

/**
 * Coins a user did not move himself: an admin's add or reduce (with its reason), an agent's rebate. The badge moves
 * and the inbox says how many, why and the balance after.
 */
export const coinsAdjusted = (
  trx: Db,
  e: { userId: number; amount: number; reason: string; balance: number },
  now: number,
) =>
  tell(
    trx,
    e.amount >= 0
      ? {
          userId: e.userId,
          kind: 'coins_credited',
          title: '积分到账',
          body: `${e.reason}：到账 ${e.amount} 积分，当前余额 ${e.balance} 积分。`,
        }
      : {
          userId: e.userId,
          kind: 'coins_debited',
          title: '积分扣除',
          body: `${e.reason}：扣除 ${-e.amount} 积分，当前余额 ${e.balance} 积分。如有疑问请联系管理员。`,
        },
    now,
  );

/** A transfer's notice: written by the ledger in the transfer's transaction (on PostgreSQL inside transfer_coins). */
export const coinsReceivedNotice = (e: { userId: number; fromAccount: string; coin: number }) =>
  ({
    userId: e.userId,
    kind: 'coins_received',
    title: '收到转账',
    body: `${e.fromAccount} 向你转入 ${e.coin} 积分。`,
  }) satisfies NewNotice;

export const redeemUsed = (trx: Db, e: { userId: number; coin: number }, now: number) =>
  tell(
    trx,
    { userId: e.userId, kind: 'redeem_used', title: '兑换成功', body: `兑换码已使用，获得 ${e.coin} 积分。` },
    now,
  );

/** Free quota granted (called by the quota module inside the grant's transaction): how much, where, and why. */
export const quotaGranted = (
  trx: Db,
  e: { userId: number; amount: number; unit: 'runs' | 'days'; platformName: string; reason: string },
  now: number,
) =>
  tell(
    trx,
    {
      userId: e.userId,
      kind: 'quota_granted',
      title: '获得免费额度',
      body: `${e.platformName}：${e.amount} ${e.unit === 'runs' ? '次' : '天'}免费额度。原因：${e.reason}`,
    },
    now,
  );

/** A sign-in from a browser the user had not signed in from before (登录设备 lists it and can end it). */
export const newSignIn = (trx: Db, e: { userId: number; device: string; address: string }, now: number) =>
  tell(
    trx,
    {
      userId: e.userId,
      kind: 'new_sign_in',
      title: '新设备登录',
      body: `你的账号刚在${e.device}上登录（地址 ${e.address}）。如果不是你本人，请在“我的 → 登录设备”中退出该设备并修改密码。`,
    },
    now,
  );

/** An admin turned the user's two-factor sign-in off (a lost phone): the user learns it, and may turn it on again. */
export const twoFactorReset = (trx: Db, e: { userId: number }, now: number) =>
  tell(
    trx,
    {
      userId: e.userId,
      kind: 'two_factor_reset',
      title: '两步验证已被重置',
      body: '管理员重置了你的两步验证并移除了你的通行密钥，现在登录只需要密码。请尽快在“我的 → 两步验证”中重新开启；如果不是你本人申请的，请立即修改密码并联系管理员。',
    },
    now,
  );

/**
 * The user changed how the account signs in (`change`: 修改了密码, 关闭了两步验证, 移除了通行密钥“…”) or an admin removed
 * one of its passkeys: the other devices were signed out, and a change the user did not make shows here.
 */
/** The user signed in during the cooling-off of its 注销 request: the account stays. */
export const closingCancelled = (trx: Db, e: { userId: number }, now: number) =>
  tell(
    trx,
    {
      userId: e.userId,
      kind: 'sign_in_changed',
      title: '注销申请已撤销',
      body: '你在冷静期内重新登录，注销申请已撤销，账号和余额保持不变。申请注销时暂停的服务仍处于暂停状态，需要时请在服务页面恢复。',
    },
    now,
  );

export const signInFactorChanged = (trx: Db, e: { userId: number; change: string; byAdmin?: boolean }, now: number) =>
  tell(
    trx,
    {
      userId: e.userId,
      kind: 'sign_in_changed',
      title: '登录方式已变更',
      body: e.byAdmin
        ? `管理员${e.change}，用它登录的设备已退出登录。如有疑问请联系管理员。`
        : `你的账号${e.change}，其他设备已退出登录。如果不是你本人操作，请立即修改密码并联系管理员。`,
    },
    now,
  );
