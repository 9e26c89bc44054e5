// `npm run bench` (after `npm run build`): the event stream (GET /api/events) in the production bundle. Two figures:
// - the idle cost of BENCH_STREAMS open streams: the server's RSS before and with them open, and its CPU over
//   BENCH_IDLE_SECONDS with nothing happening but the heartbeat (LIVE_HEARTBEAT_MS, 25 s by default);
// - the delay from commit to delivery at BENCH_EVENT_RATE events a second: a user's 'run now' (one transaction that
//   enqueues the run and publishes `run planned` with its id) sent at a fixed rate while the streams stay open; each
//   event is matched to its request by the run id. Measured from the moment the request is sent, so the figure is an
//   upper bound of commit → delivery (it includes the request's own handling before its commit).
// The scheduler is off, so nothing else moves. Figures are reported, never enforced.
//
// Settings (environment, all optional and bounded):
//   BENCH_STREAMS        streams held open                       1000 (10..20000)
//   BENCH_STREAM_USERS   users the streams belong to             50   (1..1000)
//   BENCH_IDLE_SECONDS   idle period the CPU is measured over    30   (2..600)
//   BENCH_EVENT_RATE     events per second for the delay         100  (1..2000)
//   BENCH_EVENTS         events sent for the delay               1000 (10..100000)
//   BENCH_DATABASE_URL   postgres://…@127.0.0.1/… to also measure PostgreSQL (NOTIFY; a private schema, dropped after)
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BenchError,
  RESULTS_FILE,
  addCleanup,
  checkLoopbackPostgres,
  cleanup,
  cpuMeter,
  createPostgresSchema,
  fmt,
  installSignalHandlers,
  machine,
  runMain,
  setting,
  startAppServer,
  startWatchdog,
  stopChild,
  table,
  writeResults,
  api,
  openStream,
} from './lib.mjs';

/** The server's resident memory in MB, from /proc. */
function rssMb(pid) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : null;
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function measure(target, settings) {
  const adminPassword = `Bench-${randomBytes(9).toString('base64url')}`;
  const app = await startAppServer({
    label: target.kind,
    databaseUrl: target.databaseUrl,
    schema: target.schema,
    adminPassword,
    forwardStdout: false,
    env: {
      SCHEDULER: 'off',
      LIVE_MAX_STREAMS: String(settings.streams + 10),
      LIVE_MAX_STREAMS_PER_USER: String(Math.ceil(settings.streams / settings.users) + 2),
    },
  });
  const requests = [];
  try {
    const { sid: admin } = await api(app.base, '/api/user/login', {
      body: { userAccount: 'admin', userPassword: adminPassword },
    });
    const { data: platformId } = await api(app.base, '/api/platform/add', {
      cookie: admin,
      body: { kind: 'gxy', name: '事件流基准', price: 1, billingUnit: 'per_run', retryLimit: 0, status: 1 },
    });
    const password = `Bench-${randomBytes(6).toString('base64url')}`;
    const cookies = [];
    for (let i = 0; i < settings.users; i++) {
      const userAccount = `ev_${i}_${randomBytes(3).toString('hex')}`.slice(0, 16);
      await api(app.base, '/api/user/add', { cookie: admin, body: { userAccount, userPassword: password } });
      const { sid } = await api(app.base, '/api/user/login', { body: { userAccount, userPassword: password } });
      cookies.push(sid);
    }
    // The user whose runs carry the delay, with one of the streams.
    const { data: service } = await api(app.base, '/api/service/save', {
      cookie: cookies[0],
      body: { platformId, settings: { days: [1], checkInTime: '03:00', notify: 'none' } },
    });
    await api(app.base, '/api/service/start', { cookie: cookies[0], key: randomUUID(), body: { id: service.id } });

    await sleep(1000);
    const rssBefore = rssMb(app.child.pid);
    const received = new Map();
    requests.push(
      await openStream(app.base, cookies[0], (event, at) => {
        if (event.kind === 'run' && event.action === 'planned') received.set(event.runId, at);
      }),
    );
    for (let i = 1; i < settings.streams; i += 50) {
      const batch = [];
      for (let j = i; j < Math.min(i + 50, settings.streams); j++)
        batch.push(openStream(app.base, cookies[j % settings.users]));
      requests.push(...(await Promise.all(batch)));
    }
    await sleep(2000);
    const cpu = cpuMeter(app.child.pid);
    const idleStarted = performance.now();
    await sleep(settings.idleSeconds * 1000);
    const idleCpuSeconds = cpu();
    const idleWall = (performance.now() - idleStarted) / 1000;
    const rssOpen = rssMb(app.child.pid);

    // The delay: 'run now' at a fixed rate, each matched to its event by the run id.
    const sentAt = new Map();
    const answered = [];
    const interval = 1000 / settings.rate;
    const started = performance.now();
    for (let i = 0; i < settings.events; i++) {
      const due = started + i * interval;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const sent = performance.now();
      answered.push(
        api(app.base, '/api/service/runNow', {
          cookie: cookies[0],
          key: randomUUID(),
          body: { id: service.id },
        }).then(({ data }) => sentAt.set(data.id, sent)),
      );
    }
    await Promise.all(answered);
    const sendSeconds = (performance.now() - started) / 1000;
    const deadline = Date.now() + 10_000;
    while (received.size < settings.events && Date.now() < deadline) await sleep(50);
    const delays = [...sentAt].filter(([id]) => received.has(id)).map(([id, sent]) => received.get(id) - sent);
    delays.sort((a, b) => a - b);
    const lost = settings.events - delays.length;
    if (lost > 0) throw new BenchError(`${lost} of ${settings.events} events never arrived`);
    return {
      database: target.kind,
      streams: settings.streams,
      rssBeforeMb: rssBefore,
      rssOpenMb: rssOpen,
      rssPerStreamKb: rssBefore !== null && rssOpen !== null ? ((rssOpen - rssBefore) * 1024) / settings.streams : null,
      idleCpuPercent: idleCpuSeconds === null ? null : (100 * idleCpuSeconds) / idleWall,
      eventsPerSecond: settings.events / sendSeconds,
      delayP50Ms: percentile(delays, 50),
      delayP99Ms: percentile(delays, 99),
      delayMaxMs: delays.at(-1),
    };
  } finally {
    for (const request of requests) request.destroy();
    await stopChild(app.child);
  }
}

runMain(async () => {
  installSignalHandlers();
  startWatchdog(1800);
  const settings = {
    streams: setting('BENCH_STREAMS', 1000, 10, 20_000, { integer: true, quick: 200 }),
    users: setting('BENCH_STREAM_USERS', 50, 1, 1000, { integer: true, quick: 10 }),
    idleSeconds: setting('BENCH_IDLE_SECONDS', 30, 2, 600, { quick: 5 }),
    rate: setting('BENCH_EVENT_RATE', 100, 1, 2000),
    events: setting('BENCH_EVENTS', 1000, 10, 100_000, { integer: true, quick: 200 }),
  };
  const targets = [];
  const dir = mkdtempSync(join(tmpdir(), 'bench-events-'));
  addCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'bench.db');
  targets.push({ kind: 'sqlite', path, databaseUrl: `sqlite:${path}` });
  if (process.env.BENCH_DATABASE_URL) {
    const url = checkLoopbackPostgres(process.env.BENCH_DATABASE_URL);
    targets.push({ kind: 'postgres', url, databaseUrl: url, schema: await createPostgresSchema(url, 'bench_events') });
  }
  const results = [];
  for (const target of targets) results.push(await measure(target, settings));
  console.log(
    `\nEvent stream: ${settings.streams} streams of ${settings.users} users idle for ${settings.idleSeconds} s, then ` +
      `${settings.events} events at ${settings.rate}/s (delay from the request that commits each to its delivery)`,
  );
  console.log(
    table(
      ['database', 'RSS MB before → open', 'KB/stream', 'idle CPU %', 'events/s', 'p50 ms', 'p99 ms', 'max ms'],
      results.map((r) => [
        r.database,
        `${fmt(r.rssBeforeMb, 1)} → ${fmt(r.rssOpenMb, 1)}`,
        fmt(r.rssPerStreamKb, 1),
        fmt(r.idleCpuPercent, 2),
        fmt(r.eventsPerSecond, 1),
        fmt(r.delayP50Ms, 1),
        fmt(r.delayP99Ms, 1),
        fmt(r.delayMaxMs, 1),
      ]),
      [2, 3, 4, 5, 6, 7],
    ),
  );
  writeResults({ events: { machine: machine(), settings, results } });
  console.log(`\nwritten to ${RESULTS_FILE}`);
  await cleanup();
});
