import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * What this process tells Prometheus (GET /metrics, see metrics/serve.ts): requests by operation, the database, the
 * scheduler, batch tasks, coin movements, payment notifications, open event streams, and the process itself (prom-client's defaults). One
 * registry per app, so tests that build several apps in one process never share or collide.
 */
export interface Metrics {
  registry: Registry;
  requestSeconds: Histogram<'operation' | 'status_class'>;
  /** Requests received and not yet answered; a plain count, read by its gauge when scraped (metrics/serve.ts). */
  requestsInFlight: { value: number };
  runsClaimed: Counter;
  runsLate: Counter;
  runLagSeconds: Histogram;
  runsFinished: Counter<'outcome'>;
  batchItems: Counter<'state'>;
  coinMovements: Counter<'kind'>;
  /** Payment gateways' notifications (and order queries) by result: credited, duplicate, or why one was refused. */
  payNotifies: Counter<'result'>;
  payQueries: Counter<'result'>;
}

/** What the registry reads when scraped: things another part of the app counts or holds. */
export interface MetricSources {
  /** PostgreSQL's pool (absent on SQLite). */
  pool?: () => { total: number; idle: number; waiting: number };
  /** SQLite writes that met a lock held elsewhere and were tried again (absent on PostgreSQL). */
  busyRetries?: () => number;
  /** Runs due now and not yet claimed (a query: asked only when scraped). */
  runsDue: () => Promise<number>;
  openStreams: () => number;
}

/** A run claimed this long after its time counts as late. */
export const LATE_AFTER_SECONDS = 60;

export function createMetrics(sources: MetricSources): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const m: Metrics = {
    registry,
    requestSeconds: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'API requests by operationId (other: static files, the docs) and status class, until the answer was sent',
      labelNames: ['operation', 'status_class'],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    requestsInFlight: { value: 0 },
    runsClaimed: new Counter({
      name: 'scheduler_runs_claimed_total',
      help: 'Runs this process claimed',
      registers: [registry],
    }),
    runsLate: new Counter({
      name: 'scheduler_runs_late_total',
      help: `Runs claimed more than ${LATE_AFTER_SECONDS} s after their time`,
      registers: [registry],
    }),
    runLagSeconds: new Histogram({
      name: 'scheduler_run_lag_seconds',
      help: 'From a run’s scheduled time to its claim',
      buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    runsFinished: new Counter({
      name: 'scheduler_runs_finished_total',
      help: 'Runs this process finished, by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    batchItems: new Counter({
      name: 'batch_items_total',
      help: 'Batch task items this process applied, by state',
      labelNames: ['state'],
      registers: [registry],
    }),
    coinMovements: new Counter({
      name: 'coin_movements_total',
      help: 'Ledger entries this process wrote, by kind (counted as written, inside their transaction)',
      labelNames: ['kind'],
      registers: [registry],
    }),
    payNotifies: new Counter({
      name: 'payment_notify_total',
      help: 'Payment notifications received, by verdict (credited, duplicate, or the reason one was refused)',
      labelNames: ['result'],
      registers: [registry],
    }),
    payQueries: new Counter({
      name: 'payment_query_total',
      help: "Questions to payment gateways about an order (sweep, 重新查询, 补单), by verdict of each channel's answer",
      labelNames: ['result'],
      registers: [registry],
    }),
  };
  new Gauge({
    name: 'http_requests_in_flight',
    help: 'Requests received and not yet answered (open event streams not counted)',
    registers: [registry],
    collect() {
      this.set(m.requestsInFlight.value);
    },
  });
  new Gauge({
    name: 'scheduler_runs_due',
    help: 'Runs whose time has come and that no process has claimed yet',
    registers: [registry],
    async collect() {
      this.set(await sources.runsDue());
    },
  });
  new Gauge({
    name: 'event_streams_open',
    help: 'Event streams (GET /api/events) open on this process',
    registers: [registry],
    collect() {
      this.set(sources.openStreams());
    },
  });
  if (sources.pool) {
    const pool = sources.pool;
    new Gauge({
      name: 'db_pool_connections',
      help: 'PostgreSQL connections of this process, by state (waiting: requests waiting for one)',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const p = pool();
        this.set({ state: 'in_use' }, p.total - p.idle);
        this.set({ state: 'idle' }, p.idle);
        this.set({ state: 'waiting' }, p.waiting);
      },
    });
  }
  if (sources.busyRetries) {
    const read = sources.busyRetries;
    let counted = 0;
    new Counter({
      name: 'sqlite_busy_retries_total',
      help: 'SQLite writes that met a write lock held by another connection and were tried again',
      registers: [registry],
      collect() {
        const now = read();
        this.inc(now - counted);
        counted = now;
      },
    });
  }
  return m;
}
