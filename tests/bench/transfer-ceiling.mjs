// The physical limit of a coin transfer on SQLite, for tests/bench/transfers.mjs: better-sqlite3 alone, no HTTP, no
// framework, on the very database file (schema, triggers, indexes, users, pragmas) the app was just measured on,
// pinned to the core the app server had. Two shapes of the same transfer (1 coin between two bench users, a fresh
// idempotency key each time):
//   twelve   the app's former path as raw prepared calls: session lookup, key lookup, BEGIN, insert key, payee lookup,
//            site cap lookup, two balance updates, two entry inserts, update key with the result, COMMIT
//   five     the least a transfer needs, one synchronous transaction of five statements: payee lookup, two balance
//            updates, both entries in one INSERT, the key with its result
// Run as a child (`node transfer-ceiling.mjs --child <db> <seconds> <mode>`) so its CPU is its own; it prints one JSON line.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { pinned, track } from './lib.mjs';

const THIS_FILE = fileURLToPath(import.meta.url);
export const CEILING_MODES = ['twelve', 'five'];

function open(path) {
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const db = new Database(path);
  // The app's pragmas (src/server/db/database.ts).
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 20');
  return db;
}

function prepare(db) {
  return {
    session: db.prepare(
      `select s.user_id, s.expires_at, s.revoked_at, u.user_account, u.user_name, u.user_role, u.status, u.coin
       from sessions s join users u on u.id = s.user_id where s.token_hash = ?`,
    ),
    findKey: db.prepare('select * from idempotency_keys where actor_id = ? and key = ?'),
    begin: db.prepare('begin immediate'),
    commit: db.prepare('commit'),
    insertKey: db.prepare(
      'insert into idempotency_keys (actor_id, key, operation, request_hash, response, created_at) values (?, ?, ?, ?, ?, ?)',
    ),
    payee: db.prepare('select * from users where deleted_at is null and lower(user_account) = ?'),
    site: db.prepare('select * from site_information where id = 1'),
    apply: db.prepare('update users set coin = coin + ? where id = ? and coin + ? >= 0 returning coin'),
    entry: db.prepare(
      `insert into coin_entries (user_id, amount, balance_after, kind, counterparty_id, reference, description, actor_id, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    entries: db.prepare(
      `insert into coin_entries (user_id, amount, balance_after, kind, counterparty_id, reference, description, actor_id, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    updateKey: db.prepare('update idempotency_keys set response = ? where actor_id = ? and key = ?'),
  };
}

function child(path, seconds, mode) {
  const db = open(path);
  const s = prepare(db);
  const users = db.prepare("select id, user_account from users where user_account like 'bench%' order by id").all();
  const sessions = db.prepare('select token_hash from sessions limit 50').pluck().all();
  if (users.length < 2) throw new Error('the database has fewer than two bench users');
  const prefix = `c${randomBytes(4).toString('hex')}`;
  let n = 0;
  const pick = () => {
    const payer = users[n % users.length];
    const payee = users[(n + 1 + (n % (users.length - 1))) % users.length];
    return payer.id === payee.id ? [payer, users[(n + 1) % users.length]] : [payer, payee];
  };
  /** Balance updates in ascending user id, as the ledger does. */
  const move = (payer, payee, now, key) => {
    const [first, second] = payer.id < payee.id ? [payer, payee] : [payee, payer];
    const b1 = s.apply.get(first === payer ? -1 : 1, first.id, first === payer ? -1 : 1).coin;
    const b2 = s.apply.get(second === payer ? -1 : 1, second.id, second === payer ? -1 : 1).coin;
    return { first, second, b1, b2, reference: `T${key}` };
  };
  const shapes = {
    twelve() {
      const [payer, payee] = pick();
      const key = `${prefix}${(n++).toString(36)}`;
      const now = Date.now();
      s.session.get(sessions[n % sessions.length] ?? '');
      s.findKey.get(payer.id, key);
      s.begin.run();
      s.insertKey.run(payer.id, key, 'transfer', 'h'.repeat(64), '', now);
      s.payee.get(payee.user_account.toLowerCase());
      s.site.get();
      const m = move(payer, payee, now, key);
      s.entry.run(
        m.first.id,
        m.first === payer ? -1 : 1,
        m.b1,
        'transfer_out',
        m.second.id,
        m.reference,
        'x',
        payer.id,
        now,
      );
      s.entry.run(
        m.second.id,
        m.second === payer ? -1 : 1,
        m.b2,
        'transfer_in',
        m.first.id,
        m.reference,
        'x',
        payer.id,
        now,
      );
      s.updateKey.run('{"coin":1}', payer.id, key);
      s.commit.run();
    },
    five() {
      s.begin.run();
      one();
      s.commit.run();
    },
  };
  function one() {
    const [payer, payee] = pick();
    const key = `${prefix}${(n++).toString(36)}`;
    const now = Date.now();
    s.payee.get(payee.user_account.toLowerCase());
    const m = move(payer, payee, now, key);
    s.entries.run(
      m.first.id,
      m.first === payer ? -1 : 1,
      m.b1,
      'transfer_out',
      m.second.id,
      m.reference,
      'x',
      payer.id,
      now,
      m.second.id,
      m.second === payer ? -1 : 1,
      m.b2,
      'transfer_in',
      m.first.id,
      m.reference,
      'x',
      payer.id,
      now,
    );
    s.insertKey.run(payer.id, key, 'transfer', 'h'.repeat(64), '{"coin":1}', now);
  }
  const run = shapes[mode];
  // Warm-up, then the measured window.
  const warmEnd = performance.now() + 500;
  while (performance.now() < warmEnd) run();
  const startN = n;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  while (performance.now() < end) run();
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const transfers = n - startN;
  db.close();
  process.stdout.write(
    JSON.stringify({
      mode,
      transfersPerSecond: transfers / elapsed,
      cpuMicrosPerTransfer: (cpu.user + cpu.system) / transfers,
      transfers,
      totalTransfers: n,
    }) + '\n',
  );
}

/**
 * Runs one shape for `seconds` against the database file at `path` in a child pinned (lib.mjs pinned(), taskset) to `cpu` when given
 * (null: not pinned); the child is tracked, so any exit of the bench stops it.
 * The caller must make sure nothing else writes the file meanwhile (the app is idle between runs).
 */
export function measureCeiling(path, seconds, mode, cpu) {
  const args = [THIS_FILE, '--child', path, String(seconds), mode];
  const [command, argv] = pinned(cpu, process.execPath, args);
  return new Promise((resolve, reject) => {
    const c = track(spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] }));
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    c.on('exit', (code) => {
      if (code !== 0) reject(new Error(`transfer ceiling (${mode}) failed: ${err.slice(-500)}`));
      else resolve(JSON.parse(out.trim().split('\n').pop()));
    });
  });
}

if (process.argv[2] === '--child') child(process.argv[3], Number(process.argv[4]), process.argv[5]);
