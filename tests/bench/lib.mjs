// Helpers shared by the benches (tests/bench/*.mjs): settings, child processes that every exit path stops, the bare
// node:http server and the production app as children, CPU pinning, a load generator on its own core, CPU accounting,
// interleaved rounds, medians with ranges, the report table and dist/bench/results.json.
//
// Reusable pieces for an honest measurement on a small shared machine (run.mjs uses all of them):
//   cpuLayout()                 {server, load, pinned}: the core the server gets and the core(s) the load generator and
//                               this process get; pinned is false when `taskset` or a second core is missing (then
//                               nothing is pinned and the report says so). BENCH_SERVER_CPU / BENCH_LOAD_CPU override.
//   pinSelf(cpus)               moves this process (the orchestrator) onto the load generator's core(s).
//   startBareServer({cpu})      the bare node:http hello world, optionally pinned (`cpu: cpuLayout().server`).
//   startAppServer({cpu, …})    the production bundle, optionally pinned the same way.
//   loadGenerator()             'wrk' (/usr/bin/wrk or WRK on PATH) or 'autocannon' (the fallback; BENCH_LOADGEN forces).
//   runLoad({url, …})           one closed-loop run from a separate process on the load core; answers requests, req/s,
//                               latency in µs (p50/p90/p99/max), errors and non-2xx, plus the server's CPU µs per
//                               request when given `serverPid` (read from /proc/<pid>/stat around the run).
//   cpuMeter(pid)               () => CPU seconds since the meter was made (user + system, from /proc).
//   interleavedRounds(n, jobs)  runs every job once per round, the order rotated each round so no job always runs
//                               first or last; answers each job's per-round results.
//   summary(values)             {median, min, max, values}; fmtRange(summary, digits) prints "0.52 (0.49–0.55)".
//   median, fmt, table          the plain helpers the older benches already use.
//   setting(name, …, {quick})   a bounded BENCH_* number; `quick` is its default under BENCH_QUICK=1 (QUICK).
//   freePort()                  a free port from BENCH_PORTS (default 4300-4399), for every server a bench starts.
//   track(child)                a child spawned elsewhere, killed on every exit path like the ones started here.
//   pgClient(url, schema)       a pg client named after this bench, so cleanup can end its statements still running.
//
// Why wrk rather than autocannon: autocannon is JavaScript and spends about as much CPU per request as the bare
// node:http server it measures, so on a 2-core machine it saturates its own core first and the bare baseline (the
// denominator of every ratio) reads low. wrk (C, epoll) needs a fraction of that, so the server's core is the limit.
//
// Internal: `node tests/bench/lib.mjs --bare-server <port>` is the bare server child, so every bench compares against
// the same thing.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, get as httpGet } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const THIS_FILE = fileURLToPath(import.meta.url);
export const ROOT = resolve(dirname(THIS_FILE), '../..');
export const LOOPBACK = '127.0.0.1';
const HELLO = JSON.stringify({ code: 0, message: 'ok', data: 'hello' });

// ---------------------------------------------------------------------------------------------------------------------
// The bare server child: node:http, one JSON answer, exits when its parent goes away.

function runBareServer(port) {
  const body = Buffer.from(HELLO);
  const server = createHttpServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
  server.listen(port, LOOPBACK, () => process.send?.({ ready: true, port: server.address().port }));
  // The IPC channel closes when the parent exits, however it exits.
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGINT', () => process.exit(0));
}

// ---------------------------------------------------------------------------------------------------------------------
// Settings

/** A failure the operator can act on (bad setting, unreachable database, server that does not start). */
export class BenchError extends Error {}

/**
 * BENCH_QUICK=1: every bench's defaults shrink (fewer rounds, shorter runs, less data) so a change to the benches can
 * be checked end to end in minutes. Its figures are not the ones to report; an explicit BENCH_* setting still wins.
 */
export const QUICK = ['1', 'true', 'yes'].includes((process.env.BENCH_QUICK ?? '').toLowerCase());

/**
 * A bounded number from the environment; `integer: true` also refuses fractions; `quick` is the default under
 * BENCH_QUICK=1.
 */
export function setting(name, fallback, min, max, { integer = false, quick } = {}) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return QUICK && quick !== undefined ? quick : fallback;
  const value = Number(raw);
  if (!(integer ? Number.isInteger(value) : Number.isFinite(value)) || value < min || value > max) {
    throw new BenchError(`${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** BENCH_CPU_PROF=1: where the app's --cpu-prof profiles go; null when not asked for. */
export function cpuProfDirSetting() {
  return ['1', 'true', 'yes'].includes((process.env.BENCH_CPU_PROF ?? '').toLowerCase())
    ? join(ROOT, 'dist/bench/profiles')
    : null;
}

// ---------------------------------------------------------------------------------------------------------------------
// Child processes: tracked so every exit path kills them.

const children = new Set();
const cleanups = [];
let cleaningUp = false;

/** Tracks a child this bench spawned itself, so every exit path kills it too; answers the child. */
export function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Runs at cleanup, after the children are stopped, in the reverse order of registration. */
export function addCleanup(fn) {
  cleanups.push(fn);
}

function killAllSync() {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

export async function cleanup() {
  if (cleaningUp) return;
  cleaningUp = true;
  await Promise.all([...children].map((child) => stopChild(child)));
  for (const fn of cleanups.reverse()) {
    try {
      await fn();
    } catch (error) {
      console.error(`cleanup: ${error.message}`);
    }
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; the child is no longer tracked once it has exited. */
export function stopChild(child, graceMs = 5000) {
  if (child.exitCode !== null || child.signalCode !== null) {
    children.delete(child);
    return Promise.resolve();
  }
  return new Promise((done) => {
    const timer = setTimeout(() => {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }, graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      children.delete(child);
      done();
    });
    child.kill('SIGTERM');
  });
}

export function installSignalHandlers() {
  process.on('exit', killAllSync);
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ]) {
    process.on(signal, () => {
      console.error(`\n${signal}: stopping servers`);
      // A second signal, or a cleanup that hangs, still ends the run.
      setTimeout(() => process.exit(code), 8000).unref();
      cleanup().finally(() => process.exit(code));
    });
  }
}

/** Bounded: after `seconds`, everything is stopped and the bench exits 1. */
export function startWatchdog(seconds) {
  const watchdog = setTimeout(() => {
    console.error(`bench exceeded ${seconds} s; stopping`);
    cleanup().finally(() => process.exit(1));
  }, seconds * 1000);
  watchdog.unref();
  return watchdog;
}

function fail(error) {
  console.error(`bench failed: ${error instanceof BenchError ? error.message : (error?.stack ?? error)}`);
  cleanup().finally(() => process.exit(1));
}

/** Runs a bench's main; any failure, however it surfaces, is reported and stops the children. */
export function runMain(main) {
  process.on('unhandledRejection', fail);
  process.on('uncaughtException', fail);
  main().catch(fail);
}

const PORT_RANGE = /^(\d+)-(\d+)$/;
let nextPort;

/**
 * A free loopback port from BENCH_PORTS (a range such as 4300-4399; the default), so the bench's servers stay in the
 * ports this machine gave it and never meet another user's. Ports are handed out in turn, each checked free by
 * binding it; BENCH_PORTS=0 lets the kernel pick.
 */
export async function freePort() {
  const raw = process.env.BENCH_PORTS ?? '4300-4399';
  if (raw === '0') return bindable(0);
  const match = PORT_RANGE.exec(raw);
  if (!match || Number(match[1]) > Number(match[2]) || Number(match[2]) > 65535)
    throw new BenchError(`BENCH_PORTS must be a range such as 4300-4399 (or 0), got "${raw}"`);
  const [low, high] = [Number(match[1]), Number(match[2])];
  // Each bench script starts at a different point of the range (its pid), so two scripts running at once rarely race.
  nextPort ??= low + (process.pid % (high - low + 1));
  for (let tried = 0; tried <= high - low; tried++) {
    const port = nextPort;
    nextPort = port >= high ? low : port + 1;
    const got = await bindable(port).catch(() => null);
    if (got !== null) return got;
  }
  throw new BenchError(`no free port in BENCH_PORTS ${raw}`);
}

function bindable(port) {
  return new Promise((done, fail) => {
    const server = createNetServer();
    server.unref();
    server.on('error', fail);
    server.listen(port, LOOPBACK, () => {
      const { port: bound } = server.address();
      server.close(() => done(bound));
    });
  });
}

/**
 * Keeps the last lines a child printed (for failure reports) and forwards the first few, prefixed; with
 * `forwardStdout: false` only its stderr is forwarded (its stdout still counts for the tail).
 */
export function captureOutput(child, prefix, { forwardLimit = 30, forwardStdout = true } = {}) {
  const tail = [];
  let forwarded = 0;
  let suppressed = 0;
  const onData = (stream) => (chunk) => {
    for (const line of chunk.toString().split('\n')) {
      if (line.trim() === '') continue;
      tail.push(line);
      if (tail.length > 40) tail.shift();
      if (!stream) continue;
      if (forwarded < forwardLimit) {
        forwarded++;
        stream.write(`${prefix} ${line}\n`);
      } else {
        suppressed++;
      }
    }
  };
  child.stdout?.on('data', onData(forwardStdout ? process.stdout : null));
  child.stderr?.on('data', onData(process.stderr));
  return { tail, suppressed: () => suppressed };
}

/** The bare node:http hello world as a child; `cpu` (a taskset list such as '0') pins it. */
export async function startBareServer({ cpu } = {}) {
  const port = await freePort();
  const [command, args] = pinned(cpu, process.execPath, [THIS_FILE, '--bare-server', String(port)]);
  const child = spawn(command, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  children.add(child);
  const output = captureOutput(child, '[bare]');
  await new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new BenchError('bare server did not start within 10 s')), 10_000);
    child.once('message', (message) => {
      clearTimeout(timer);
      if (message?.ready) done();
      else fail(new BenchError('bare server sent an unexpected message'));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      fail(new BenchError(`bare server exited (${signal ?? code}) before it was ready:\n${output.tail.join('\n')}`));
    });
  });
  child.removeAllListeners('exit');
  return { name: 'bare', child, base: `http://${LOOPBACK}:${port}`, output };
}

/**
 * The production bundle as a child; resolves once it answers. `profilePrefix` names its --cpu-prof file;
 * `forwardStdout: false` keeps its stdout (the start banner) off this process's output; `env` adds settings; `cpu` (a
 * taskset list such as '0') pins it; `mainJs` runs another build of the server (a baseline to compare with).
 */
export async function startAppServer({
  label,
  databaseUrl,
  schema,
  adminPassword,
  cpuProfDir,
  profilePrefix = 'app',
  forwardStdout = true,
  env: extraEnv = {},
  cpu,
  mainJs = join(ROOT, 'dist/server/main.js'),
}) {
  const port = await freePort();
  const sessionSecret = randomBytes(32).toString('base64url');
  const env = { ...process.env };
  // The app's own settings come from this bench only, never from the caller's shell.
  for (const name of Object.keys(env)) {
    if (
      /^(DATABASE_|SESSION_SECRET|ADMIN_|LOG_|SMTP_|MAIL_|COOKIE_|TRUST_PROXY$|WEB_ROOT$|PORT$|HOST$|SCHEDULER|SANDBOX_|TZ_SITE$)/.test(
        name,
      )
    )
      delete env[name];
  }
  Object.assign(env, {
    NODE_ENV: 'production',
    HOST: LOOPBACK,
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    ...(schema ? { DATABASE_SCHEMA: schema } : {}),
    SESSION_SECRET: sessionSecret,
    ADMIN_ACCOUNT: 'admin',
    ADMIN_PASSWORD: adminPassword,
    // The benches sign the admin in with its password alone.
    ADMIN_2FA: 'optional',
    LOG_LEVEL: 'warn',
    // A bench's own settings for this run (the scheduler bench's, for one).
    ...extraEnv,
  });
  const args = [];
  if (cpuProfDir)
    args.push(
      '--cpu-prof',
      `--cpu-prof-dir=${cpuProfDir}`,
      `--cpu-prof-name=${profilePrefix}-${label}-${process.pid}.cpuprofile`,
    );
  args.push(mainJs);
  const [command, commandArgs] = pinned(cpu, process.execPath, args);
  const child = spawn(command, commandArgs, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const output = captureOutput(child, `[app:${label}]`, { forwardStdout });
  const base = `http://${LOOPBACK}:${port}`;

  let exited = null;
  child.once('exit', (code, signal) => (exited = signal ?? code));
  const deadline = Date.now() + 120_000; // a busy 2-core machine can take a minute to start it
  for (;;) {
    if (exited !== null)
      throw new BenchError(`app (${label}) exited (${exited}) before answering:\n${output.tail.join('\n')}`);
    if (Date.now() > deadline)
      throw new BenchError(`app (${label}) did not answer within 120 s:\n${output.tail.join('\n')}`);
    try {
      const response = await fetch(`${base}/api/basicInformation/get?id=1`, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status < 500) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name: label, child, base, output, sessionSecret };
}

// ---------------------------------------------------------------------------------------------------------------------
// CPU accounting

let clockTicks = 100;
export function readClockTicks() {
  try {
    clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    // no getconf: the usual 100 Hz
  }
}

/** CPU seconds a process has used (user + system), from /proc; null where there is no /proc. */
export function processCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks; // utime, stime
  } catch {
    return null;
  }
}

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** CPU seconds a process has used since this call, as a function; null readings where there is no /proc. */
export function cpuMeter(pid) {
  const start = processCpuSeconds(pid);
  return () => {
    const now = processCpuSeconds(pid);
    return start === null || now === null ? null : now - start;
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Pinning: the server on one core, the load generator (and this process) on the other(s).

let tasksetPath;
function taskset() {
  if (tasksetPath === undefined) {
    tasksetPath = ['/usr/bin/taskset', '/bin/taskset'].find((path) => existsSync(path)) ?? null;
  }
  return tasksetPath;
}

/** [command, args], wrapped in `taskset -c <cpu>` when a core is asked for (taskset execs, so the pid is the child's). */
export function pinned(cpu, command, args) {
  if (cpu === undefined || cpu === null) return [command, args];
  const path = taskset();
  if (!path) throw new BenchError('taskset is missing; cannot pin');
  return [path, ['-c', String(cpu), command, ...args]];
}

const CPU_LIST = /^\d+([-,]\d+)*$/;

/**
 * Which core the server gets and which the load generator gets. Pinned only with taskset and at least 2 cores; the
 * last core goes to the server (core 0 takes most interrupts), the others to the load generator and the orchestrator.
 */
export function cpuLayout() {
  const count = cpus().length;
  const fromEnv = (name) => {
    const value = process.env[name];
    if (value === undefined || value === '') return undefined;
    if (!CPU_LIST.test(value))
      throw new BenchError(`${name} must be a taskset CPU list such as 1 or 0-2, got "${value}"`);
    return value;
  };
  const server = fromEnv('BENCH_SERVER_CPU');
  const load = fromEnv('BENCH_LOAD_CPU');
  if (!taskset() || count < 2) {
    return { pinned: false, server: null, load: null, why: taskset() ? 'only one CPU' : 'no taskset' };
  }
  return {
    pinned: true,
    server: server ?? String(count - 1),
    load: load ?? (count === 2 ? '0' : `0-${count - 2}`),
    why: null,
  };
}

/** Moves this process (and the threads it has) onto `cpu`, so the orchestrator never competes with the server. */
export function pinSelf(cpu) {
  if (!cpu || !taskset()) return false;
  try {
    execFileSync(taskset(), ['-a', '-cp', String(cpu), String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Load: one closed-loop run from a separate process.

const WRK_CANDIDATES = ['/usr/bin/wrk', '/usr/local/bin/wrk'];

/** 'wrk' when installed (or BENCH_LOADGEN=wrk), else 'autocannon'; BENCH_LOADGEN=autocannon forces the fallback. */
export function loadGenerator() {
  const forced = process.env.BENCH_LOADGEN;
  if (forced && forced !== 'wrk' && forced !== 'autocannon')
    throw new BenchError(`BENCH_LOADGEN must be wrk or autocannon, got "${forced}"`);
  const wrk = WRK_CANDIDATES.find((path) => existsSync(path));
  if (forced === 'wrk' && !wrk) throw new BenchError('BENCH_LOADGEN=wrk but wrk is not installed');
  if (forced === 'autocannon' || !wrk) return { name: 'autocannon', path: null };
  return { name: 'wrk', path: wrk };
}

// wrk's done() prints one JSON line; latency figures are in microseconds already.
const WRK_REPORT = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '\\nBENCH_JSON {"requests":%d,"durationUs":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,' ..
    '"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}\\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
`;

let wrkScriptDir;
function wrkScript(lua) {
  wrkScriptDir ??= mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  if (!cleanups.includes(removeWrkScripts)) cleanups.push(removeWrkScripts);
  const path = join(wrkScriptDir, `${randomBytes(6).toString('hex')}.lua`);
  writeFileSync(path, `${lua}\n${WRK_REPORT}`);
  return path;
}
function removeWrkScripts() {
  if (wrkScriptDir) rmSync(wrkScriptDir, { recursive: true, force: true });
  wrkScriptDir = undefined;
}

const luaString = (value) =>
  `"${String(value)
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(/\n/g, '\\n')}"`;

function runWrk(path, { url, connections, duration, headers, method, body, cpu, lua, timeout = 10 }) {
  const setup = [
    method ? `wrk.method = ${luaString(method)}` : '',
    body !== undefined ? `wrk.body = ${luaString(body)}` : '',
    ...Object.entries(headers ?? {}).map(([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`),
    lua ?? '',
  ].join('\n');
  const script = wrkScript(setup);
  // One thread: it has one core to itself, and more threads on one core only add switching.
  const [command, args] = pinned(cpu, path, [
    '-t1',
    `-c${connections}`,
    `-d${duration}s`,
    '--timeout',
    `${timeout}s`,
    '-s',
    script,
    url,
  ]);
  return new Promise((done, fail) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.once('error', (error) => fail(new BenchError(`wrk did not start: ${error.message}`)));
    child.once('exit', (code, signal) => {
      children.delete(child);
      const line = out.split('\n').find((l) => l.startsWith('BENCH_JSON '));
      if (code !== 0 || !line) {
        fail(new BenchError(`wrk failed (${signal ?? code}) on ${url}:\n${(err || out).slice(-1000)}`));
        return;
      }
      const r = JSON.parse(line.slice('BENCH_JSON '.length));
      const seconds = r.durationUs / 1e6;
      done({
        requests: r.requests,
        seconds,
        requestsPerSecond: r.requests / seconds,
        latencyUs: { p50: r.p50, p90: r.p90, p99: r.p99, max: r.max, mean: r.mean },
        bytesPerSecond: r.bytes / seconds,
        // wrk counts a status >= 400 as a "status" error; the rest are socket errors and timeouts.
        non2xx: r.status,
        errors: r.connect + r.read + r.write,
        timeouts: r.timeout,
      });
    });
  });
}

let autocannonModule;
async function runAutocannon({ url, connections, duration, headers, method, body }) {
  autocannonModule ??= (await import('autocannon')).default;
  // In this process: it cannot be pinned apart from the orchestrator, which is why it is only the fallback.
  const result = await autocannonModule({
    url,
    connections,
    duration,
    timeout: 10,
    // autocannon takes an explicit undefined as a value (and refuses an undefined method).
    ...(headers ? { headers } : {}),
    ...(method ? { method } : {}),
    ...(body !== undefined ? { body } : {}),
  });
  return {
    requests: result.requests.total,
    seconds: result.duration,
    requestsPerSecond: result.requests.total / result.duration,
    latencyUs: {
      p50: result.latency.p50 * 1000,
      p90: result.latency.p90 * 1000,
      p99: result.latency.p99 * 1000,
      max: result.latency.max * 1000,
      mean: result.latency.average * 1000,
    },
    bytesPerSecond: result.throughput.average,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/**
 * One closed-loop load run: `connections` keep one request each in flight for `duration` seconds. With wrk the load
 * runs in its own process on `cpu` (cpuLayout().load). `serverPid` adds the server's CPU µs per request over the run
 * and its CPU share of one core. `lua` (wrk only) is extra script, e.g. a request() that varies a header per request.
 */
export async function runLoad({
  url,
  connections = 10,
  duration = 5,
  headers,
  method,
  body,
  cpu,
  serverPid,
  lua,
  timeout,
}) {
  const generator = loadGenerator();
  const meter = serverPid ? cpuMeter(serverPid) : null;
  const result =
    generator.name === 'wrk'
      ? await runWrk(generator.path, { url, connections, duration, headers, method, body, cpu, lua, timeout })
      : await runAutocannon({ url, connections, duration, headers, method, body });
  const serverCpuSeconds = meter ? meter() : null;
  return {
    ...result,
    loadGenerator: generator.name,
    serverCpuSeconds,
    serverCpuMicrosPerRequest:
      serverCpuSeconds === null || result.requests === 0 ? null : (serverCpuSeconds / result.requests) * 1e6,
    serverCpuShare: serverCpuSeconds === null ? null : serverCpuSeconds / result.seconds,
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Rounds and statistics

/**
 * Runs each job once per round, `rounds` times; round r starts at job r (mod the job count), so slow drift on a shared
 * machine (another process waking up, thermal limits) lands on every job alike. Answers results[jobIndex][round].
 */
export async function interleavedRounds(rounds, jobs, onRun = () => {}) {
  const results = jobs.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < jobs.length; k++) {
      const index = (round + k) % jobs.length;
      onRun(round, index);
      results[index][round] = await jobs[index](round);
    }
  }
  return results;
}

/** Median and range of numbers (nulls ignored); all null when there are none. */
export function summary(values) {
  const present = values.filter((v) => v !== null && v !== undefined && Number.isFinite(v));
  if (present.length === 0) return { median: null, min: null, max: null, values };
  return { median: median(present), min: Math.min(...present), max: Math.max(...present), values };
}

/** "median (min–max)", or just the median when all rounds agree or there was one round. */
export function fmtRange(s, digits = 0) {
  if (s.median === null) return '-';
  const m = fmt(s.median, digits);
  const lo = fmt(s.min, digits);
  const hi = fmt(s.max, digits);
  return s.values.length > 1 && lo !== hi ? `${m} (${lo}–${hi})` : m;
}

// ---------------------------------------------------------------------------------------------------------------------
// Report

export function table(headers, rows, rightAligned) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells
      .map((c, i) => (rightAligned.includes(i) ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i])))
      .join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export const fmt = (value, digits = 0) => (value === null || value === undefined ? '-' : value.toFixed(digits));

/** The machine a report was measured on, the first keys of every report in results.json. */
export function machine() {
  return {
    measuredAt: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? null,
  };
}

export const RESULTS_FILE = join(ROOT, 'dist/bench/results.json');

/** Sets a bench's own top-level keys of RESULTS_FILE; the other benches (API, page weight, transfers) keep theirs. */
export function writeResults(entries) {
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  let existing = {};
  if (existsSync(RESULTS_FILE)) {
    try {
      existing = JSON.parse(readFileSync(RESULTS_FILE, 'utf8'));
    } catch {
      existing = {};
    }
  }
  Object.assign(existing, entries);
  writeFileSync(RESULTS_FILE, JSON.stringify(existing, null, 2) + '\n');
}

// ---------------------------------------------------------------------------------------------------------------------
// PostgreSQL

export function checkLoopbackPostgres(raw) {
  let url;
  try {
    url = new URL(raw);
  } catch {
    throw new BenchError('BENCH_DATABASE_URL is not a URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new BenchError('BENCH_DATABASE_URL must be postgres://…');
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname))
    throw new BenchError('BENCH_DATABASE_URL must point at a loopback address');
  if (url.searchParams.size > 0)
    throw new BenchError('BENCH_DATABASE_URL must not carry query options; the bench picks the schema');
  return raw;
}

/** Every connection this bench opens itself carries this name, so cleanup can end one that is still busy. */
export const PG_APPLICATION_NAME = `bench-${process.pid}`;

/** A pg client of this bench (its application_name set), connected; `schema` sets the search path. */
export async function pgClient(url, schema) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: 5000,
    application_name: PG_APPLICATION_NAME,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  await client.connect();
  return client;
}

/**
 * A schema of its own on the PostgreSQL server (`<prefix>_<pid>_<random>`), dropped when the bench ends however it
 * ends. Before the drop, any statement this bench still has running (a seed cut short by a signal or the watchdog:
 * the server keeps running it after the client is gone) is ended, or the drop would wait for its locks; the drop
 * itself gives up after 30 s rather than hang the exit.
 */
export async function createPostgresSchema(url, prefix = 'bench') {
  const schema = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const run = async (...statements) => {
    let client;
    try {
      client = await pgClient(url);
      for (const statement of statements) await client.query(statement);
    } finally {
      await client?.end().catch(() => {});
    }
  };
  try {
    await run(`create schema ${schema}`);
  } catch (error) {
    throw new BenchError(`cannot create a schema on BENCH_DATABASE_URL: ${error.message}`);
  }
  cleanups.push(() =>
    run(
      `select pg_terminate_backend(pid) from pg_stat_activity
       where application_name = '${PG_APPLICATION_NAME}' and pid <> pg_backend_pid()`,
      `set lock_timeout = 30000`,
      `drop schema if exists ${schema} cascade`,
    ),
  );
  return schema;
}

if (process.argv[1] === THIS_FILE && process.argv[2] === '--bare-server') runBareServer(Number(process.argv[3]));

// ---------------------------------------------------------------------------------------------------------------------
// Setup calls over the API (outside any measured load)

/**
 * One API call for a bench's setup: JSON in and out, the session cookie and an Idempotency-Key when given. Anything
 * but the success envelope stops the bench. Answers the data and the `sid` cookie a login set.
 */
export async function api(base, path, { body, cookie, key, method = 'POST' } = {}) {
  const headers = { 'x-requested-with': 'bench' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (cookie) headers.cookie = cookie;
  if (key) headers['idempotency-key'] = key;
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BenchError(`${path} answered HTTP ${response.status}: ${text.slice(0, 200)}`);
  }
  if (json.code !== 0) throw new BenchError(`${path} answered HTTP ${response.status} ${json.code} ${json.message}`);
  const sid = response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0].trim())
    .find((c) => c.startsWith('sid='));
  return { data: json.data, sid };
}

// ---------------------------------------------------------------------------------------------------------------------
// The event stream (GET /api/events), as a phone holds it

/**
 * One stream over its own connection (no agent: each stream is a socket, as each phone's is). `onEvent` hears each
 * event's data; resolves once `ready` has arrived.
 */
export function openStream(base, cookie, onEvent = () => {}) {
  return new Promise((resolve, reject) => {
    const request = httpGet(`${base}/api/events`, { agent: false, headers: { cookie, accept: 'text/event-stream' } });
    request.on('error', reject);
    request.on('response', (response) => {
      if (response.statusCode !== 200) {
        reject(new BenchError(`GET /api/events answered ${response.statusCode}`));
        response.resume();
        return;
      }
      response.setEncoding('utf8');
      let buffer = '';
      let ready = false;
      response.on('data', (chunk) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = frame
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('');
          if (!data) continue;
          const event = JSON.parse(data);
          if (event.kind === 'ready' && !ready) {
            ready = true;
            resolve(request);
          } else onEvent(event, performance.now());
        }
      });
    });
  });
}
