import { sql, type Kysely } from 'kysely';
import { isPostgres } from './helpers.js';

/**
 * PostgreSQL only: GROUP COMMIT for users' transfers. `transfer_coins_batch` runs the transfers that reached the
 * server together (modules/coins/transfer-batcher-postgres.ts) in one statement, so one transaction and one WAL
 * flush serve them all, where each transfer_coins call had a commit of its own.
 *
 * - One implementation of a transfer: each one is a call of `transfer_coins` (migration 0011).
 * - Each in its own subtransaction (the BEGIN … EXCEPTION block): a refusal (PM001) rolls back that transfer alone,
 *   its idempotency key included, and is answered as an outcome; the others carry on. Any other error of one
 *   transfer is answered as its outcome too (its SQLSTATE and message), as SQLite's savepoints do. PostgreSQL keeps
 *   at most 64 subtransaction ids per transaction in shared memory before it spills them to disk, hence the
 *   batcher's cap of 64 transfers.
 * - No deadlock between batches (several on one pool, several processes): before any transfer runs, the rows of
 *   every payer and payee are locked in ascending id, the order move_coins locks balances in. Two batches meet only
 *   through rows of users they both hold, which they take in the same order; an idempotency key belongs to its
 *   payer, whose row is already held, so keys add no other order. FOR NO KEY UPDATE is the lock the balance UPDATE
 *   takes anyway: foreign-key checks of other writers (sessions, orders) are not held up. (A lone transfer_coins, from
 *   a server with DATABASE_GROUP_COMMIT=0, or an order, claims its key before it locks rows: only the same payer's
 *   same key in flight in both at once could then cross, which PostgreSQL detects and fails in that one transfer's
 *   subtransaction, 40P01.)
 *
 * Answers a JSON array, one outcome per transfer in the order given: {"result": …}, {"replay": …} (as
 * transfer_coins), {"refusal": "payee"|"self"|"cap"|"funds", "cap": n}, or {"error": {"code", "message"}}.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`
    create function transfer_coins_batch(
      p_actors bigint[], p_keys text[], p_request_hashes text[], p_payee_accounts_lower text[],
      p_coins bigint[], p_site_ids bigint[], p_references text[], p_out_prefixes text[], p_in_descriptions text[],
      p_notice_titles text[], p_notice_bodies text[], p_nows bigint[]
    ) returns jsonb language plpgsql as $$
    declare
      outcomes jsonb := '[]'::jsonb;
      outcome jsonb;
      reason text;
      detail text;
      state text;
    begin
      perform 1 from users
        where id = any(p_actors) or (deleted_at is null and lower(user_account) = any(p_payee_accounts_lower))
        order by id
        for no key update;
      for i in 1 .. coalesce(cardinality(p_actors), 0) loop
        begin
          outcome := transfer_coins(
            p_actors[i], p_keys[i], p_request_hashes[i], p_payee_accounts_lower[i], p_coins[i], p_site_ids[i],
            p_references[i], p_out_prefixes[i], p_in_descriptions[i], p_notice_titles[i], p_notice_bodies[i],
            p_nows[i]);
        exception
          when sqlstate 'PM001' then
            get stacked diagnostics reason = message_text, detail = pg_exception_detail;
            outcome := jsonb_build_object('refusal', reason, 'cap', coalesce(nullif(detail, '')::bigint, 0));
          when others then
            get stacked diagnostics state = returned_sqlstate, reason = message_text;
            outcome := jsonb_build_object('error', jsonb_build_object('code', state, 'message', reason));
        end;
        outcomes := outcomes || jsonb_build_array(outcome);
      end loop;
      return outcomes;
    end;
    $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`drop function transfer_coins_batch`.execute(db);
}
