import * as events from '../notices/events.js';
import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../../context.js';
import { mapPage, type Page } from '../../db/paging.js';
import type { CoinEntryKind } from '../../db/types.js';
import { badParams, noPermission, notFound } from '../../http/errors.js';
import { writeAudit } from '../audit/repo.js';
import { STATEMENT_CSV_HEADER, statementCsvRow } from '../../http/csv-format.js';
import type { CsvFile } from '../../http/handler-types.js';
import type { SessionUser } from '../sessions/service.js';
import { findSite } from '../site/repo.js';
import { LIVE_SITE_ID } from '../site/service.js';
import { timeOrderedId } from '../security/tokens.js';
import { maskName } from '../users/dto.js';
import * as users from '../users/repo.js';
import { idempotent, moveCoins } from './ledger.js';
import * as repo from './repo.js';

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
    return { userId: target.id, userAccount: target.userAccount, coin: balance };
  });
}

type EntryRow = Awaited<ReturnType<typeof repo.listEntries>>['records'][number];

const toEntryView = (e: EntryRow): Schemas['CoinEntry'] => ({
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

/** A statement: one's own, or (for an admin) anyone's. */
export async function statement(
  app: AppContext,
  actor: SessionUser,
  query: { current?: number; pageSize?: number; userId?: number; kind?: CoinEntryKind },
): Promise<Page<Schemas['CoinEntry']>> {
  const userId = statementOwner(actor, query.userId);
  return mapPage(await repo.listEntries(app.db, { ...query, userId }), toEntryView);
}

const EXPORT_PAGE = 100;
const EXPORT_MAX_ROWS = 50_000;

/** The whole statement as CSV rows (newest first), for the same callers as the statement itself. */
export async function statementCsv(app: AppContext, actor: SessionUser, userId: number | undefined): Promise<CsvFile> {
  const owner = statementOwner(actor, userId);
  const rows: (string | number | null)[][] = [[...STATEMENT_CSV_HEADER]];
  for (let current = 1; rows.length <= EXPORT_MAX_ROWS; current++) {
    // Pages without a total: counting the whole statement again for every page would be wasted work.
    const { records } = await repo.listEntries(
      app.db,
      { userId: owner, current, pageSize: EXPORT_PAGE },
      { withTotal: false },
    );
    for (const e of records.map(toEntryView)) rows.push(statementCsvRow(e, app.config.jobs.timeZone));
    if (records.length < EXPORT_PAGE) break;
  }
  return { filename: `coin-entries-${owner}.csv`, rows };
}

/** Recomputes every balance from its entries and lists any user whose stored balance differs. */
export async function check(app: AppContext): Promise<Schemas['LedgerCheck']> {
  const rows = await repo.balancesWithSums(app.db);
  return {
    users: rows.length,
    entries: rows.reduce((n, r) => n + r.entries, 0),
    totalBalance: rows.reduce((n, r) => n + r.balance, 0),
    mismatches: rows
      .filter((r) => r.balance !== r.sumOfEntries)
      .map(({ userId, userAccount, balance, sumOfEntries }) => ({ userId, userAccount, balance, sumOfEntries })),
  };
}
