// Helpers shared by the benches (tests/bench/run.mjs, transfers.mjs, page-weight.mjs): settings, child processes that
// every exit path stops, the bare node:http server and the production app as children, CPU accounting, the report
// table and dist/bench/results.json.
//
// Internal: `node tests/bench/lib.mjs --bare-server <port>` is the bare server child, so every bench compares against
// the same thing.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { cpus } from 'node:os';
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

/** A bounded number from the environment; `integer: true` also refuses fractions. */
export function setting(name, fallback, min, max, { integer = false } = {}) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
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

/** A port the kernel just handed out on loopback; the server binds it a moment later. */
export function freePort() {
  return new Promise((done, fail) => {
    const server = createNetServer();
    server.unref();
    server.on('error', fail);
    server.listen(0, LOOPBACK, () => {
      const { port } = server.address();
      server.close(() => done(port));
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

export async function startBareServer() {
  const port = await freePort();
  const child = spawn(process.execPath, [THIS_FILE, '--bare-server', String(port)], {
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
 * `forwardStdout: false` keeps its stdout (the start banner) off this process's output; `env` adds settings.
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
}) {
  const port = await freePort();
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
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    ADMIN_ACCOUNT: 'admin',
    ADMIN_PASSWORD: adminPassword,
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
  args.push(join(ROOT, 'dist/server/main.js'));
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const output = captureOutput(child, `[app:${label}]`, { forwardStdout });
  const base = `http://${LOOPBACK}:${port}`;

  let exited = null;
  child.once('exit', (code, signal) => (exited = signal ?? code));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited !== null)
      throw new BenchError(`app (${label}) exited (${exited}) before answering:\n${output.tail.join('\n')}`);
    if (Date.now() > deadline)
      throw new BenchError(`app (${label}) did not answer within 60 s:\n${output.tail.join('\n')}`);
    try {
      const response = await fetch(`${base}/api/basicInformation/get?id=1`, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status < 500) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name: label, child, base, output };
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

/** A schema of its own on the PostgreSQL server (`<prefix>_<pid>_<random>`), dropped when the bench ends however it ends. */
export async function createPostgresSchema(url, prefix = 'bench') {
  const { default: pg } = await import('pg');
  const schema = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const run = async (sql) => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
      await client.query(sql);
    } finally {
      await client.end().catch(() => {});
    }
  };
  try {
    await run(`create schema ${schema}`);
  } catch (error) {
    throw new BenchError(`cannot create a schema on BENCH_DATABASE_URL: ${error.message}`);
  }
  cleanups.push(() => run(`drop schema if exists ${schema} cascade`));
  return schema;
}

if (process.argv[1] === THIS_FILE && process.argv[2] === '--bare-server') runBareServer(Number(process.argv[3]));
