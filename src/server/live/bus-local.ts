import { eventsOf, type EventBus, type RoutedEvent } from './events.js';

/**
 * The bus of one process (SQLite: one process owns the database file): it hears the payloads the SQLite driver
 * delivers once their transaction commits (db/sqlite-driver.ts `live_notify`).
 */
export class LocalBus implements EventBus {
  readonly #listeners: ((routed: RoutedEvent) => void)[] = [];
  #closed = false;

  constructor(onNotify: (listener: (payload: string) => void) => void) {
    onNotify((payload) => {
      if (this.#closed) return;
      for (const routed of eventsOf(payload)) for (const listener of this.#listeners) listener(routed);
    });
  }

  onEvent(listener: (routed: RoutedEvent) => void): void {
    this.#listeners.push(listener);
  }

  onGap(): void {
    // Nothing travels between processes here, so nothing can be lost on the way.
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.length = 0;
  }
}
