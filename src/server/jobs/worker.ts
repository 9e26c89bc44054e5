import type { AppContext } from '../modules/context.js';
import * as events from '../modules/notices/events.js';
import { mailNotice, wantsNotice } from '../modules/notices/mail.js';
import { insertNotice, type NewNotice } from '../modules/notices/repo.js';
import { pauseIfActive } from '../modules/services/repo.js';
import { refundQuota } from '../modules/quotas/ledger.js';
import {
  charge,
  handOverDayPayment,
  holdsPayment,
  refund,
  releaseDay,
  runPeriod,
} from '../modules/services/billing.js';
import { notifyChannel, type NotifyChannel } from '../modules/services/notification.js';
import { OFF_SHELF_SKIP } from '../modules/services/shelving.js';
import { runChanged } from '../modules/runs/live.js';
import { LATE_AFTER_SECONDS } from '../metrics/metrics.js';
import { siteClock } from '../lib/site-time.js';
import type { Connector, ConnectorResult } from './connectors/connector.js';
import {
  claimContext,
  lockNextClaimable,
  paymentOf,
  recordOnService,
  updateRun,
  type ClaimContext,
} from '../modules/runs/queue-repo.js';

export interface Claimed {
  run: ClaimContext;
  /** This attempt's number (1 on the first try). */
  attempt: number;
}

const BACKOFF_BASE_MS = 10_000;
const BACKOFF_CAP_MS = 10 * 60_000;

/** Exponential backoff with full jitter over its upper half, so retries of many runs do not arrive together. */
export function backoffMs(attempt: number): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
  return Math.round(ceiling * (0.5 + Math.random() * 0.5));
}

/**
 * Claims, executes and records runs for one process (`owner`). Claiming and charging are one transaction, recording
 * the outcome (and any refund) another; between them the run is held by a lease that another process may take over
 * once it expires.
 */
/**
 * Why a run that has not started yet must not start now, or null. Such a run is skipped and nothing is charged; a run
 * that started already (a retry) finishes on what it was charged.
 */
function reasonToSkip(run: ClaimContext): string | null {
  if (run.state !== 'due' || Number(run.attempts) !== 0) return null;
  // A planned run of a service paused or stopped since it was planned.
  if (run.trigger === 'schedule' && run.serviceState !== 'active') return '服务已暂停或停止，本次跳过';
  // Any run of a platform taken off shelf, or of a banned user (a manual one too), since it was enqueued.
  if (Number(run.platformOnShelf) !== 1) return OFF_SHELF_SKIP;
  if (run.userStatus === 'banned') return '账号已被封禁，本次跳过';
  return null;
}

export class Worker {
  constructor(
    private readonly app: AppContext,
    private readonly connector: Connector,
    private readonly owner: string,
    private readonly postgres: boolean,
  ) {}

  /** A run as its user knows it: its platform's scheduled time in the site's time zone (never its database id). */
  private when(run: { scheduledAt: number | string }): string {
    return siteClock(Number(run.scheduledAt), this.app.config.jobs.timeZone);
  }

  /** Takes the next due run, charges it if its period is unpaid, and leases it; null when nothing is due. */
  async claim(): Promise<Claimed | null | 'settled'> {
    const { app, owner } = this;
    const now = app.now();
    let notice: NewNotice | undefined;
    let channel: NotifyChannel = 'none';
    const claimed = await app.db.transaction().execute(async (trx) => {
      const id = await lockNextClaimable(trx, now, this.postgres);
      if (id === undefined) return null;
      const run = (await claimContext(trx, id))!;
      const expect = { state: run.state };
      const settle = async (state: 'skipped', result: string) => {
        await updateRun(trx, id, expect, { state, result, finishedAt: now, leaseOwner: null, leaseExpiresAt: null });
        await recordOnService(trx, run.serviceId, state, now);
        await runChanged(trx, run, 'finished');
        return 'settled' as const;
      };
      const skip = reasonToSkip(run);
      if (skip !== null) return settle('skipped', skip);
      let paid = {};
      const period = runPeriod(run.billingUnit, run.id, run.day);
      if (period && run.chargeReference === null) {
        const outcome = await charge(trx, {
          userId: run.userId,
          serviceId: run.serviceId,
          platformId: run.platformId,
          billingUnit: run.billingUnit,
          period,
          runId: run.id,
          price: Number(run.price),
          description: `${run.platformName}：${this.when(run)} 的执行`,
          now,
          metrics: app.metrics,
        });
        if (outcome.kind === 'insufficient') {
          // Only a running service: one its owner stopped meanwhile stays stopped.
          await pauseIfActive(trx, run.serviceId, now);
          notice = {
            userId: run.userId,
            kind: 'run_skipped',
            title: '积分不足，服务已暂停',
            body: `${run.platformName}的执行因积分不足被跳过，服务已暂停。充值后可重新启动。`,
          };
          await insertNotice(trx, notice, now);
          channel = notifyChannel(run.settings);
          return settle('skipped', '积分不足，已跳过并暂停服务');
        }
        if (outcome.kind === 'charged') paid = { charged: outcome.amount, chargeReference: outcome.reference };
        if (outcome.kind === 'quota') paid = { quotaGrantId: outcome.grantId, chargeReference: outcome.reference };
      }
      const attempt = Number(run.attempts) + 1;
      const leased = await updateRun(trx, id, expect, {
        state: 'running',
        leaseOwner: owner,
        leaseExpiresAt: now + app.config.jobs.leaseMs,
        attempts: attempt,
        startedAt: now,
        ...paid,
      });
      if (!leased) return null;
      await runChanged(trx, run, 'claimed');
      return { run: { ...run, ...paid }, attempt };
    });
    if (notice) await mailNotice(app, channel, notice);
    countClaim(app, claimed, now);
    return claimed;
  }

  /** Runs the connector under a time limit and records what happened. */
  async execute(claimed: Claimed): Promise<void> {
    const { run, attempt } = claimed;
    const signal = AbortSignal.timeout(this.app.config.jobs.runTimeoutMs);
    let result: ConnectorResult;
    try {
      result = await this.connector.run(
        {
          id: run.serviceId,
          userId: run.userId,
          platformId: run.platformId,
          kind: run.kind,
          settings: run.settings,
          sandboxMode: run.sandboxMode,
        },
        { id: run.id, attempt, scheduledAt: Number(run.scheduledAt), slot: run.slot },
        signal,
      );
    } catch (error) {
      if (!signal.aborted) this.app.log.warn({ err: error, runId: run.id }, 'connector failed');
      result = { outcome: 'transient', message: signal.aborted ? '平台响应超时' : '执行出错，稍后重试' };
    }
    await this.record(claimed, result);
  }

  /** Succeeded; or due again after a backoff; or, finally failed, refunded and told to the user. One transaction. */
  private async record({ run, attempt }: Claimed, result: ConnectorResult): Promise<void> {
    const { app } = this;
    const now = app.now();
    const held = { state: 'running' as const, leaseOwner: this.owner };
    // How this attempt ended, once its transaction has committed (for /metrics); none when the lease was lost.
    let outcome: 'succeeded' | 'retried' | 'failed' | 'refunded' | undefined;
    const notice = await app.db.transaction().execute(async (trx): Promise<NewNotice | undefined> => {
      outcome = undefined;
      if (result.outcome === 'ok') {
        if (
          await updateRun(trx, run.id, held, {
            state: 'succeeded',
            result: result.message,
            finishedAt: now,
            leaseOwner: null,
            leaseExpiresAt: null,
          })
        ) {
          await recordOnService(trx, run.serviceId, 'succeeded', now);
          await runChanged(trx, run, 'finished');
          outcome = 'succeeded';
          // A success is told only when the service's settings ask for notices.
          if (wantsNotice(notifyChannel(run.settings)))
            return events.runSucceeded(
              trx,
              { userId: run.userId, platformName: run.platformName, when: this.when(run) },
              now,
            );
        }
        return;
      }
      if (result.outcome === 'transient' && attempt <= Number(run.retryLimit)) {
        await updateRun(trx, run.id, held, {
          state: 'due',
          result: result.message,
          nextAttemptAt: now + backoffMs(attempt),
          leaseOwner: null,
          leaseExpiresAt: null,
        });
        // Due again after the backoff: planned, as far as the screens are concerned.
        await runChanged(trx, run, 'planned');
        outcome = 'retried';
        return;
      }
      // The state change first: if the lease was lost, another process owns the outcome and nothing is refunded here.
      if (
        !(await updateRun(trx, run.id, held, {
          state: 'failed',
          result: result.message,
          finishedAt: now,
          leaseOwner: null,
          leaseExpiresAt: null,
        }))
      )
        return;
      // What the run holds now, read under the row's lock: another run of the same day may have handed it the day's
      // payment since this run was claimed.
      const payment = await paymentOf(trx, run.id);
      const charged = payment.charged;
      const quotaGrantId = payment.quotaGrantId;
      const handedTo =
        holdsPayment(payment) && run.billingUnit === 'per_day'
          ? await handOverDayPayment(trx, { runId: run.id, serviceId: run.serviceId, day: run.day, payment })
          : null;
      const refunded = holdsPayment(payment) && handedTo === null;
      if (refunded) {
        // A run paid by free quota gets its unit back; one paid in coins, its coins.
        const reference =
          quotaGrantId !== null
            ? await refundQuota(trx, {
                grantId: quotaGrantId,
                userId: run.userId,
                runId: run.id,
                chargeReference: payment.chargeReference!,
                now,
              })
            : await refund(trx, {
                userId: run.userId,
                amount: charged,
                chargeReference: payment.chargeReference!,
                description: `${run.platformName}：${this.when(run)} 的执行失败退款`,
                now,
                metrics: app.metrics,
              });
        await updateRun(trx, run.id, { state: 'failed' }, { state: 'refunded', refundReference: reference });
        if (run.billingUnit === 'per_day') await releaseDay(trx, run.serviceId, run.day);
      }
      await recordOnService(trx, run.serviceId, refunded ? 'refunded' : 'failed', now);
      await runChanged(trx, run, 'finished');
      outcome = refunded ? 'refunded' : 'failed';
      const failed: NewNotice = {
        userId: run.userId,
        kind: 'run_failed',
        title: '执行失败',
        body: `${run.platformName} ${this.when(run)} 的执行失败：${result.message}${
          refunded
            ? `，${quotaGrantId !== null ? '已退回 1 次免费额度' : `已退回 ${charged} 积分`}`
            : handedTo?.succeeded
              ? '，当天已有执行成功，按天计费的费用不退'
              : handedTo
                ? '，当天的费用留给同一天的下一次执行'
                : ''
        }。`,
      };
      await insertNotice(trx, failed, now);
      return failed;
    });
    if (outcome) app.metrics.runsFinished.inc({ outcome });
    if (notice) await mailNotice(app, notifyChannel(run.settings), notice);
  }
}

/** A claim's figures for /metrics, counted once its transaction has committed. */
function countClaim(app: AppContext, claimed: Claimed | null | 'settled', now: number): void {
  if (claimed === 'settled') app.metrics.runsFinished.inc({ outcome: 'skipped' });
  if (claimed === null || claimed === 'settled') return;
  const lagSeconds = Math.max(0, now - Number(claimed.run.scheduledAt)) / 1000;
  app.metrics.runsClaimed.inc();
  app.metrics.runLagSeconds.observe(lagSeconds);
  if (lagSeconds > LATE_AFTER_SECONDS) app.metrics.runsLate.inc();
}
