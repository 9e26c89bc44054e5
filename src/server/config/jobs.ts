import { ConfigError, flag, integer } from '../lib/config-values.js';

/** The scheduler's and the sandbox connector's settings (environment variables, README "Configuration"). */
export interface JobsConfig {
  /** Plan and execute runs in this process (SCHEDULER=off leaves it to other processes, or to tests' manual ticks). */
  enabled: boolean;
  /** The site's time zone: schedules, "today" and per-day billing are in it (TZ_SITE). */
  timeZone: string;
  /** How often the planner and the claimer look for work. */
  pollMs: number;
  /** How long a claimed run is this process's; after it, any process may reclaim the run. */
  leaseMs: number;
  /** Runs executed at once by this process. */
  concurrency: number;
  /** A connector call is aborted after this long and counts as a transient failure (timeout). */
  runTimeoutMs: number;
  /** On shutdown, how long to wait for runs in flight before leaving them to lease expiry. */
  shutdownMs: number;
  /** Items a batch task applies per transaction (BATCH_CHUNK). */
  batchChunk: number;
  sandbox: SandboxConfig;
}

export interface SandboxConfig {
  /** Simulated response time of the sandbox platform (each call varies from half to one and a half of it). */
  latencyMs: number;
  /** Share of calls, in percent, that fail when a service has no override (mostly transient, some permanent). */
  failurePercent: number;
  /** Seed of the random source, so a demonstration's outcomes can be replayed. */
  seed: number;
}

function timeZone(raw: string | undefined): string {
  const zone = raw && raw !== '' ? raw : 'Asia/Shanghai';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw new ConfigError(`TZ_SITE must be an IANA time zone such as Asia/Shanghai, got "${zone}"`);
  }
  return zone;
}

export function loadJobsConfig(env: NodeJS.ProcessEnv): JobsConfig {
  const leaseMs = integer('SCHEDULER_LEASE_MS', env.SCHEDULER_LEASE_MS, 60_000, 1000, 3_600_000);
  return {
    enabled: flag(env.SCHEDULER, true),
    timeZone: timeZone(env.TZ_SITE),
    pollMs: integer('SCHEDULER_POLL_MS', env.SCHEDULER_POLL_MS, 1000, 10, 600_000),
    leaseMs,
    concurrency: integer('SCHEDULER_CONCURRENCY', env.SCHEDULER_CONCURRENCY, 4, 1, 256),
    // Always inside the lease, so a run is never executed by two processes at once.
    runTimeoutMs: Math.min(
      integer('SCHEDULER_RUN_TIMEOUT_MS', env.SCHEDULER_RUN_TIMEOUT_MS, 30_000, 10, 3_600_000),
      Math.floor(leaseMs / 2),
    ),
    shutdownMs: integer('SCHEDULER_SHUTDOWN_MS', env.SCHEDULER_SHUTDOWN_MS, 10_000, 0, 600_000),
    batchChunk: integer('BATCH_CHUNK', env.BATCH_CHUNK, 200, 1, 5000),
    sandbox: {
      latencyMs: integer('SANDBOX_LATENCY_MS', env.SANDBOX_LATENCY_MS, 300, 0, 60_000),
      failurePercent: integer('SANDBOX_FAILURE_PERCENT', env.SANDBOX_FAILURE_PERCENT, 5, 0, 100),
      seed: integer('SANDBOX_SEED', env.SANDBOX_SEED, 1, 0, 2 ** 31 - 1),
    },
  };
}
