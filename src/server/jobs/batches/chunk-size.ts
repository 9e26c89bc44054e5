import { SLICE_MS } from '../../lib/give-way.js';

/**
 * The first chunk of a batch, before anything is known of its items' cost: one item. The first items of a kind in a
 * process cost many times their later cost (statements prepared, code not yet optimised: 8 quota lines took 50 ms
 * where 8 warm ones take 5), and with the growth below the fifth chunk may take BATCH_CHUNK's default.
 */
const FIRST_CHUNK = 1;
/** A chunk takes at most this many times the items of the one before, so one fast chunk cannot size a slow one. */
const GROWTH = 4;

/**
 * How long a chunk may take, by database. On SQLite a chunk holds the event loop from its first statement to its
 * commit, so it gets one slice (SLICE_MS). On PostgreSQL the loop is free while the chunk waits on the database; what
 * the chunk holds is one pool connection and the locks of the rows it writes (a cancel, or a request writing the same
 * rows, waits for its commit), so it may take longer and spend less of its time on what every chunk costs (renewing
 * the lease, moving the cursor, the commit).
 */
export const chunkSliceMs = (postgres: boolean): number => (postgres ? 200 : SLICE_MS);

/**
 * How many items a batch's next chunk takes: at most BATCH_CHUNK, and about as many as fit in the chunk's time
 * (chunkSliceMs) at the cost per item the chunk before showed. A chunk is one transaction, and on SQLite it holds the event
 * loop from its first statement to its commit; the cost of an item differs by kind (a broadcast's notice is a row of
 * one shared insert, a quota line a grant with its ledger entry and notice) and by database, so a fixed count would
 * either hold requests up for a quota batch or make a broadcast needlessly slow.
 */
export class ChunkSize {
  #next: number;

  constructor(
    private readonly most: number,
    private readonly sliceMs: number = SLICE_MS,
  ) {
    this.#next = Math.min(most, FIRST_CHUNK);
  }

  get next(): number {
    return this.#next;
  }

  /** Learns from a chunk that applied `items` in `ms`. */
  took(items: number, ms: number): void {
    if (items <= 0) return;
    const fits = Math.floor((items * this.sliceMs) / Math.max(ms, 0.01));
    this.#next = Math.max(1, Math.min(this.most, fits, this.#next * GROWTH));
  }
}
