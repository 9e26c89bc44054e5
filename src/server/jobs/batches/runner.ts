import type { AppContext } from '../../modules/context.js';
import { AppError } from '../../lib/errors.js';
import { giveWay } from '../../lib/give-way.js';
import * as repo from '../../modules/batches/repo.js';
import { taskMoved } from '../../modules/batches/live.js';
import { ChunkSize, chunkSliceMs } from './chunk-size.js';
import { BATCH_WORK, type BatchItem, type HeldBatch } from '../../modules/batches/kinds.js';

/** How many items a chunk applied (there may be more), or why the batch ends here. */
type ChunkOutcome = number | 'finished' | 'lost';

/**
 * Works batch tasks for one process (`owner`), on the scheduler's loop: claims a queued batch (or one whose process
 * died: its lease expired) and works it chunk by chunk. Each chunk is one transaction that renews the lease, applies
 * the items' effects, records failures and moves the cursor past them; so after a crash the batch resumes right after
 * the last committed chunk and no item is applied twice. A cancelled batch stops at its next chunk.
 *
 * Between chunks it gives way to requests (lib/give-way.ts), and each chunk is sized to a slice of time
 * (chunk-size.ts): on SQLite, where a chunk holds the event loop, a request waits at most about one slice while a
 * batch runs, and a cancel is answered between two chunks. On PostgreSQL a chunk's first statement renews the lease on
 * the batch's row and a cancel writes that row too, so a cancel that arrives while a chunk is in flight waits for that
 * chunk's commit. Either way every chunk after the cancel finds the batch cancelled: nothing is applied after the
 * cancel's answer, and the done counter it shows is final.
 */
export class BatchRunner {
  constructor(
    private readonly app: AppContext,
    private readonly owner: string,
    private readonly postgres: boolean,
  ) {}

  private get leaseMs() {
    return this.app.config.jobs.leaseMs;
  }

  /** Takes the next batch to work; undefined when there is none. */
  async claim(): Promise<number | undefined> {
    const now = this.app.now();
    return this.app.db.transaction().execute(async (trx) => {
      const id = await repo.lockNextBatch(trx, now, this.postgres);
      if (id !== undefined) {
        await repo.leaseBatch(trx, id, this.owner, now + this.leaseMs, now);
        await taskMoved(trx, id);
      }
      return id;
    });
  }

  /** Works a claimed batch until it ends, is cancelled or taken over, or `keepGoing` says stop (shutdown). */
  async work(id: number, keepGoing: () => boolean = () => true): Promise<void> {
    const size = new ChunkSize(this.app.config.jobs.batchChunk, chunkSliceMs(this.postgres));
    while (keepGoing()) {
      let outcome: ChunkOutcome;
      const started = performance.now();
      try {
        outcome = await this.chunk(id, size.next);
        if (typeof outcome === 'number') size.took(outcome, performance.now() - started);
      } catch (err) {
        // Something in the chunk threw: every effect of it rolled back. Item by item, to pin the failure on one.
        this.app.log.warn({ err, batchId: id }, 'batch: chunk failed, retrying item by item');
        outcome = await this.chunk(id, 1).catch(async (error: unknown) => {
          await this.failNext(id, error);
          return 1;
        });
      }
      if (typeof outcome !== 'number') return;
      await giveWay();
    }
  }

  /** Claims and works batches until none is left (tests' ticks). */
  async drain(): Promise<number> {
    let worked = 0;
    for (let id = await this.claim(); id !== undefined; id = await this.claim()) {
      await this.work(id);
      worked++;
      await giveWay();
    }
    return worked;
  }

  private async chunk(id: number, limit: number): Promise<ChunkOutcome> {
    const { app } = this;
    const now = app.now();
    let failed = 0;
    const outcome = await app.db.transaction().execute(async (trx): Promise<ChunkOutcome> => {
      const held = await repo.holdBatch(trx, id, this.owner, now + this.leaseMs);
      if (!held) return 'lost';
      const batch: HeldBatch = { ...held, cursor: Number(held.cursor), params: JSON.parse(held.params) };
      const work = BATCH_WORK[batch.kind];
      const items = await work.next(trx, batch, limit);
      if (items.length === 0) {
        await repo.finishBatch(trx, id, now);
        await taskMoved(trx, id);
        return 'finished';
      }
      const failures = await work.apply(app, trx, batch, items, now);
      for (const item of items) {
        const error = failures.get(item.seq);
        if (error !== undefined)
          await repo.recordItem(trx, { batchId: id, ...label(item) }, { state: 'failed', error });
        else if (work.listed) await repo.recordItem(trx, { batchId: id, ...label(item) }, { state: 'done' });
      }
      await repo.advance(trx, id, items.at(-1)!.seq, items.length - failures.size, failures.size);
      // Progress replaces polling: the task list and detail read again when a chunk commits.
      await taskMoved(trx, id);
      failed = failures.size;
      return items.length;
    });
    // Counted once the chunk has committed (/metrics).
    if (typeof outcome === 'number') {
      app.metrics.batchItems.inc({ state: 'done' }, outcome - failed);
      if (failed > 0) app.metrics.batchItems.inc({ state: 'failed' }, failed);
    }
    return outcome;
  }

  /** The next item throws even alone: it is recorded failed with a plain reason and the batch moves past it. */
  private async failNext(id: number, error: unknown): Promise<void> {
    const { app } = this;
    this.app.log.error({ err: error, batchId: id }, 'batch: an item failed');
    await app.db.transaction().execute(async (trx) => {
      const held = await repo.holdBatch(trx, id, this.owner, app.now() + this.leaseMs);
      if (!held) return;
      const batch: HeldBatch = { ...held, cursor: Number(held.cursor), params: JSON.parse(held.params) };
      const [item] = await BATCH_WORK[batch.kind].next(trx, batch, 1);
      if (!item) return;
      const reason = error instanceof AppError ? error.message : '执行出错';
      await repo.recordItem(trx, { batchId: id, ...label(item) }, { state: 'failed', error: reason });
      await repo.advance(trx, id, item.seq, 0, 1);
      await taskMoved(trx, id);
    });
  }
}

const label = (item: BatchItem) => ({ seq: item.seq, label: item.label.slice(0, 64) });
