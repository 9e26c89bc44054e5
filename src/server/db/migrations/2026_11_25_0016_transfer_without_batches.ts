import { sql, type Kysely } from 'kysely';
import { isPostgres } from './helpers.js';
import * as ledgerFunctions from './2026_11_23_0011_ledger_functions.js';
import * as transferBatches from './2026_11_23_0015_transfer_batches.js';

/**
 * PostgreSQL only: the transfer keeps only the ledger's rules.
 * - `transfer_coins_batch` (group commit, migration 0015) goes: it paid only at saturation.
 * - `transfer_coins` is replaced by one that takes no idempotency key: the server claims and records keys the same
 *   way for every operation (modules/coins/idempotency.ts), in the same transaction as this call.
 * - It answers the payee's name as stored; the server masks it (users/dto.ts maskName), so the rule is written once.
 * What it still does, in one round trip: find the payee (case-insensitive, live, active, not the payer), check the
 * site's per-transfer cap, move the coins with `move_coins` (migration 0011), and write the payee's notice. A refusal
 * raises SQLSTATE PM001 with the reason ('payee', 'self', 'cap', 'funds') as its message, the cap in DETAIL.
 * The rules are the cases of tests/api/transfer-rules.test.ts, which SQLite's TypeScript follows too.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`drop function transfer_coins_batch`.execute(db);
  await sql`drop function transfer_coins(bigint, text, text, text, bigint, bigint, text, text, text, text, text, bigint)`.execute(
    db,
  );
  await sql`
    create function transfer_coins(
      p_actor bigint, p_payee_account_lower text, p_coin bigint, p_site_id bigint, p_reference text,
      p_out_prefix text, p_in_description text, p_notice_title text, p_notice_body text, p_now bigint
    ) returns jsonb language plpgsql as $$
    declare
      payee record;
      cap bigint;
      balances bigint[];
    begin
      select id, user_account, user_name, status into payee
        from users where deleted_at is null and lower(user_account) = p_payee_account_lower;
      if not found or payee.status <> 'active' then
        raise exception 'payee' using errcode = 'PM001';
      end if;
      if payee.id = p_actor then
        raise exception 'self' using errcode = 'PM001';
      end if;
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

      return jsonb_build_object(
        'payeeId', payee.id, 'payeeAccount', payee.user_account, 'payeeName', payee.user_name,
        'balance', balances[1]);
    end;
    $$`.execute(db);
}

/** Back to migrations 0011 and 0015's functions: move_coins is recreated unchanged with 0011's transfer_coins. */
export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`drop function transfer_coins(bigint, text, bigint, bigint, text, text, text, text, text, bigint)`.execute(
    db,
  );
  await sql`drop function move_coins`.execute(db);
  await ledgerFunctions.up(db);
  await transferBatches.up(db);
}
