import type BetterSqlite3 from 'better-sqlite3';
import type { Prepared, ResilientSqliteDriver } from '../../db/sqlite-driver.js';
import type { NewNotice } from '../notices/repo.js';
import { transferCapOn } from '../site/transfer-cap.js';
import {
  insufficientCoins,
  orderedPostings,
  replay,
  type IdempotencyScope,
  type Movement,
  type Posting,
} from './ledger.js';

// The ledger on SQLite as precompiled better-sqlite3 statements run synchronously on the write connection: no query
// building, no result transforms, no awaits between statements (the connection's write lock is held either by the
// caller's Kysely transaction or by a grouped transaction of the driver).

interface Statements {
  applyToBalance: BetterSqlite3.Statement;
  /** Entries of a movement in one INSERT, by number of rows. */
  insertEntries: Map<number, BetterSqlite3.Statement>;
  findPayee: BetterSqlite3.Statement;
  insertNotice: BetterSqlite3.Statement;
  insertKey: BetterSqlite3.Statement;
  findKey: BetterSqlite3.Statement;
}

const ENTRY_COLUMNS =
  'user_id, amount, balance_after, kind, counterparty_id, reference, description, actor_id, created_at';

const statementsByWriter = new WeakMap<Prepared, Statements>();

function statementsOf(writer: Prepared): Statements {
  let s = statementsByWriter.get(writer);
  if (!s) {
    s = {
      // As repo.ts applyToBalance did: the database, not a read-then-write in JS, decides whether the money is there.
      applyToBalance: writer.prepare('update users set coin = coin + ? where id = ? and coin + ? >= 0 returning coin'),
      insertEntries: new Map(),
      findPayee: writer.prepare(
        'select id, user_account, user_name, status from users where deleted_at is null and lower(user_account) = ?',
      ),
      insertNotice: writer.prepare(
        'insert into notices (user_id, kind, title, body, read_at, created_at) values (?, ?, ?, ?, null, ?)',
      ),
      insertKey: writer.prepare(
        'insert into idempotency_keys (actor_id, key, operation, request_hash, response, created_at) values (?, ?, ?, ?, ?, ?)',
      ),
      findKey: writer.prepare(
        'select operation, request_hash as requestHash, response from idempotency_keys where actor_id = ? and key = ?',
      ),
    };
    statementsByWriter.set(writer, s);
  }
  return s;
}

function insertEntriesStatement(writer: Prepared, s: Statements, rows: number): BetterSqlite3.Statement {
  let statement = s.insertEntries.get(rows);
  if (!statement) {
    const values = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
    statement = writer.prepare(`insert into coin_entries (${ENTRY_COLUMNS}) values ${values}`);
    s.insertEntries.set(rows, statement);
  }
  return statement;
}

/**
 * moveCoins on SQLite (see ledger.ts): one conditional UPDATE per posting in ascending user id, then every entry in
 * one INSERT. Call only while a write transaction holds `writer`.
 */
export function moveCoinsOnSqlite(
  writer: Prepared,
  movement: Movement,
  postings: Posting[] = orderedPostings(movement),
): Map<number, number> {
  const s = statementsOf(writer);
  const balances = new Map<number, number>();
  const values: unknown[] = [];
  for (const p of postings) {
    const row = s.applyToBalance.get(p.amount, p.userId, p.amount) as { coin: number } | undefined;
    if (row === undefined) throw insufficientCoins();
    const balance = Number(row.coin);
    balances.set(p.userId, balance);
    values.push(
      p.userId,
      p.amount,
      balance,
      p.kind,
      p.counterpartyId ?? null,
      movement.reference,
      p.description,
      movement.actorId,
      movement.now,
    );
  }
  insertEntriesStatement(writer, s, postings.length).run(values);
  return balances;
}

export interface PayeeRow {
  id: number;
  user_account: string;
  user_name: string;
  status: string;
}

/** What a transfer needs besides the payee, who is looked up inside the transaction. */
export interface TransferPlan<R> {
  scope: IdempotencyScope;
  requestHash: string;
  payeeAccountLower: string;
  siteId: number;
  /** Throws the refusal (unknown payee, oneself, above the cap) or answers the movement and the payee's notice. */
  decide(payee: PayeeRow | undefined, cap: number): { movement: Movement; notice: NewNotice };
  answer(payee: PayeeRow, balances: Map<number, number>): R;
}

/**
 * A user's transfer in one synchronous piece of work: payee, cap (cached, site/transfer-cap.ts), moveCoinsOnSqlite,
 * the payee's notice, and the idempotency key written WITH its result, last. No lookup of the key first: in the
 * common case the key is new, and if it is not, its primary key refuses the INSERT; then (as after any refusal) the
 * driver rolls this work's savepoint back and `recover` answers the first result stored under the key (or 40900 for
 * another request under the same key). A refusal is checked against the key too, so a retry of a transfer that
 * succeeded answers its first result even if the payer has since run out of coins.
 */
export function transferOnSqlite<R>(driver: ResilientSqliteDriver, plan: TransferPlan<R>): Promise<R> {
  const { scope } = plan;
  return driver.submitWrite<R>({
    run(writer) {
      const s = statementsOf(writer);
      const payee = s.findPayee.get(plan.payeeAccountLower) as PayeeRow | undefined;
      const { movement, notice } = plan.decide(payee, transferCapOn(writer, plan.siteId));
      const balances = moveCoinsOnSqlite(writer, movement);
      s.insertNotice.run(notice.userId, notice.kind, notice.title, notice.body, movement.now);
      const result = plan.answer(payee!, balances);
      s.insertKey.run(
        scope.actorId,
        scope.key,
        scope.operation,
        plan.requestHash,
        JSON.stringify(result),
        movement.now,
      );
      return result;
    },
    recover(error, writer) {
      const first = statementsOf(writer).findKey.get(scope.actorId, scope.key) as
        { operation: string; requestHash: string; response: string } | undefined;
      if (!first) throw error;
      return replay(first, scope) as R;
    },
  });
}
