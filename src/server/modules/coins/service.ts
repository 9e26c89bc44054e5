import type { RequestQuery, Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import type { CoinEntryKind } from '../../db/types.js';
import { badParams, noPermission, notFound } from '../../lib/errors.js';
import { writeAudit } from '../../support/audit/repo.js';
import { coinsAdjusted } from '../notices/events.js';
import { shownDescription } from './ledger-types.js';
import { STATEMENT_CSV_HEADER, statementCsvRow } from '../../lib/csv-format.js';
import type { CsvFile } from '../../lib/csv-file.js';
import type { SessionUser } from '../sessions/service.js';
import { LIVE_SITE_ID } from '../site/repo.js';
import { timeOrderedId } from '../../support/security/tokens.js';
import { maskName } from '../users/dto.js';
import * as users from '../users/repo.js';
import { giveWay } from '../../lib/give-way.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { idempotent } from './idempotency.js';
import { moveCoins, transferCoins } from './ledger.js';
import * as statements from './statement-repo.js';
import type { EntryWithAccounts, PageStart } from './statement-repo.js';

/**
 * A user's transfer, once per Idempotency-Key: the ledger's transferCoins (its rules: ledger.ts) and the key's record
 * commit together.
 */
export function transfer(
  app: AppContext,
  actor: SessionUser,
  key: string,
  input: Schemas['TransferRequest'],
): Promise<Schemas['TransferResult']> {
  return idempotent(app, { actorId: actor.id, key, operation: 'transfer', request: input }, async (trx) => {
    const now = app.now();
    const reference = timeOrderedId('T', now);
    const done = await transferCoins(trx, {
      payer: { id: actor.id, userAccount: actor.userAccount },
      payeeAccount: input.userAccount,
      coin: input.coin,
      siteId: LIVE_SITE_ID,
      reference,
      now,
      metrics: app.metrics,
    });
    return {
      payee: { userAccount: done.payee.userAccount, maskedName: maskName(done.payee.userName) },
      coin: input.coin,
      balance: done.balance,
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
    // Said with the balance, so the admin knows what can be taken; the ledger still refuses any overdraft itself.
    if (direction === 'reduce' && Number(target.coin) < input.coin)
      throw badParams(`${target.userAccount} 当前只有 ${Number(target.coin)} 积分，不能扣除 ${input.coin} 积分`);
    const amount = direction === 'add' ? input.coin : -input.coin;
    const now = app.now();
    const reference = timeOrderedId('A', now);
    const balances = await moveCoins(trx, {
      postings: [{ userId: target.id, amount, kind, description: input.description }],
      reference,
      actorId: actor.id,
      now,
      metrics: app.metrics,
    });
    const balance = balances.get(target.id)!;
    await coinsAdjusted(
      trx,
      {
        userId: target.id,
        amount,
        reason: `管理员${direction === 'add' ? '加' : '扣'}积分（${input.description}）`,
        balance,
      },
      now,
    );
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

const toEntryView = (e: EntryWithAccounts): Schemas['CoinEntry'] => ({
  id: e.id,
  userId: e.userId,
  amount: Number(e.amount),
  balanceAfter: Number(e.balanceAfter),
  kind: e.kind,
  counterpartyAccount: e.counterpartyAccount,
  reference: e.reference,
  description: shownDescription(e),
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

/**
 * The whole statement as CSV (newest first), for the same callers as the statement itself, streamed: read by keyset
 * in chunks, yielding to the event loop between them, so a long export holds no other request up. The first chunk
 * fixes where it starts; entries made while it streams are newer and not part of it.
 */
export function statementCsv(app: AppContext, actor: SessionUser, userId: number | undefined): Promise<CsvFile> {
  const filter = { userId: statementOwner(actor, userId) };
  async function* rows() {
    yield [[...STATEMENT_CSV_HEADER]];
    let start: PageStart = { offset: 0 };
    for (let sent = 0; sent < EXPORT_MAX_ROWS;) {
      const chunk = await statements.listEntries(app.db, filter, start, Math.min(EXPORT_CHUNK, EXPORT_MAX_ROWS - sent));
      if (chunk.length === 0) return;
      yield chunk.map((e) => statementCsvRow(toEntryView(e), app.config.jobs.timeZone));
      sent += chunk.length;
      start = { beforeId: chunk.at(-1)!.id };
      await giveWay();
    }
  }
  return Promise.resolve({ filename: `coin-entries-${filter.userId}.csv`, rows: rows() });
}

/**
 * How much of the ledger one statement of the check reads: about 5,000 entries take a few milliseconds on SQLite,
 * where a statement holds the event loop while it runs (at 1M entries a 1,000-user range holding one user with
 * 100,000 entries held it about 30 ms). Users are taken in id ranges up to this many entries (by the count kept beside
 * each balance); a user with more is summed alone, in slices of this many.
 */
const CHECK_ENTRIES_PER_SLICE = 5000;
const CHECK_USERS_PER_SLICE = 1000;

/**
 * Recomputes every balance and entry count from the entries and lists any user whose stored balance or count differs.
 * Walks the users in id
 * ranges, yielding between statements. A user's balance is compared with a sum read in the same snapshot: in one
 * statement for a range of users; for a user summed in slices, the last statement reads the balance beside the sum of
 * the entries after the slices. The sliced part cannot change meanwhile: entries are append-only, and a user's entries
 * get their ids while the movement holds that user's row (SQLite: the one writer; PostgreSQL: move_coins updates the
 * balance first), so no entry can appear later below an id already read. Only the totals may mix moments.
 */
export async function check(app: Pick<AppContext, 'db'>): Promise<Schemas['LedgerCheck']> {
  const result: Schemas['LedgerCheck'] = { users: 0, entries: 0, totalBalance: 0, mismatches: [] };
  const add = (r: CheckedUser) => {
    result.users++;
    result.entries += r.entries;
    result.totalBalance += r.balance;
    // The stored entry count serves statement totals without counting; a wrong one misnumbers every page.
    if (r.balance !== r.sumOfEntries || r.entryCount !== r.entries)
      result.mismatches.push({
        userId: r.userId,
        userAccount: r.userAccount,
        balance: r.balance,
        sumOfEntries: r.sumOfEntries,
        entryCount: r.entryCount,
        entriesCounted: r.entries,
      });
  };
  // The next users' entry counts, read a thousand at a time and used up slice by slice.
  let counts: { id: number; entryCount: number }[] = [];
  let i = 0;
  for (let after = 0; ;) {
    if (i === counts.length) {
      counts = await statements.entryCountsAfter(app.db, after, CHECK_USERS_PER_SLICE);
      i = 0;
      if (counts.length === 0) break;
    }
    const first = counts[i++]!;
    if (first.entryCount > CHECK_ENTRIES_PER_SLICE) {
      const user = await checkUserInSlices(app, first.id);
      if (user) add(user);
      after = first.id;
    } else {
      let upTo = first.id;
      let entries = first.entryCount;
      while (i < counts.length && entries + counts[i]!.entryCount <= CHECK_ENTRIES_PER_SLICE) {
        entries += counts[i]!.entryCount;
        upTo = counts[i++]!.id;
      }
      for (const row of await statements.balancesWithSums(app.db, after, upTo)) add(row);
      after = upTo;
    }
    await giveWay();
  }
  return result;
}

/** A user as the check saw them: stored balance and entry count beside the sum and count of their entries. */
interface CheckedUser {
  userId: number;
  userAccount: string;
  balance: number;
  sumOfEntries: number;
  entryCount: number;
  entries: number;
}

/** One user with many entries: their sum in slices (yielding between them), then the balance beside the rest. */
async function checkUserInSlices(app: Pick<AppContext, 'db'>, userId: number): Promise<CheckedUser | undefined> {
  let afterId = 0;
  let sum = 0;
  let entries = 0;
  for (;;) {
    const slice = await statements.entrySlice(app.db, userId, afterId, CHECK_ENTRIES_PER_SLICE);
    sum += slice.total;
    entries += slice.entries;
    afterId = slice.lastId;
    if (slice.entries < CHECK_ENTRIES_PER_SLICE) break;
    await giveWay();
  }
  const rest = await statements.balanceWithSumAfter(app.db, userId, afterId);
  if (!rest) return undefined;
  return {
    userId,
    userAccount: rest.userAccount,
    balance: rest.balance,
    entryCount: rest.entryCount,
    sumOfEntries: sum + rest.total,
    entries: entries + rest.entries,
  };
}
