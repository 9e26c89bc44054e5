// Bulk seeding for the benches at scale (scale.mjs, dashboard.mjs): users and a ledger of coin entries written with
// one INSERT … SELECT per table straight into a migrated database (seconds, not the hours the API would take), on
// SQLite or PostgreSQL, with the same rows on both.
//
// What it writes:
//   users     `users` users ('u<i>', nicknames 张伟<i>, 王芳<i>, … so the search has Chinese and ASCII to find), the admin's
//             password hash, created over the last SPAN_DAYS days, a third of them signed in recently;
//   entries   `entries` coin entries: `heavyEntries` of them on the first seeded user (a deep statement, a big export),
//             the rest spread evenly, in blocks of five (a credit, a service charge, an order credit, both halves of a
//             transfer) so every running balance stays positive, their times spread over the last SPAN_DAYS days;
//   balances  every user's coin and entry_count set from the entries, so the ledger check balances;
//   extras    (SQLite, `runs` > 0: the dashboard's data) a platform, a service per user, `runs` runs over the span,
//             one paid order per five runs.
//
// The per-row trigger that keeps users.entry_count is switched off while the entries go in (and the counts written
// once at the end): on PostgreSQL, 100,000 updates of the heavy user's row inside one transaction each walk the row's
// growing version chain, which is what kept the 1M-row PostgreSQL seed from ever finishing.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { BenchError, ROOT, pgClient } from './lib.mjs';

const DAY = 86_400_000;
export const SPAN_DAYS = 120;
const NAMES = ['张伟', '王芳', '李娜', '刘洋', '陈静', '杨磊', '赵敏', '黄强', '周杰', '吴霞'];

/** The statements, in order; `first` is a subquery answering the first seeded user's id. */
function statements({ users, entries, heavyEntries, now, postgres }) {
  const from = now - SPAN_DAYS * DAY;
  const series = (n) =>
    postgres
      ? `select g as i from generate_series(1::bigint, ${n}) g`
      : `with recursive s(i) as (select 1 union all select i + 1 from s where i < ${n}) select i from s`;
  const text = postgres ? '::text' : '';
  const name = `(case i % 10 ${NAMES.map((n, k) => `when ${k} then '${n}'`).join(' ')} end) || i${text}`;
  const light = entries - heavyEntries;
  const first = `(select min(id) from users where user_account like 'u%' and invitation_code like 'S%')`;
  const entryColumns = `(user_id, amount, balance_after, kind, reference, description, created_at)`;
  const entryValues = (userExpr, ref, n) => `select ${userExpr},
       case (i - 1) % 5 when 0 then 100 when 1 then -2 when 2 then 50 when 3 then -5 else 5 end, 0,
       case (i - 1) % 5 when 0 then 'admin_add' when 1 then 'service_charge' when 2 then 'order_credit'
                  when 3 then 'transfer_out' else 'transfer_in' end,
       '${ref}' || i${text}, '种子', ${from} + i * ${SPAN_DAYS * DAY} / ${n}
     from (${series(n)}) s, (select ${first} as f) f`;
  return [
    `insert into users (user_account, user_name, user_name_key, password_hash, user_role, status, invitation_code,
       created_at, updated_at, last_login_at)
     select 'u' || i${text}, ${name}, ${name}, (select password_hash from users where user_role = 'admin' order by id limit 1),
       'user', 'active', 'S' || i${text}, ${from} + (i * 7919 % ${SPAN_DAYS * 86400}) * 1000, ${now},
       case when i % 3 = 0 then ${now} - (i % 10) * ${DAY} end
     from (${series(users)}) s`,
    // Light entry i belongs to the user of its block of five, round robin, so each user's blocks come in order.
    ...(light > 0
      ? [`insert into coin_entries ${entryColumns} ${entryValues(`f.f + ((i - 1) / 5) % ${users}`, 'seed-', light)}`]
      : []),
    ...(heavyEntries > 0
      ? [`insert into coin_entries ${entryColumns} ${entryValues('f.f', 'seed-h', heavyEntries)}`]
      : []),
    `update users set coin = t.total, entry_count = t.n
     from (select user_id, sum(amount) as total, count(*) as n from coin_entries group by user_id) t
     where t.user_id = users.id and users.id >= ${first}`,
  ];
}

/** The dashboard's extra rows (SQLite): a platform, a service per seeded user, `runs` runs, a paid order per 5 runs. */
function sqliteExtras(db, { users, runs, now }) {
  const from = now - SPAN_DAYS * DAY;
  const firstUser = db
    .prepare(`select min(id) as id from users where user_account like 'u%' and invitation_code like 'S%'`)
    .get().id;
  db.prepare(
    `insert into platforms (kind, name, description, price, billing_unit, retry_limit, on_shelf, sort, created_at, updated_at)
     values ('xyb', '看板压测', '', 1, 'per_run', 0, 1, 0, ?, ?)`,
  ).run(from, from);
  const platform = db.prepare(`select max(id) as id from platforms`).get().id;
  db.prepare(
    `insert into services (user_id, platform_id, settings, state, created_at, updated_at)
     select id, ?, '{}', case when id % 4 = 0 then 'paused' else 'active' end, ?, ? from users where id >= ?`,
  ).run(platform, from, from, firstUser);
  const firstService = db.prepare(`select min(id) as id from services where platform_id = ?`).get(platform).id;
  db.prepare(
    `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?)
     insert into runs (service_id, user_id, platform_id, trigger, scheduled_at, day, state, next_attempt_at, created_at)
     select ? + i % ?, ? + i % ?, ?, 'schedule', t, strftime('%Y-%m-%d', t / 1000 + 8 * 3600, 'unixepoch'),
            case when i % 10 < 8 then 'succeeded' when i % 10 = 8 then 'failed' else 'skipped' end, t, t
     from (select i, ? + i * ? / ? as t from n)`,
  ).run(runs, firstService, users, firstUser, users, platform, from, SPAN_DAYS * DAY, runs);
  db.prepare(
    `insert into mall_packages (coin_name, coin_name_key, amount, add_coin, status, sort, created_at, updated_at)
     values ('压测套餐', '压测套餐', 1990, 100, 1, 0, ?, ?)`,
  ).run(from, from);
  const pkg = db.prepare(`select max(id) as id from mall_packages`).get().id;
  const orders = Math.max(1, Math.floor(runs / 5));
  db.prepare(
    `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?)
     insert into orders (order_no, user_id, package_id, coin_name, coin_name_key, amount, add_coin, status,
                         created_at, paid_at)
     select 'BENCH' || i, ? + i % ?, ?, '压测套餐', '压测套餐', 1990, 100,
            case when i % 50 = 0 then 'pending' else 'paid' end, ? + i * ? / ?,
            case when i % 50 = 0 then null else ? + i * ? / ? end
     from n`,
  ).run(orders, firstUser, users, pkg, from, SPAN_DAYS * DAY, orders, from, SPAN_DAYS * DAY, orders);
}

/**
 * Seeds a migrated database: `{sqlitePath}` or `{postgresUrl, schema}`. Answers {seconds, heavyUserId}. The server may
 * be running on it (SQLite in WAL mode lets it read meanwhile) or stopped.
 */
export async function seedScale({
  sqlitePath,
  postgresUrl,
  schema,
  users,
  entries,
  heavyEntries = 0,
  runs = 0,
  now = Date.now(),
}) {
  if (heavyEntries > entries) throw new BenchError('seedScale: more heavy entries than entries');
  const started = performance.now();
  const sql = statements({ users, entries, heavyEntries, now, postgres: !sqlitePath });
  let heavyUserId;
  if (sqlitePath) {
    const Database = createRequire(join(ROOT, 'package.json'))('better-sqlite3');
    const db = new Database(sqlitePath);
    try {
      db.pragma('journal_mode = WAL');
      // A bench database: a crash while seeding just means seeding again.
      db.pragma('synchronous = OFF');
      db.pragma('cache_size = -262144');
      const trigger = db.prepare(`select sql from sqlite_master where type = 'trigger' and name = ?`);
      const countTrigger = trigger.get('coin_entries_count')?.sql;
      db.transaction(() => {
        if (countTrigger) db.exec('drop trigger coin_entries_count');
        for (const statement of sql) db.exec(statement);
        if (countTrigger) db.exec(countTrigger);
        if (runs > 0) sqliteExtras(db, { users, runs, now });
      })();
      heavyUserId = db.prepare(`select min(id) as id from users where invitation_code like 'S%'`).get().id;
      db.exec('analyze');
    } finally {
      db.close();
    }
  } else {
    if (runs > 0) throw new BenchError('seedScale: the dashboard extras (runs) are seeded on SQLite only');
    const client = await pgClient(postgresUrl, schema);
    try {
      await client.query('begin');
      const hasTrigger =
        (await client.query(`select 1 from pg_trigger where tgname = 'coin_entries_count' and not tgisinternal`))
          .rowCount > 0;
      // Off for this transaction only: another connection inserting meanwhile would still count (none does).
      if (hasTrigger) await client.query('alter table coin_entries disable trigger coin_entries_count');
      for (const statement of sql) await client.query(statement);
      if (hasTrigger) await client.query('alter table coin_entries enable trigger coin_entries_count');
      await client.query('commit');
      heavyUserId = Number(
        (await client.query(`select min(id) as id from users where invitation_code like 'S%'`)).rows[0].id,
      );
      // What autovacuum would do soon after: statistics, and the visibility map index-only scans rely on.
      await client.query('vacuum analyze users');
      await client.query('vacuum analyze coin_entries');
    } finally {
      await client.end().catch(() => {});
    }
  }
  return { seconds: (performance.now() - started) / 1000, heavyUserId };
}
