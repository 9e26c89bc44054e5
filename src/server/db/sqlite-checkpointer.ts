import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * SQLite in WAL mode appends every commit to the -wal file; a checkpoint copies those pages back into the database
 * file and fsyncs it. By default the connection that commits past 1000 WAL pages runs that checkpoint inside its
 * COMMIT, synchronously: on the server's only thread, the event loop stands still for the copy and the fsync (a third
 * of a transfer's wall time under load). Here the app's connections never checkpoint (wal_autocheckpoint = 0) and a
 * worker thread with a connection of its own does it, so the copying and the waiting for the disk happen off the loop.
 *
 * - Every `intervalMs` the worker runs a PASSIVE checkpoint: it copies what it can without taking any lock a writer
 *   or reader needs (with nothing to copy it costs microseconds and no fsync).
 * - A passive checkpoint cannot reset the WAL while commits keep coming (the writer only starts the file over once
 *   everything in it was copied), so the file would grow forever under steady load. When it would pass
 *   `maxWalBytes`, the worker asks the main thread for a pause (`holdWrites`: the app's writes queue asynchronously
 *   instead of its writer waiting for the lock on the loop, which its 20 ms busy timeout would do), runs a RESTART
 *   checkpoint (the few pages the passive runs left, one fsync), and lets the writes go; the next commit starts the
 *   file over. The writer's journal_size_limit shrinks the file back then. The pause lasts at most `MAX_HOLD_MS`.
 * - Nothing is at risk if the worker dies: committed pages are in the WAL, which is as durable as the database file.
 *   The app is told (`onFailure`) and the writer goes back to checkpointing itself.
 * - close(): after the app's connections are closed, the worker's connection is the last one; closing it checkpoints
 *   everything and removes the WAL, off the loop. The worker never keeps the process alive (unref).
 */
export interface CheckpointerOptions {
  path: string;
  /** How often the worker looks for pages to copy. */
  intervalMs: number;
  /** Above this the worker forces the WAL to start over (a RESTART checkpoint). */
  maxWalBytes: number;
  /** The worker died or could not start: the writer must checkpoint on its own again. */
  onFailure(error: Error): void;
  /** Stops this process's writes until the answered function is called (db/sqlite-driver.ts holdWrites). */
  holdWrites?(): Promise<() => void>;
}

/** The longest the app's writes wait for a RESTART checkpoint; then they contend for the lock as usual. */
const MAX_HOLD_MS = 1000;

export interface CheckpointerStats {
  /** Passive checkpoints that found new pages to copy. */
  checkpoints: number;
  /** RESTART checkpoints forced by a WAL above the limit. */
  restarts: number;
  /** Frames in the WAL at the last look. */
  walFrames: number;
}

export interface Checkpointer {
  /** Counts from the worker (tests, diagnostics). */
  stats(): Promise<CheckpointerStats>;
  /** Ends the worker with a last checkpoint; call after the app's own connections are closed. */
  close(): Promise<void>;
  /** The thread itself, for tests that kill it. */
  readonly worker: Worker;
}

// Plain CommonJS run with `eval`: the same source works from the TypeScript files (vitest) and from the esbuild bundle,
// with no second entry point to build and find. better-sqlite3 comes by the absolute path the main thread resolved.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.path);
// Waits for locks (a RESTART waits for other processes' writers and for readers) happen on this thread.
db.pragma('busy_timeout = 500');
db.pragma('synchronous = NORMAL');
db.pragma('wal_autocheckpoint = 0');
const maxFrames = Math.max(1, Math.floor(workerData.maxWalBytes / db.pragma('page_size', { simple: true })));
const stats = { checkpoints: 0, restarts: 0, walFrames: 0 };
// The WAL's length when a RESTART last succeeded: it stays so until the next commit starts the file over.
let restartedAt = -1;
let asked = false;
function tick() {
  if (asked) return;
  const [passive] = db.pragma('wal_checkpoint(PASSIVE)');
  // Restart when the WAL would pass the limit before the next look (at the rate it grew since the last one).
  const growth = Math.max(0, passive.log - stats.walFrames);
  if (passive.log !== stats.walFrames) stats.checkpoints++;
  stats.walFrames = passive.log;
  if (passive.log !== restartedAt && passive.log + growth >= maxFrames) {
    asked = true;
    parentPort.postMessage('pause writes');
  }
}
function restart() {
  try {
    const [result] = db.pragma('wal_checkpoint(RESTART)');
    if (!result.busy) {
      stats.restarts++;
      restartedAt = result.log;
    }
  } finally {
    asked = false;
    parentPort.postMessage('writes may go');
  }
}
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'stats') return parentPort.postMessage({ stats });
  if (message === 'writes paused') return restart();
  if (message !== 'stop') return;
  clearInterval(timer);
  // The app's connections are closed: this is the last one, and closing it checkpoints the rest and removes the WAL.
  db.close();
  parentPort.close();
});
`;

export function startCheckpointer(options: CheckpointerOptions): Checkpointer {
  const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { driverPath, path: options.path, intervalMs: options.intervalMs, maxWalBytes: options.maxWalBytes },
  });
  worker.unref();
  let stopping = false;
  let failed = false;
  const fail = (error: Error) => {
    if (failed || stopping) return;
    failed = true;
    options.onFailure(error);
  };
  worker.on('error', fail);
  worker.on('message', (message) => {
    if (message === 'pause writes') void pauseWrites();
    else if (message === 'writes may go') endHold?.();
  });
  let endHold: (() => void) | undefined;
  async function pauseWrites() {
    const release = options.holdWrites ? await options.holdWrites() : () => {};
    let released = false;
    const timer = setTimeout(() => endHold?.(), MAX_HOLD_MS).unref();
    endHold = () => {
      if (released) return;
      released = true;
      clearTimeout(timer);
      endHold = undefined;
      release();
    };
    if (stopping || failed) endHold();
    else worker.postMessage('writes paused');
  }
  worker.on('exit', (code) => {
    endHold?.();
    fail(new Error(`sqlite checkpointer exited with code ${code}`));
  });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));

  return {
    worker,
    stats: () =>
      new Promise((resolve, reject) => {
        if (failed) {
          reject(new Error('sqlite checkpointer is not running'));
          return;
        }
        const onMessage = (message: { stats?: CheckpointerStats }) => {
          if (!message.stats) return;
          worker.off('message', onMessage);
          resolve(message.stats);
        };
        worker.on('message', onMessage);
        worker.postMessage('stats');
      }),
    async close() {
      if (stopping) return exited;
      stopping = true;
      if (!failed) worker.postMessage('stop');
      await exited;
    },
  };
}
