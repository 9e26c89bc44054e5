import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { AppContext } from '../modules/context.js';
import { timeSlices } from '../lib/give-way.js';
import { BatchRunner } from './batches/runner.js';
import type { Connector } from './connectors/connector.js';
import { planDue } from './planner.js';
import { releaseExpiredLeases } from '../modules/runs/queue-repo.js';
import { Worker, type Claimed } from './worker.js';
import { PaymentChecks, sweepPayments } from '../modules/payments/sweeper.js';
import { closeDueAccounts } from '../modules/closing/sweeper.js';

/** How often this process sweeps unpaid online orders (closes expired ones, purges old records) and due closings. */
export const SWEEP_MS = 60_000;
/** How often this process looks for orders whose gateways are due to be asked (each order has its own time). */
export const PAYMENT_CHECK_MS = 5_000;

/**
 * Plans and executes platform services' runs in this process: a poll loop (planner, then claims up to the configured
 * concurrency) in production, or `tick()` driven by a test's clock. Any number of processes may run one each.
 */
export class Scheduler {
  /** Who holds a lease: host, process and a random part, so a restarted process is a new owner. */
  readonly owner = `${hostname().slice(0, 40)}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly worker: Worker;
  /** Batch tasks ride the same loop: one batch at a time per process. */
  readonly batches: BatchRunner;
  private batchSlot: Promise<void> | undefined;
  /** Worker slots at work; shutdown waits for them. */
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private lastSweep = 0;
  private sweeping: Promise<void> | undefined;
  /** Asking gateways about unpaid orders: a loop of its own, so a hanging gateway holds up none of the sweeps. */
  readonly paymentChecks: PaymentChecks;
  private lastPaymentCheck = 0;

  constructor(
    private readonly app: AppContext,
    connector: Connector,
    postgres: boolean,
  ) {
    this.worker = new Worker(app, connector, this.owner, postgres);
    this.batches = new BatchRunner(app, this.owner, postgres);
    this.paymentChecks = new PaymentChecks(app);
  }

  /** Starts the loop; runs left by a process that died are handed back first. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const released = await releaseExpiredLeases(this.app.db, this.app.now());
    if (released > 0) this.app.log.info({ released }, 'scheduler: reclaimed runs with expired leases');
    this.poll();
  }

  /** Stops claiming and waits, at most the configured time, for runs in flight; the rest are left to lease expiry. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    const busy = [
      ...this.inFlight,
      ...(this.batchSlot ? [this.batchSlot] : []),
      ...(this.sweeping ? [this.sweeping] : []),
      ...(this.paymentChecks.running ? [this.paymentChecks.running] : []),
    ];
    if (busy.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.app.config.jobs.shutdownMs)));
    await Promise.race([Promise.allSettled(busy), bound]);
    clearTimeout(timer);
  }

  /**
   * One pass at the clock's current time, for tests: plans what is due, then claims and executes until nothing is
   * claimable. Answers how many runs were planned and how many claims were made.
   */
  async tick(): Promise<{ planned: number; claimed: number }> {
    const planned = await planDue(this.app);
    const pace = timeSlices();
    let claimed = 0;
    for (;;) {
      const batch: Claimed[] = [];
      let settled = 0;
      while (batch.length < this.app.config.jobs.concurrency) {
        await pace();
        const c = await this.worker.claim();
        if (c === null) break;
        if (c === 'settled') settled++;
        else batch.push(c);
      }
      if (batch.length === 0 && settled === 0) {
        await this.batches.drain();
        return { planned, claimed };
      }
      claimed += batch.length;
      await Promise.all(batch.map((c) => this.worker.execute(c)));
    }
  }

  private poll(): void {
    if (!this.running) return;
    void planDue(this.app)
      .catch((err: unknown) => this.app.log.error({ err }, 'scheduler: planning failed'))
      .then(() => {
        this.pump();
        this.pumpBatches();
        this.sweep();
        this.checkPayments();
      })
      .finally(() => {
        if (this.running) {
          this.timer = setTimeout(() => this.poll(), this.app.config.jobs.pollMs);
          this.timer.unref();
        }
      });
  }

  /**
   * Starts a worker slot for each free one up to the configured concurrency. A slot claims and executes runs one
   * after another until nothing is claimable (or the scheduler stops), so the queue drains at speed between polls.
   */
  private pump(): void {
    while (this.running && this.inFlight.size < this.app.config.jobs.concurrency) {
      const slot: Promise<void> = this.slot().finally(() => this.inFlight.delete(slot));
      this.inFlight.add(slot);
    }
  }

  /** Starts working batches when none is in hand; a chunk at a time, so shutdown waits for one chunk at most. */
  private pumpBatches(): void {
    if (!this.running || this.batchSlot) return;
    const slot = (async () => {
      for (let id = await this.batches.claim(); id !== undefined && this.running; id = await this.batches.claim())
        await this.batches.work(id, () => this.running);
    })()
      .catch((err: unknown) => this.app.log.error({ err }, 'scheduler: batch work failed'))
      .finally(() => (this.batchSlot = undefined));
    this.batchSlot = slot;
  }

  /** Starts a pass over the orders due for a question to their gateways, unless one is under way. */
  private checkPayments(): void {
    const now = this.app.now();
    if (!this.running || this.paymentChecks.running || now - this.lastPaymentCheck < PAYMENT_CHECK_MS) return;
    this.lastPaymentCheck = now;
    void this.paymentChecks
      .start(() => this.running)
      .catch((err: unknown) => this.app.log.error({ err }, 'scheduler: payment checks failed'));
  }

  /**
   * The minute's sweeps, one at a time, beside the runs: unpaid online orders (payments/sweeper.ts: closing expired
   * ones, never waiting for a gateway), then accounts whose cooling-off is over (closing/sweeper.ts).
   */
  private sweep(): void {
    const now = this.app.now();
    if (!this.running || this.sweeping || now - this.lastSweep < SWEEP_MS) return;
    this.lastSweep = now;
    this.sweeping = sweepPayments(this.app)
      .then((done) => {
        if (done.closed + done.purged > 0) this.app.log.info(done, 'payment sweep');
      })
      .catch((err: unknown) => this.app.log.error({ err }, 'scheduler: payment sweep failed'))
      .then(() => closeDueAccounts(this.app))
      .catch((err: unknown) => this.app.log.error({ err }, 'scheduler: closing accounts failed'))
      .then(() => undefined)
      .finally(() => (this.sweeping = undefined));
  }

  /**
   * One worker slot. It gives way once a slice of time is spent: with an instant connector (or a burst of runs that
   * are only skipped) claims follow each other without ever leaving the event loop on SQLite.
   */
  private async slot(): Promise<void> {
    const pace = timeSlices();
    while (this.running) {
      await pace();
      let claimed: Awaited<ReturnType<Worker['claim']>>;
      try {
        claimed = await this.worker.claim();
      } catch (err) {
        this.app.log.error({ err }, 'scheduler: claiming failed');
        return;
      }
      if (claimed === null) return;
      if (claimed === 'settled') continue;
      await this.worker
        .execute(claimed)
        .catch((err: unknown) =>
          this.app.log.error({ err, runId: claimed.run.id }, 'scheduler: recording a run failed'),
        );
    }
  }
}
