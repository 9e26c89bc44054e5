import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { DatabaseConfig } from './config.js';
import { ConfigError, integer } from './lib/config-values.js';

// WORKERS=N: N copies of the same stateless server under node:cluster, sharing one port (the primary hands each new
// connection to a worker in turn). They are the processes the multi-process tests already run side by side on one
// PostgreSQL: sessions, rate limits, job claims and idempotency records live in the database, so any worker answers
// any request and a scheduled run is claimed by exactly one. The primary serves nothing: it starts the workers,
// starts again one that dies, and passes a SIGTERM on to all of them (each finishes its requests and runs first).

const MOST_WORKERS = 64;

/** WORKERS: a count, or `auto` for the machine's cores; more than one only on PostgreSQL. */
export function workerCount(env: NodeJS.ProcessEnv, database: DatabaseConfig): number {
  const raw = env.WORKERS?.trim();
  const count =
    raw === 'auto' ? Math.min(availableParallelism(), MOST_WORKERS) : integer('WORKERS', raw, 1, 1, MOST_WORKERS);
  if (count > 1 && database.kind === 'sqlite')
    throw new ConfigError(
      `WORKERS=${raw} needs PostgreSQL: SQLite has one writer, so several processes would only queue behind its ` +
        'write lock. Keep WORKERS=1 (the default; one process serves a few hundred requests a second), or set ' +
        'DATABASE_URL=postgres://… to run several workers.',
    );
  return count;
}

/** A worker that dies this soon after it started is not started again at once (a crash at start would loop). */
const QUICK_DEATH_MS = 5_000;
const RESTART_DELAY_MS = 1_000;

/** Runs `count` workers until SIGTERM or SIGINT, then waits for each to finish and exits. */
export function runPrimary(count: number, log: (message: string) => void): void {
  let stopping = false;
  const started = new Map<Worker, number>();
  const fork = () => started.set(cluster.fork(), Date.now());
  cluster.on('exit', (worker, code, signal) => {
    const since = started.get(worker) ?? 0;
    started.delete(worker);
    if (stopping) {
      if (started.size === 0) process.exit(0);
      return;
    }
    log(`worker ${worker.process.pid} exited (${signal || code}); starting another`);
    setTimeout(fork, Date.now() - since < QUICK_DEATH_MS ? RESTART_DELAY_MS * 5 : RESTART_DELAY_MS);
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping ${started.size} workers`);
    if (started.size === 0) process.exit(0);
    for (const worker of started.keys()) worker.process.kill('SIGTERM');
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  for (let i = 0; i < count; i++) fork();
}
