import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { DatabaseConfig } from './config/config.js';
import { ConfigError, integer } from './lib/config-values.js';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';

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

// /metrics with several workers (METRICS_PORT): the primary asks every worker for its figures over the cluster's IPC
// channel and sums them with prom-client's aggregation, so one scrape sees the whole group.

interface MetricsAsk {
  type: 'points-mall:metrics?';
  id: number;
}
interface MetricsAnswer {
  type: 'points-mall:metrics';
  id: number;
  metrics: MetricObjectWithValues<MetricValue<string>>[];
}

/** In a worker: answers the primary's asks with this process's registry. */
export function answerMetricsAsks(registry: Registry): void {
  process.on('message', (message: Partial<MetricsAsk> | null) => {
    if (message?.type !== 'points-mall:metrics?' || typeof message.id !== 'number') return;
    void registry.getMetricsAsJSON().then((metrics) => {
      const answer: MetricsAnswer = { type: 'points-mall:metrics', id: message.id!, metrics };
      process.send?.(answer);
    });
  });
}

let asks = 0;
/** In the primary: every worker's figures, summed (a worker that does not answer within a second is left out). */
export async function clusterMetrics(): Promise<string> {
  const id = ++asks;
  const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
  const answers = await Promise.all(
    workers.map(
      (worker) =>
        new Promise<MetricsAnswer['metrics'] | null>((done) => {
          const timer = setTimeout(() => {
            worker.off('message', onMessage);
            done(null);
          }, 1000);
          function onMessage(message: Partial<MetricsAnswer> | null) {
            if (message?.type !== 'points-mall:metrics' || message.id !== id) return;
            clearTimeout(timer);
            worker.off('message', onMessage);
            done(message.metrics ?? []);
          }
          worker.on('message', onMessage);
          worker.send({ type: 'points-mall:metrics?', id } satisfies MetricsAsk);
        }),
    ),
  );
  return AggregatorRegistry.aggregate(answers.filter((a) => a !== null)).metrics();
}
