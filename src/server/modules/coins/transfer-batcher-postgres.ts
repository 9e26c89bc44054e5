/** What one transfer_coins call takes besides who asks and the payee's notice (ledger-postgres.ts builds it). */
export interface TransferArguments {
  requestHash: string;
  payeeAccountLower: string;
  coin: number;
  siteId: number;
  reference: string;
  outPrefix: string;
  inDescription: string;
  now: number;
}

/** One transfer as `transfer_coins_batch` (migration 0015) takes it: the arguments of one transfer_coins call. */
export interface BatchedTransfer extends TransferArguments {
  actorId: number;
  key: string;
  noticeTitle: string;
  noticeBody: string;
}

/** What transfer_coins_batch answers for one transfer (see migration 0015). */
export type TransferOutcome<R = unknown> =
  | { result: R }
  | { replay: { operation: string; requestHash: string; response: string } }
  | { refusal: string; cap: number }
  | { error: { code: string; message: string } };

/** Sends one batch as one statement (one transaction) and answers its outcomes, in order, after it COMMITTED. */
export type RunBatch = (batch: BatchedTransfer[]) => Promise<TransferOutcome[]>;

interface Queued {
  transfer: BatchedTransfer;
  resolve(outcome: TransferOutcome): void;
  reject(error: unknown): void;
}

/** PostgreSQL keeps 64 subtransaction ids per transaction in shared memory (one per transfer of a batch). */
export const MAX_BATCH = 64;
/**
 * Batches on the wire at once. One, measured (tests/bench/transfers.mjs, PostgreSQL, 10 connections, three interleaved
 * triplets): 1 in flight carried 4.3 transfers per batch on average and did the most transfers/s with the least CPU;
 * 2 and 4 made smaller batches (2.6, 1.9), more commits and calls, and were no faster: batches sharing users wait for
 * each other's row locks anyway, so a second one on the wire mostly waits there.
 */
export const MAX_IN_FLIGHT = 1;

/**
 * GROUP COMMIT for PostgreSQL transfers, as db/sqlite-driver.ts submitWrite does for SQLite: transfers submitted in
 * the same turn of the event loop go to the database as ONE call of transfer_coins_batch, i.e. one transaction and
 * one commit (a WAL flush) for all of them, each transfer in its own subtransaction. Every caller gets its own
 * outcome, and only once the statement has returned, i.e. after COMMIT: nothing is acknowledged that a crash could
 * take back. If the statement fails (connection lost, timeout), every caller of that batch gets the error, and
 * nothing of the batch is committed (it was one transaction). While MAX_IN_FLIGHT batches are on the wire, new
 * transfers queue for the next one.
 */
export class TransferBatcher {
  readonly #queue: Queued[] = [];
  #scheduled = false;
  #inFlight = 0;
  /** Committed batches and the transfers they carried: how much grouping happened (tests, diagnostics). */
  readonly groupCommits = { transactions: 0, works: 0 };

  constructor(
    private readonly run: RunBatch,
    private readonly limits = { maxBatch: MAX_BATCH, maxInFlight: MAX_IN_FLIGHT },
  ) {}

  submit(transfer: BatchedTransfer): Promise<TransferOutcome> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ transfer, resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      // setImmediate: after the requests read in this poll phase have run up to their submit, so they group.
      setImmediate(() => {
        this.#scheduled = false;
        this.#send();
      });
    });
  }

  #send(): void {
    while (this.#queue.length > 0 && this.#inFlight < this.limits.maxInFlight) {
      const batch = this.#queue.splice(0, this.limits.maxBatch);
      this.#inFlight++;
      void this.#settle(batch);
    }
  }

  async #settle(batch: Queued[]): Promise<void> {
    try {
      const outcomes = await this.run(batch.map((q) => q.transfer));
      if (outcomes.length !== batch.length) throw new Error('transfer_coins_batch: one outcome per transfer expected');
      this.groupCommits.transactions++;
      this.groupCommits.works += batch.length;
      batch.forEach((q, i) => q.resolve(outcomes[i]!));
    } catch (error) {
      for (const q of batch) q.reject(error);
    } finally {
      this.#inFlight--;
      // What arrived while every slot was taken goes now, as one batch.
      this.#send();
    }
  }
}
