import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import type { Db } from '../../db/database.js';
import type { BatchKind } from '../../db/types.js';
import { shownDescription } from '../coins/ledger-types.js';
import * as events from '../notices/events.js';
import { insertNotices } from '../notices/repo.js';
import { grantQuota } from '../quotas/service.js';
import { pauseIfActive } from '../services/repo.js';
import { enqueueManualRun } from '../services/service.js';
import { findLiveByAccount } from '../users/repo.js';
import * as batches from './repo.js';
import * as targets from './targets-repo.js';

// What each kind of batch works through and what it does to each item; the scheduler's batch runner
// (jobs/batches/runner.ts) moves a batch through these a chunk per transaction.

/** One unit of a batch: its sequence number (the cursor moves over these), a label to name it in a failure. */
export interface BatchItem {
  seq: number;
  label: string;
  payload?: string;
}

export interface HeldBatch {
  id: number;
  kind: BatchKind;
  params: unknown;
  cursor: number;
  createdBy: number;
}

export interface BatchWork {
  /** The next items after the batch's cursor, in sequence order. */
  next(trx: Db, batch: HeldBatch, limit: number): Promise<BatchItem[]>;
  /**
   * Applies the items' effects inside the chunk's transaction (the same one that moves the cursor past them) and
   * answers the reasons of the items that failed, by sequence number.
   */
  apply(app: AppContext, trx: Db, batch: HeldBatch, items: BatchItem[], now: number): Promise<Map<number, string>>;
  /** A list batch's items are rows written at its start, marked done one by one; other kinds record failures only. */
  listed?: boolean;
}

export interface BroadcastParams {
  title: string;
  body: string;
  role: targets.Role;
  /** The recipients are the users that existed when it started: ids up to this. */
  maxUserId: number;
}

export interface PlatformParams {
  platformId: number;
  platformName: string;
  maxServiceId: number;
}

/** A quota batch's grant, the same for every line; each line names the account and the amount. */
export type QuotaParams = Omit<Schemas['QuotaGrantRequest'], 'userAccount' | 'amount'>;

export interface StatementsParams {
  maxEntryId: number;
}

/** Applies items one at a time: a failure (a thrown AppError-like message) names that item only. */
async function eachItem(
  items: BatchItem[],
  apply: (item: BatchItem) => Promise<string | undefined>,
): Promise<Map<number, string>> {
  const failures = new Map<number, string>();
  for (const item of items) {
    const reason = await apply(item);
    if (reason !== undefined) failures.set(item.seq, reason);
  }
  return failures;
}

const broadcast: BatchWork = {
  next: async (trx, batch, limit) => {
    const p = batch.params as BroadcastParams;
    const users = await targets.recipientsAfter(trx, p.role, p.maxUserId, batch.cursor, limit);
    return users.map((u) => ({ seq: u.id, label: u.userAccount }));
  },
  async apply(_app, trx, batch, items, now) {
    const p = batch.params as BroadcastParams;
    // One statement per chunk: a broadcast to 100,000 users is 100,000 rows, written a chunk per transaction.
    await insertNotices(
      trx,
      items.map((i) => i.seq),
      { kind: 'broadcast', title: p.title, body: p.body },
      now,
    );
    return new Map();
  },
};

const platformServices = (effect: 'run' | 'pause'): BatchWork => ({
  next: async (trx, batch, limit) => {
    const p = batch.params as PlatformParams;
    const services = await targets.activeServicesAfter(trx, p.platformId, p.maxServiceId, batch.cursor, limit);
    return services.map((s) => ({ seq: s.id, label: s.userAccount, payload: JSON.stringify(s) }));
  },
  apply: (app, trx, batch, items, now) =>
    eachItem(items, async (item) => {
      const s = JSON.parse(item.payload!) as { id: number; userId: number; platformId: number };
      const p = batch.params as PlatformParams;
      if (effect === 'run') {
        await enqueueManualRun(trx, s, now, app.config.jobs.timeZone);
        return undefined;
      }
      if (!(await pauseIfActive(trx, s.id, now))) return '服务已不在运行中';
      await events.servicePaused(trx, { userId: s.userId, platformName: p.platformName }, now);
      return undefined;
    }),
});

/** The export's columns; each item is one coin entry, written as one CSV row of the batch's output. */
export const STATEMENT_HEADER = ['账号', '时间', '类型', '变动', '变动后余额', '说明', '编号'];

const statements: BatchWork = {
  next: async (trx, batch, limit) =>
    (await targets.entriesAfter(trx, (batch.params as StatementsParams).maxEntryId, batch.cursor, limit)).map((e) => ({
      seq: e.id,
      label: e.userAccount,
      payload: JSON.stringify([
        e.userAccount,
        new Date(Number(e.createdAt)).toISOString(),
        e.kind,
        Number(e.amount),
        Number(e.balanceAfter),
        shownDescription(e),
        e.reference,
      ]),
    })),
  async apply(_app, trx, batch, items) {
    await batches.writeOutput(
      trx,
      batch.id,
      items.map((i) => ({ seq: i.seq, line: i.payload! })),
    );
    return new Map();
  },
};

export const BATCH_WORK: Record<BatchKind, BatchWork> = {
  broadcast,
  platform_run: platformServices('run'),
  platform_pause: platformServices('pause'),
  statements,
  quota_grant: {
    listed: true,
    next: (trx, batch, limit) => batches.pendingItems(trx, batch.id, batch.cursor, limit),
    apply: (_app, trx, batch, items, now) =>
      eachItem(items, async (item) => {
        const p = batch.params as QuotaParams;
        // Checked again here: an account may have been deleted, an expiry passed, since the batch started.
        if (!(await findLiveByAccount(trx, item.label))) return '账号不存在或已注销';
        if (p.expiresAt !== undefined && p.expiresAt <= now) return '过期时间已过';
        // One key per item: even a grant repeated by a resumed chunk would answer the first grant and grant nothing.
        await grantQuota(trx, {
          actorId: batch.createdBy,
          idempotencyKey: `task-${batch.id}-${item.seq}`,
          request: { ...p, userAccount: item.label, amount: Number(item.payload) },
          now,
        });
        return undefined;
      }),
  },
};
