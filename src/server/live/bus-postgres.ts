import createSubscriber, { type Subscriber } from 'pg-listen';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.js';
import { liveChannel } from '../db/live-notify.js';
import { eventsOf, type EventBus, type RoutedEvent } from './events.js';

const RECONNECT_MAX_MS = 10_000;

/**
 * The database is the bus between server processes: an event is a NOTIFY on a channel of the schema in use (each test
 * file's schema, or a deployment's, hears only its own), sent in the caller's transaction. Every process, this one
 * included, LISTENs on one connection of its own kept by pg-listen (outside the pool: a listening session must stay
 * open and must not serve queries), which checks it and reconnects after a loss; events sent meanwhile are lost, so
 * the streams are then told to read everything again (`onGap`).
 */
export class PostgresBus implements EventBus {
  readonly #listeners: ((routed: RoutedEvent) => void)[] = [];
  readonly #gapListeners: (() => void)[] = [];
  readonly #subscriber: Subscriber;
  #connected = false;
  #closed = false;

  constructor(connection: { url: string; applicationName: string }, log: FastifyBaseLogger) {
    this.#subscriber = createSubscriber(
      { connectionString: connection.url, application_name: `${connection.applicationName}:live` },
      {
        // Retries without end while the process runs, backing off; once closed, the next wait throws instead, which
        // ends pg-listen's reconnection loop (it reports that as an `error`, ignored below).
        retryTimeout: Infinity,
        // The payload stays text: events.ts reads it (pg-listen would parse JSON itself by default).
        parse: (payload: string) => payload,
        retryInterval: (attempt) => {
          if (this.#closed) throw new Error('live events: closed');
          return Math.min(250 * 2 ** attempt, RECONNECT_MAX_MS);
        },
      },
    );
    const events = this.#subscriber.events;
    events.on('notification', ({ payload }) => {
      try {
        for (const routed of eventsOf(payload as string)) for (const listener of this.#listeners) listener(routed);
      } catch (err) {
        log.warn({ err }, 'live events: unreadable notification');
      }
    });
    events.on('reconnect', (attempt) => {
      if (attempt === 1) log.warn('live events: listening connection lost, reconnecting');
    });
    events.on('error', (err) => {
      if (!this.#closed) log.warn({ err }, 'live events: listening connection');
    });
    events.on('connected', () => {
      // A connection made while closing is not kept.
      if (this.#closed) return void this.#subscriber.close().catch(() => undefined);
      if (this.#connected) for (const listener of this.#gapListeners) listener();
      this.#connected = true;
    });
  }

  /** Listens on the channel the pool's connections publish to (their `current_schema()`); fails loudly if it cannot. */
  async start(db: Db): Promise<void> {
    const channel = await liveChannel(db);
    try {
      await this.#subscriber.connect();
      await this.#subscriber.listenTo(channel);
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  onEvent(listener: (routed: RoutedEvent) => void): void {
    this.#listeners.push(listener);
  }

  onGap(listener: () => void): void {
    this.#gapListeners.push(listener);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#subscriber.close().catch(() => undefined);
  }
}
