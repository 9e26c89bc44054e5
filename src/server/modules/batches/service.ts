import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { mapPage } from '../../db/paging.js';
import { badParams, conflict, LineProblemsError, notFound } from '../../lib/errors.js';
import { statementTaskCsvRow } from '../../lib/csv-format.js';
import type { CsvFile, CsvRow } from '../../lib/csv-file.js';
import { giveWay } from '../../lib/give-way.js';
import {
  STATEMENT_HEADER,
  type BroadcastParams,
  type PlatformParams,
  type QuotaParams,
  type StatementsParams,
} from './kinds.js';
import * as targets from './targets-repo.js';
import { writeAudit } from '../../support/audit/repo.js';
import * as platforms from '../platforms/repo.js';
import { quotaUnitFor } from '../quotas/ledger.js';
import { byLine, parseGrantCsv, problemsMessage, type LineProblem } from './grant-csv.js';
import type { SessionUser } from '../sessions/service.js';
import * as repo from './repo.js';
import { taskMoved } from './live.js';

const NOT_FOUND = '任务不存在';
const ROLE_WORDS = { all: '全部用户', user: '普通用户', agent: '代理', admin: '管理员' } as const;

export const toView = (b: repo.BatchRow): Schemas['Task'] => ({
  id: b.id,
  kind: b.kind,
  title: b.title,
  state: b.state,
  total: Number(b.total),
  done: Number(b.done),
  failed: Number(b.failed),
  result: b.result,
  createdBy: b.createdBy,
  createdByAccount: b.createdByAccount,
  createdAt: Number(b.createdAt),
  startedAt: b.startedAt === null ? null : Number(b.startedAt),
  finishedAt: b.finishedAt === null ? null : Number(b.finishedAt),
  hasOutput: b.kind === 'statements' && b.state === 'done',
});

/**
 * Starts a batch: one row (and, for a list batch, its items) and an audit entry, in one transaction; the work itself
 * is the scheduler's, so the request answers at once however many items there are.
 */
export async function start(
  app: AppContext,
  actor: SessionUser,
  batch: Omit<repo.NewBatch, 'createdBy'>,
  items?: readonly { seq: number; label: string; payload: string }[],
): Promise<Schemas['Task']> {
  const now = app.now();
  return app.db.transaction().execute(async (trx) => {
    const id = await repo.insertBatch(trx, { ...batch, createdBy: actor.id }, now);
    if (items) await repo.insertItems(trx, id, items);
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: `task.${batch.kind}`,
        targetType: 'task',
        targetId: id,
        after: { title: batch.title, total: batch.total },
      },
      now,
    );
    await taskMoved(trx, id);
    return toView((await repo.findBatch(trx, id))!);
  });
}

export async function startBroadcast(app: AppContext, actor: SessionUser, input: Schemas['BroadcastRequest']) {
  const params: BroadcastParams = { ...input, maxUserId: await targets.maxId(app.db, 'users') };
  return start(app, actor, {
    kind: 'broadcast',
    title: `群发「${input.title}」给${ROLE_WORDS[input.role]}`.slice(0, 80),
    params,
    total: await targets.countRecipients(app.db, params.role, params.maxUserId),
  });
}

/** How many users a broadcast to `role` would reach now (its confirmation names the number before anything is sent). */
export async function broadcastRecipients(
  app: AppContext,
  role: Schemas['BroadcastRole'],
): Promise<Schemas['BroadcastRecipients']> {
  const params = { role, maxUserId: await targets.maxId(app.db, 'users') };
  return { role, count: await targets.countRecipients(app.db, role, params.maxUserId) };
}

export async function startPlatform(app: AppContext, actor: SessionUser, input: Schemas['TaskPlatformRequest']) {
  const platform = await platforms.findPlatform(app.db, input.platformId);
  if (!platform) throw notFound('平台不存在');
  const params: PlatformParams = {
    platformId: platform.id,
    platformName: platform.name,
    maxServiceId: await targets.maxId(app.db, 'services'),
  };
  return start(app, actor, {
    kind: input.action === 'run' ? 'platform_run' : 'platform_pause',
    title: `${platform.name}：全部${input.action === 'run' ? '立即执行' : '暂停'}`,
    params,
    total: await targets.countActiveServices(app.db, params.platformId, params.maxServiceId),
  });
}

/** Grants quota to the accounts of a CSV; the whole file is checked first and any bad line starts nothing. */
export async function startQuotaGrant(app: AppContext, actor: SessionUser, input: Schemas['TaskQuotaRequest']) {
  const { csv, ...grant } = input;
  const params: QuotaParams = grant;
  let platformName = '全部平台';
  if (grant.platformId !== undefined) {
    const platform = await platforms.findPlatform(app.db, grant.platformId);
    if (!platform) throw notFound('平台不存在');
    if (quotaUnitFor(platform.billingUnit) !== grant.unit) throw badParams('额度单位与平台的计费方式不一致');
    platformName = platform.name;
  }
  if (grant.expiresAt !== undefined && grant.expiresAt <= app.now()) throw badParams('过期时间须晚于现在');
  const { rows, errors } = parseGrantCsv(csv);
  const live = await targets.liveAccounts(
    app.db,
    rows.map((r) => r.userAccount),
  );
  const unknown: LineProblem[] = rows
    .filter((r) => !live.has(r.userAccount.toLowerCase()))
    .map((r) => ({ line: r.line, account: r.userAccount, reason: '账号不存在或已注销' }));
  const problems = byLine([...errors, ...unknown]);
  if (problems.length > 0) throw new LineProblemsError(problemsMessage(problems.length), problems);
  return start(
    app,
    actor,
    {
      kind: 'quota_grant',
      title: `发放${platformName}额度给 ${rows.length} 个账号`,
      params,
      total: rows.length,
    },
    rows.map((r) => ({ seq: r.line, label: r.userAccount, payload: String(r.amount) })),
  );
}

export async function startStatements(app: AppContext, actor: SessionUser) {
  const params: StatementsParams = { maxEntryId: await targets.maxId(app.db, 'coinEntries') };
  const total = await targets.countEntriesUpTo(app.db, params.maxEntryId);
  return start(app, actor, { kind: 'statements', title: '导出全部用户积分明细', params, total });
}

async function requireBatch(app: AppContext, id: number) {
  const batch = await repo.findBatch(app.db, id);
  if (!batch) throw notFound(NOT_FOUND);
  return batch;
}

export const get = async (app: AppContext, id: number) => toView(await requireBatch(app, id));

export const list = async (app: AppContext, query: Schemas['TaskQuery']) =>
  mapPage(await repo.pageBatches(app.db, query), toView);

export async function failures(app: AppContext, query: Schemas['TaskFailureQuery']) {
  await requireBatch(app, query.id);
  const page = await repo.pageFailures(app.db, query.id, query);
  return mapPage(page, (r): Schemas['TaskItem'] => ({ seq: Number(r.seq), label: r.label, error: r.error }));
}

export async function failuresCsv(app: AppContext, id: number): Promise<CsvFile> {
  await requireBatch(app, id);
  const rows: (string | number)[][] = [['序号', '条目', '原因']];
  for (let current = 1; ; current++) {
    const page = await repo.pageFailures(app.db, id, { current, pageSize: 1000 });
    rows.push(...page.records.map((r) => [Number(r.seq), r.label, r.error]));
    if (page.records.length < 1000) break;
  }
  return { filename: `task-${id}-failures.csv`, rows };
}

/** The statements task's file, streamed: its lines read by keyset in chunks, yielding between them. */
export async function outputCsv(app: AppContext, id: number): Promise<CsvFile> {
  const batch = await requireBatch(app, id);
  if (!toView(batch).hasOutput) throw conflict('任务尚未完成或没有导出文件');
  async function* rows() {
    yield [STATEMENT_HEADER];
    for (let after = 0; ;) {
      const lines = await repo.readOutput(app.db, id, after, 1000);
      yield lines.map((l) => statementTaskCsvRow(JSON.parse(l.line) as CsvRow, app.config.jobs.timeZone));
      if (lines.length < 1000) return;
      after = Number(lines.at(-1)!.seq);
      await giveWay();
    }
  }
  return { filename: `statements-task-${id}.csv`, rows: rows() };
}

export async function cancel(app: AppContext, actor: SessionUser, id: number): Promise<Schemas['Task']> {
  await requireBatch(app, id);
  const now = app.now();
  await app.db.transaction().execute(async (trx) => {
    if (!(await repo.cancelBatch(trx, id, now))) throw conflict('任务已结束');
    await taskMoved(trx, id);
    await writeAudit(trx, { actorId: actor.id, action: 'task.cancel', targetType: 'task', targetId: id }, now);
  });
  return get(app, id);
}
