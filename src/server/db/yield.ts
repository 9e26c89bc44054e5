/**
 * Lets the event loop serve other requests between the chunks of a long read (an export, the ledger check). On
 * SQLite every query runs synchronously and its promise is already settled, so a loop of awaited queries would
 * otherwise hold the loop until it ends; setImmediate runs after pending I/O callbacks.
 */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
