import * as events from '../notices/events.js';
import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../../context.js';
import { mapPage, type Page } from '../../db/paging.js';
import type { CoinEntryKind } from '../../db/types.js';
import { badParams, noPermission, notFound } from '../../http/errors.js';
import { writeAudit } from '../audit/repo.js';
import type { CsvFile } from '../../http/handler-types.js';
import type { SessionUser } from '../sessions/service.js';
import { LIVE_SITE_ID } from '../site/service.js';
import { timeOrderedId } from '../security/tokens.js';
import { maskName } from '../users/dto.js';
import * as users from '../users/repo.js';
import { sqliteDriverOf } from '../../db/sqlite-driver.js';
import { hashOf, idempotent, insufficientCoins, moveCoins, type Movement } from './ledger.js';
import { transferOnPostgres } from './ledger-postgres.js';
import { transferOnSqlite, type PayeeRow } from './ledger-sqlite.js';
import * as repo from './repo.js';

/**
 * A user's transfer: the hot path of the ledger, so it does not go through Kysely. The rules are those of every
 * movement (moveCoins, one implementation per database) plus the transfer's own: the payee exists, is active and is
 * not the payer, and the amount is within the live site's per-transfer cap. On SQLite they run in JS
 * (`decideTransfer`) inside one synchronous, possibly grouped, transaction; on PostgreSQL in `transfer_coins`
 * (migration 0011), one round trip. Either way the idempotency key is written with the result in the same commit.
 */
export async function transfer(
  app: AppContext,
  actor: SessionUser,
  key: string,
  input: Schemas['TransferRequest'],
): Promise<Schemas['TransferResult']> {
  const scope = { actorId: actor.id, key, operation: 'transfer', request: input };
  const now = app.now();
  const reference = timeOrderedId('T', now);
  const payeeAccountLower = input.userAccount.toLowerCase();
  const requestHash = hashOf(scope.operation, input);
  const driver = sqliteDriverOf(app.db);
  if (driver) {
    return transferOnSqlite(driver, {
      scope,
      requestHash,
      payeeAccountLower,
      siteId: LIVE_SITE_ID,
      decide: (payee, cap) => decideTransfer(actor, payee, cap, input.coin, reference, now),
      answer: (payee, balances) => ({
        payee: { userAccount: payee.user_account, maskedName: maskName(payee.user_name) },
        coin: input.coin,
        balance: balances.get(actor.id)!,
        reference,
      }),
    });
  }
  const notice = events.coinsReceivedNotice({ userId: 0, fromAccount: actor.userAccount, coin: input.coin });
  return transferOnPostgres(app.db, {
    scope,
    requestHash,
    payeeAccountLower,
    coin: input.coin,
    siteId: LIVE_SITE_ID,
    reference,
    outPrefix: OUT_PREFIX,
    inDescription: inDescription(actor),
    notice,
    now,
    refusal: (reason, cap) =>
      reason === 'payee'
        ? unknownPayee()
        : reason === 'self'
          ? toSelf()
          : reason === 'cap'
            ? aboveCap(cap)
            : insufficientCoins(),
  });
}

const OUT_PREFIX = '转给 ';
const inDescription = (actor: SessionUser) => `来自 ${actor.userAccount}`;
const unknownPayee = () => notFound('收款账号不存在或不可用');
const toSelf = () => badParams('不能转给自己');
const aboveCap = (cap: number) => badParams(`单笔最多转 ${cap} 积分`);

/** A transfer's own rules on SQLite (transfer_coins holds the same for PostgreSQL), then its movement and notice. */
function decideTransfer(
  actor: SessionUser,
  payee: PayeeRow | undefined,
  cap: number,
  coin: number,
  reference: string,
  now: number,
) {
  if (!payee || payee.status !== 'active') throw unknownPayee();
  if (payee.id === actor.id) throw toSelf();
  if (cap > 0 && coin > cap) throw aboveCap(cap);
  const movement: Movement = {
    postings: [
      {
        userId: actor.id,
        amount: -coin,
        kind: 'transfer_out',
        counterpartyId: payee.id,
        description: OUT_PREFIX + payee.user_account,
      },
      {
        userId: payee.id,
        amount: coin,
        kind: 'transfer_in',
        counterpartyId: actor.id,
        description: inDescription(actor),
      },
    ],
    reference,
    actorId: actor.id,
    now,
  };
  return { movement, notice: events.coinsReceivedNotice({ userId: payee.id, fromAccount: actor.userAccount, coin }) };
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
  const rows: (string | number | null)[][] = [
    ['时间', '类型', '变动', '变动后余额', '对方账号', '说明', '编号', '操作人'],
  ];
  for (let current = 1; rows.length <= EXPORT_MAX_ROWS; current++) {
    // Pages without a total: counting the whole statement again for every page would be wasted work.
    const { records } = await repo.listEntries(
      app.db,
      { userId: owner, current, pageSize: EXPORT_PAGE },
      { withTotal: false },
    );
    for (const e of records.map(toEntryView)) {
      rows.push([
        new Date(e.createdAt).toISOString(),
        e.kind,
        e.amount,
        e.balanceAfter,
        e.counterpartyAccount,
        e.description,
        e.reference,
        e.actorAccount,
      ]);
    }
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
