import { sql, type Kysely } from 'kysely';
import { isPostgres } from './helpers.js';

/**
 * PostgreSQL only: the ledger's rules as two functions, so a coin movement is one round trip instead of a dozen
 * (each of which would hold the payer's row lock while it crossed the network).
 *
 * - move_coins: THE movement on PostgreSQL. modules/coins/ledger.ts moveCoins calls it for every caller (orders,
 *   redeem, billing, batches, admin add/reduce), and transfer_coins calls it too, so there is one implementation of
 *   "lock balances in user-id order, refuse an overdraft, append an entry per posting". It answers each posting's
 *   balance after the movement, or NULL when a balance would go below zero (nothing raised: a caller such as billing
 *   may carry on in its transaction, as it could when the refusal was a conditional UPDATE that matched nothing).
 * - transfer_coins: a user's transfer with its idempotency record, in the one statement the server sends. The key is
 *   claimed first (INSERT … ON CONFLICT DO NOTHING waits for a concurrent holder of the same key, then finds its
 *   result); a refusal raises SQLSTATE PM001 with the reason as the message, which rolls back the whole statement, key
 *   included, so the request can be retried. The words of every message stay in the server (modules/coins).
 *
 * SQLite has no stored functions; there the same rules run as precompiled statements in one synchronous transaction
 * (modules/coins/ledger-sqlite.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`
    create function move_coins(
      p_users bigint[], p_amounts bigint[], p_kinds text[], p_counterparties bigint[], p_descriptions text[],
      p_reference text, p_actor bigint, p_now bigint
    ) returns bigint[] language plpgsql as $$
    declare
      balances bigint[] := array_fill(null::bigint, array[cardinality(p_users)]);
      posting record;
      balance bigint;
    begin
      -- Ascending user id (then the caller's order): two movements between the same users cannot deadlock.
      for posting in
        select t.user_id, t.amount, t.i from unnest(p_users, p_amounts) with ordinality as t(user_id, amount, i)
        order by t.user_id, t.i
      loop
        update users set coin = coin + posting.amount
          where id = posting.user_id and coin + posting.amount >= 0
          returning coin into balance;
        if not found then
          return null;
        end if;
        balances[posting.i] := balance;
      end loop;
      insert into coin_entries
        (user_id, amount, balance_after, kind, counterparty_id, reference, description, actor_id, created_at)
      select t.user_id, t.amount, balances[t.i], t.kind, t.counterparty_id, p_reference, t.description, p_actor, p_now
        from unnest(p_users, p_amounts, p_kinds, p_counterparties, p_descriptions) with ordinality
          as t(user_id, amount, kind, counterparty_id, description, i)
        order by t.user_id, t.i;
      return balances;
    end;
    $$`.execute(db);

  await sql`
    create function transfer_coins(
      p_actor bigint, p_key text, p_request_hash text, p_payee_account_lower text,
      p_coin bigint, p_site_id bigint, p_reference text, p_out_prefix text, p_in_description text,
      p_notice_title text, p_notice_body text, p_now bigint
    ) returns jsonb language plpgsql as $$
    declare
      existing record;
      payee record;
      cap bigint;
      balances bigint[];
      result jsonb;
    begin
      insert into idempotency_keys (actor_id, key, operation, request_hash, response, created_at)
        values (p_actor, p_key, 'transfer', p_request_hash, '', p_now)
        on conflict do nothing;
      if not found then
        select operation, request_hash, response into existing
          from idempotency_keys where actor_id = p_actor and key = p_key;
        return jsonb_build_object('replay', jsonb_build_object(
          'operation', existing.operation, 'requestHash', existing.request_hash, 'response', existing.response));
      end if;

      select id, user_account, user_name, status into payee
        from users where deleted_at is null and lower(user_account) = p_payee_account_lower;
      if not found or payee.status <> 'active' then
        raise exception 'payee' using errcode = 'PM001';
      end if;
      if payee.id = p_actor then
        raise exception 'self' using errcode = 'PM001';
      end if;
      -- Read here, in the same round trip, rather than cached: another process may have just changed it.
      select amount into cap from site_information where id = p_site_id;
      if coalesce(cap, 0) > 0 and p_coin > cap then
        raise exception 'cap' using errcode = 'PM001', detail = cap::text;
      end if;

      balances := move_coins(
        array[p_actor, payee.id], array[-p_coin, p_coin], array['transfer_out', 'transfer_in'],
        array[payee.id, p_actor], array[p_out_prefix || payee.user_account, p_in_description],
        p_reference, p_actor, p_now);
      if balances is null then
        raise exception 'funds' using errcode = 'PM001';
      end if;

      insert into notices (user_id, kind, title, body, read_at, created_at)
        values (payee.id, 'coins_received', p_notice_title, p_notice_body, null, p_now);

      -- maskedName as modules/users/dto.ts maskName: the first character and one star per further one (1 to 8).
      result := jsonb_build_object(
        'payee', jsonb_build_object(
          'userAccount', payee.user_account,
          'maskedName', left(payee.user_name, 1) || repeat('*', least(greatest(char_length(payee.user_name) - 1, 1), 8))),
        'coin', p_coin,
        'balance', balances[1],
        'reference', p_reference);
      update idempotency_keys set response = result::text where actor_id = p_actor and key = p_key;
      return jsonb_build_object('result', result);
    end;
    $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`drop function transfer_coins`.execute(db);
  await sql`drop function move_coins`.execute(db);
}
