import { setImmediate } from 'node:timers/promises';

// Background work (batch tasks, the statement export, the ledger check, dashboard rollups, the planner, the worker's
// claim loop) shares one event loop with the requests. On SQLite every query is synchronous (better-sqlite3) and its
// promise is settled at once, so a loop of awaited queries resolves as microtasks and never returns to the event loop:
// a whole batch would run before the next request is even read. Each such loop gives way between its chunks.

/**
 * How long background work may hold the event loop at a stretch. Requests that arrive meanwhile wait at most about
 * this long (the goal is a p99 of 50 ms at 200 requests/s while any job runs), and a job loses little to turns of the
 * loop at this size.
 */
export const SLICE_MS = 10;

/**
 * Lets the event loop read and answer what has arrived (requests, timers) before the caller goes on. setImmediate
 * runs after the loop's I/O phase, so every request already received gets its turn first.
 */
export const giveWay = (): Promise<void> => setImmediate();

/**
 * For a loop of many small steps: answers a function to await after each step, which gives way once the steps since
 * the last turn of the loop have taken a slice (`budgetMs`), and otherwise costs nothing.
 */
export function timeSlices(budgetMs: number = SLICE_MS): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < budgetMs) return;
    await giveWay();
    since = performance.now();
  };
}

/**
 * The same for several loops at once (the payment checks keep dozens of orders in flight, most of them waiting on a
 * gateway): once the slice is spent, every loop that reaches its next step waits for the same turn of the event loop,
 * so together they hold it about as long as one loop would. Measured (tests/bench/payment-sweep.mjs, SQLite, 2,000
 * orders skipped on a gateway left alone): get/login p99 at 200/s was 39–87 ms with one timeSlices per loop, which
 * each loop spent alone while the others ran on.
 */
export function sharedTimeSlices(budgetMs: number = SLICE_MS): () => Promise<void> {
  let since = performance.now();
  let turn: Promise<void> | undefined;
  return () => {
    if (turn) return turn;
    if (performance.now() - since < budgetMs) return Promise.resolve();
    turn = giveWay().then(() => {
      since = performance.now();
      turn = undefined;
    });
    return turn;
  };
}
