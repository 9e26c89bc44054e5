// `npm run bench` (after `npm run build`): what a second worker buys on PostgreSQL (WORKERS, src/server/cluster.ts).
// The same build runs with WORKERS=1 and WORKERS=2, each on a schema of its own, in interleaved rounds; each round
// measures GET /api/user/get/login (one session, wrk) and POST /api/user/transferCoin (wrk, every request a random
// payer and payee among funded users and a key of its own) at saturation, and reports req/s with the ratio
// WORKERS=2 / WORKERS=1 per round (median and range) and the CPU µs per request of the whole process group. Nothing is
// pinned: the workers need both cores, so the load generator shares them, and on a two-core machine the ratio is what
// one more core is worth with wrk beside it, not the ceiling of a bigger machine. Afterwards the ledger check of each
// schema must report no mismatch.
//
// Settings (environment, all optional and bounded; BENCH_QUICK=1: 1 round, 1 s warm-up, 2 s runs):
//   BENCH_DATABASE_URL  postgres://…@127.0.0.1/… (required: WORKERS>1 is PostgreSQL only)
//   BENCH_CONNECTIONS   concurrent connections         20   (1..256)
//   BENCH_WARMUP        warm-up seconds per target     2    (0..30)
//   BENCH_DURATION      measured seconds per run       5    (1..60)
//   BENCH_ROUNDS        interleaved rounds             3    (1..9)
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import {
  BenchError,
  ROOT,
  checkLoopbackPostgres,
  cleanup,
  createPostgresSchema,
  fmtRange,
  installSignalHandlers,
  interleavedRounds,
  processCpuSeconds,
  readClockTicks,
  runLoad,
  runMain,
  setting,
  startAppServer,
  startWatchdog,
  summary,
  table,
  writeResults,
  api,
} from './lib.mjs';

const TRANSFER = '/api/user/transferCoin';
const USERS = 20;

/** CPU seconds of a process and its children (the primary and its workers). */
function groupCpuSeconds(pid) {
  let children = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    // no /proc: the primary's own alone
  }
  return [pid, ...children.map(Number)].reduce((sum, p) => sum + (processCpuSeconds(p) ?? 0), 0);
}

/** The admin's session and funded users' sessions, on one server. */
async function prepare(base, adminPassword) {
  const { sid: admin } = await api(base, '/api/user/login', {
    body: { userAccount: 'admin', userPassword: adminPassword },
  });
  const password = `Bench-${randomBytes(6).toString('base64url')}`;
  const users = [];
  for (let i = 0; i < USERS; i++) {
    const userAccount = `wk_${i}_${randomBytes(3).toString('hex')}`;
    await api(base, '/api/user/add', { body: { userAccount, userPassword: password }, cookie: admin });
    await api(base, '/api/user/addCoin', {
      body: { userAccount, coin: 10_000_000, description: 'bench' },
      cookie: admin,
      key: `fund-${randomBytes(8).toString('hex')}`,
    });
    const { sid } = await api(base, '/api/user/login', { body: { userAccount, userPassword: password } });
    users.push({ userAccount, cookie: sid });
  }
  return { admin, users };
}

/** wrk's request function for transfers: a random payer and payee, 1 coin, a key never sent before. */
function transferLua(users) {
  const list = (field) => `{${users.map((u) => JSON.stringify(u[field])).join(',')}}`;
  return `
local accounts = ${list('userAccount')}
local cookies = ${list('cookie')}
local prefix = "${randomBytes(4).toString('hex')}"
local sequence = 0
request = function()
  sequence = sequence + 1
  local payer = math.random(#accounts)
  local payee = math.random(#accounts - 1)
  if payee >= payer then payee = payee + 1 end
  local headers = {
    ["content-type"] = "application/json",
    ["x-requested-with"] = "bench",
    ["cookie"] = cookies[payer],
    ["idempotency-key"] = "w" .. prefix .. string.format("%08x", sequence),
  }
  return wrk.format("POST", "${TRANSFER}", headers, '{"userAccount":"' .. accounts[payee] .. '","coin":1}')
end`;
}

async function main() {
  installSignalHandlers();
  readClockTicks();
  if (!process.env.BENCH_DATABASE_URL) {
    console.log('workers: skipped (set BENCH_DATABASE_URL=postgres://…: WORKERS>1 runs on PostgreSQL only)');
    writeResults({ workers: { skipped: 'no BENCH_DATABASE_URL' } });
    return;
  }
  const url = checkLoopbackPostgres(process.env.BENCH_DATABASE_URL);
  const settings = {
    connections: setting('BENCH_CONNECTIONS', 20, 1, 256, { integer: true }),
    warmup: setting('BENCH_WARMUP', 2, 0, 30, { integer: true, quick: 1 }),
    duration: setting('BENCH_DURATION', 5, 1, 60, { integer: true, quick: 2 }),
    rounds: setting('BENCH_ROUNDS', 3, 1, 9, { integer: true, quick: 1 }),
  };
  if (!existsSync(`${ROOT}/dist/server/main.js`)) throw new BenchError('run `npm run build` first');
  const watchdog = startWatchdog(4 * (settings.warmup + settings.rounds * settings.duration) * 2 + 600);
  const adminPassword = `Bench-${randomBytes(9).toString('base64url')}`;

  const groups = [];
  for (const workers of [1, 2]) {
    const schema = await createPostgresSchema(url, 'bench_workers');
    console.log(`starting the app with WORKERS=${workers} …`);
    const app = await startAppServer({
      label: `workers-${workers}`,
      databaseUrl: url,
      schema,
      adminPassword,
      env: { WORKERS: String(workers), SCHEDULER: 'off' },
    });
    const { admin, users } = await prepare(app.base, adminPassword);
    groups.push({ workers, app, admin, users, lua: transferLua(users) });
  }

  const targets = groups.flatMap((g) => [
    {
      group: g,
      label: `GET /api/user/get/login, WORKERS=${g.workers}`,
      path: '/api/user/get/login',
      headers: { cookie: g.admin },
    },
    { group: g, label: `POST ${TRANSFER}, WORKERS=${g.workers}`, path: TRANSFER, lua: g.lua },
  ]);
  const load = async (target, duration) => {
    const pid = target.group.app.child.pid;
    const before = groupCpuSeconds(pid);
    const result = await runLoad({
      url: `${target.group.app.base}${target.path}`,
      connections: settings.connections,
      duration,
      headers: target.headers,
      lua: target.lua,
    });
    const cpu = groupCpuSeconds(pid) - before;
    return { ...result, cpuMicrosPerRequest: result.requests ? (cpu / result.requests) * 1e6 : null };
  };
  for (const target of targets) if (settings.warmup > 0) await load(target, settings.warmup);
  const results = await interleavedRounds(
    settings.rounds,
    targets.map((target) => () => load(target, settings.duration)),
    (round, index) => console.log(`  round ${round + 1}: ${targets[index].label} …`),
  );

  const checks = [];
  for (const g of groups) {
    const { data } = await api(g.app.base, '/api/coin/check', { cookie: g.admin, method: 'GET' });
    checks.push({ workers: g.workers, ok: data.mismatches.length === 0, mismatches: data.mismatches.length });
  }
  const rows = targets.map((t, i) => [
    t.label,
    fmtRange(summary(results[i].map((r) => r.requestsPerSecond))),
    fmtRange(summary(results[i].map((r) => r.latencyUs.p99 / 1000)), 1),
    fmtRange(summary(results[i].map((r) => r.cpuMicrosPerRequest))),
    String(results[i].reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0)),
  ]);
  const ratios = ['get/login', 'transfers'].map((name, k) => ({
    name,
    ratio: summary(results[2 + k].map((r, round) => r.requestsPerSecond / results[k][round].requestsPerSecond)),
  }));
  console.log('');
  console.log(
    `WORKERS on PostgreSQL: ${settings.connections} connections, ${settings.duration} s runs, ${settings.rounds} interleaved round(s), nothing pinned (wrk shares the cores)`,
  );
  console.log(table(['target', 'req/s', 'p99 ms', 'CPU µs/req (all workers)', 'errors'], rows, [1, 2, 3, 4]));
  console.log('');
  console.log(
    table(
      ['WORKERS=2 / WORKERS=1', 'ratio req/s (per round)'],
      ratios.map((r) => [r.name, fmtRange(r.ratio, 2)]),
      [1],
    ),
  );
  console.log(`ledger check: ${checks.map((c) => `WORKERS=${c.workers} ${c.ok ? 'ok' : 'WRONG'}`).join(', ')}`);
  writeResults({
    workers: {
      settings,
      ratios,
      targets: targets.map((t, i) => ({ label: t.label, runs: results[i] })),
      ledger: checks,
    },
  });
  clearTimeout(watchdog);
  await cleanup();
  if (checks.some((c) => !c.ok)) throw new BenchError('a ledger check reported a mismatch');
}

runMain(main);
