import type { Db } from '../db/database.js';
import type { EventBus, RoutedEvent } from './events.js';

/**
 * The bus of one process (SQLite: one process owns the database file). An event published inside a transaction waits
 * for its commit (`afterCommit`, the SQLite driver's), so a screen told to read again never reads the old state, and a
 * rolled-back change tells nobody.
 */
export class LocalBus implements EventBus {
  readonly #listeners: ((routed: RoutedEvent) => void)[] = [];

  constructor(private readonly afterCommit: ((work: () => void) => void) | undefined) {}

  async publish(db: Db, events: readonly RoutedEvent[]): Promise<void> {
    const deliver = () => {
      for (const routed of events) for (const listener of this.#listeners) listener(routed);
    };
    if (db.isTransaction && this.afterCommit) this.afterCommit(deliver);
    else deliver();
  }

  onEvent(listener: (routed: RoutedEvent) => void): void {
    this.#listeners.push(listener);
  }

  onGap(): void {
    // Nothing travels between processes here, so nothing can be lost on the way.
  }

  async close(): Promise<void> {
    this.#listeners.length = 0;
  }
}
