import * as events from '../notices/events.js';
import type { RequestQuery, Schemas } from '../../../api/operations.js';
import type { AppContext } from '../../context.js';
import type { CoinEntryKind } from '../../db/types.js';
import { badParams, noPermission, notFound } from '../../http/errors.js';
import { writeAudit } from '../audit/repo.js';
import type { CsvFile } from '../../http/handler-types.js';
import type { SessionUser } from '../sessions/service.js';
import { findSite } from '../site/repo.js';
import { LIVE_SITE_ID } from '../site/service.js';
import { timeOrderedId } from '../security/tokens.js';
import { maskName } from '../users/dto.js';
import * as users from '../users/repo.js';
import { idempotent, moveCoins } from './ledger.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import * as statements from './statement-repo.js';
import type { EntryWithAccounts, PageStart } from './statement-repo.js';
import { yieldToEventLoop } from '../../db/yield.js';

export async function transfer(
  app: AppContext,
  actor: SessionUser,
  key: string,
  input: Schemas['TransferRequest'],
): Promise<Schemas['TransferResult']> {
  return idempotent(app, { actorId: actor.id, key, operation: 'transfer', request: input }, async (trx) => {
    const payee = await users.findLiveByAccount(trx, input.userAccount);
    if (!payee || payee.status !== 'active') throw notFound('收款账号不存在或不可用');
    if (payee.id === actor.id) throw badParams('不能转给自己');
    const cap = (await findSite(trx, LIVE_SITE_ID))?.amount ?? 0;
    if (cap > 0 && input.coin > cap) throw badParams(`单笔最多转 ${cap} 积分`);
    const reference = timeOrderedId('T', app.now());
    const balances = await moveCoins(trx, {
      postings: [
        {
          userId: actor.id,
          amount: -input.coin,
          kind: 'transfer_out',
          counterpartyId: payee.id,
          description: `转给 ${payee.userAccount}`,
        },
        {
          userId: payee.id,
          amount: input.coin,
          kind: 'transfer_in',
          counterpartyId: actor.id,
          description: `来自 ${actor.userAccount}`,
        },
      ],
      reference,
      actorId: actor.id,
      now: app.now(),
    });
    await events.coinsReceived(trx, { userId: payee.id, fromAccount: actor.userAccount, coin: input.coin }, app.now());
    return {
      payee: { userAccount: payee.userAccount, maskedName: maskName(payee.userName) },
      coin: input.coin,
      balance: balances.get(actor.id)!,
      reference,
    };
  });
}

/** An admin's add or reduce, with its reason, in the ledger and the audit log. */
export async function adminChange(
  app: AppContext,
  actor: SessionUser,
  key: string,
  input: Schemas['CoinChangeRequest'],
  direction: 'add' | 'reduce',
): Promise<Schemas['CoinBalance']> {
  const kind: CoinEntryKind = direction === 'add' ? 'admin_add' : 'admin_reduce';
  return idempotent(app, { actorId: actor.id, key, operation: kind, request: input }, async (trx) => {
    const target = await users.findLiveByAccount(trx, input.userAccount);
    if (!target) throw notFound('用户不存在');
    const amount = direction === 'add' ? input.coin : -input.coin;
    const now = app.now();
    const reference = timeOrderedId('A', now);
    const balances = await moveCoins(trx, {
      postings: [{ userId: target.id, amount, kind, description: input.description }],
      reference,
      actorId: actor.id,
      now,
    });
    const balance = balances.get(target.id)!;
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: `coin.${direction}`,
        targetType: 'user',
        targetId: target.id,
        before: { coin: balance - amount },
        after: { coin: balance, reason: input.description, reference },
      },
      now,
    );
    return { userAccount: target.userAccount, coin: balance };
  });
}

const toEntryView = (e: EntryWithAccounts): Schemas['CoinEntry'] => ({
  id: e.id,
  userId: e.userId,
  amount: Number(e.amount),
  balanceAfter: Number(e.balanceAfter),
  kind: e.kind,
  counterpartyAccount: e.counterpartyAccount,
  reference: e.reference,
  description: e.description,
  actorAccount: e.actorAccount,
  createdAt: e.createdAt,
});

/** Whose statement: one's own, or (for an admin) anyone's. */
function statementOwner(actor: SessionUser, userId: number | undefined): number {
  const owner = userId ?? actor.id;
  if (owner !== actor.id && actor.userRole !== 'admin') throw noPermission('只能查看自己的积分明细');
  return owner;
}

/**
 * A statement: one's own, or (for an admin) anyone's. Numbered pages (`current`) or, with `cursor`, the page after
 * the one that handed it out (keyset: as fast deep down as on top, and new entries do not shift it). Either way the
 * answer carries `nextCursor` while older entries remain.
 */
export async function statement(
  app: AppContext,
  actor: SessionUser,
  query: RequestQuery<'coinEntries'>,
): Promise<Schemas['CoinEntryPage']> {
  const filter = { userId: statementOwner(actor, query.userId), kind: query.kind };
  const secret = app.config.sessionSecret;
  const current = query.current ?? 1;
  const pageSize = query.pageSize ?? 10;
  const start = query.cursor
    ? { beforeId: decodeCursor(secret, filter, query.cursor) }
    : { offset: (current - 1) * pageSize };
  const rows = await statements.listEntries(app.db, filter, start, pageSize);
  const total = await statements.countEntries(app.db, filter);
  const last = rows.at(-1);
  return {
    records: rows.map(toEntryView),
    total,
    current,
    pageSize,
    nextCursor: rows.length === pageSize && last ? encodeCursor(secret, filter, last.id) : null,
  };
}

const EXPORT_CHUNK = 500;
const EXPORT_MAX_ROWS = 50_000;

/** One statement entry as a row of the CSV export (the header is STATEMENT_CSV_HEADER). */
function statementCsvRow(e: Schemas['CoinEntry']): (string | number | null)[] {
  return [
    new Date(e.createdAt).toISOString(),
    e.kind,
    e.amount,
    e.balanceAfter,
    e.counterpartyAccount,
    e.description,
    e.reference,
    e.actorAccount,
  ];
}

const STATEMENT_CSV_HEADER = ['时间', '类型', '变动', '变动后余额', '对方账号', '说明', '编号', '操作人'];

/**
 * The whole statement as CSV (newest first), for the same callers as the statement itself, streamed: read by keyset
 * in chunks, yielding to the event loop between them, so a long export holds no other request up. The first chunk
 * fixes where it starts; entries made while it streams are newer and not part of it.
 */
export function statementCsv(app: AppContext, actor: SessionUser, userId: number | undefined): Promise<CsvFile> {
  const filter = { userId: statementOwner(actor, userId) };
  async function* rows() {
    yield [STATEMENT_CSV_HEADER];
    let start: PageStart = { offset: 0 };
    for (let sent = 0; sent < EXPORT_MAX_ROWS;) {
      const chunk = await statements.listEntries(app.db, filter, start, Math.min(EXPORT_CHUNK, EXPORT_MAX_ROWS - sent));
      if (chunk.length === 0) return;
      yield chunk.map((e) => statementCsvRow(toEntryView(e)));
      sent += chunk.length;
      start = { beforeId: chunk.at(-1)!.id };
      await yieldToEventLoop();
    }
  }
  return Promise.resolve({ filename: `coin-entries-${filter.userId}.csv`, rows: rows() });
}

const CHECK_USERS_PER_CHUNK = 1000;

/**
 * Recomputes every balance from its entries and lists any user whose stored balance differs. Walks the users in id
 * ranges, yielding between them; each user's balance and sum come from one statement, so a movement running at the
 * same time never shows as a mismatch (only the totals may mix moments).
 */
export async function check(app: AppContext): Promise<Schemas['LedgerCheck']> {
  const result: Schemas['LedgerCheck'] = { users: 0, entries: 0, totalBalance: 0, mismatches: [] };
  const last = await statements.maxUserId(app.db);
  for (let after = 0; after < last; after += CHECK_USERS_PER_CHUNK) {
    const rows = await statements.balancesWithSums(app.db, after, after + CHECK_USERS_PER_CHUNK);
    for (const r of rows) {
      result.users++;
      result.entries += r.entries;
      result.totalBalance += r.balance;
      if (r.balance !== r.sumOfEntries)
        result.mismatches.push({
          userId: r.userId,
          userAccount: r.userAccount,
          balance: r.balance,
          sumOfEntries: r.sumOfEntries,
        });
    }
    await yieldToEventLoop();
  }
  return result;
}
