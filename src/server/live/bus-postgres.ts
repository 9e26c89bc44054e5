import pg from 'pg';
import { CompiledQuery } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.js';
import { LIVE_NOTIFY_SQL } from '../db/notify-on-commit.js';
import type { EventBus, RoutedEvent } from './events.js';

/** NOTIFY carries at most 8000 bytes; an audience of many users (a broadcast's chunk) goes in several. */
const USERS_PER_NOTIFY = 500;
const RECONNECT_MAX_MS = 10_000;

/** One NOTIFY's payload: the events of one change, each with who hears it. */
type Wire = { e: RoutedEvent['event']; a: RoutedEvent['audience'] }[];

/** In a transaction the driver holds it for the COMMIT (db/notify-on-commit.ts); outside one it is sent at once. */
const notify = (db: Db, wire: Wire) => db.executeQuery(CompiledQuery.raw(LIVE_NOTIFY_SQL, [JSON.stringify(wire)]));

/**
 * The database is the bus between server processes: an event is a NOTIFY on a channel of the schema in use (each test
 * file's schema, or a deployment's, hears only its own), sent in the caller's transaction, so PostgreSQL delivers it
 * exactly when the change commits and never when it rolls back (the driver sends it with the COMMIT itself). Every
 * process, this one included, LISTENs on one dedicated connection (outside the pool: a listening session must stay
 * open and must not serve queries).
 */
export class PostgresBus implements EventBus {
  readonly #listeners: ((routed: RoutedEvent) => void)[] = [];
  readonly #gapListeners: (() => void)[] = [];
  #client: pg.Client | undefined;
  #closed = false;
  #retryMs = 250;
  #retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly connection: { url: string; schema?: string; applicationName: string },
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Opens the listening connection; the first start fails loudly, later losses reconnect by themselves. */
  async start(): Promise<void> {
    this.#client = await this.#listen();
  }

  async #listen(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.connection.url,
      application_name: `${this.connection.applicationName}:live`,
      ...(this.connection.schema ? { options: `-c search_path=${this.connection.schema}` } : {}),
    });
    client.on('error', (err) => {
      this.log.warn({ err }, 'live events: listening connection lost');
      this.#lost(client);
    });
    client.on('end', () => this.#lost(client));
    client.on('notification', (message) => {
      if (!message.payload) return;
      try {
        const wire = JSON.parse(message.payload) as Wire;
        for (const { e, a } of wire) for (const listener of this.#listeners) listener({ event: e, audience: a });
      } catch (err) {
        this.log.warn({ err }, 'live events: unreadable notification');
      }
    });
    await client.connect();
    const { rows } = await client.query<{ channel: string }>(`select 'live_' || current_schema() as channel`);
    await client.query(`listen ${client.escapeIdentifier(rows[0]!.channel)}`);
    return client;
  }

  /** The listening connection ended: events sent meanwhile are lost, so streams read everything again once back. */
  #lost(client: pg.Client) {
    if (this.#closed || this.#client !== client) return;
    this.#client = undefined;
    void client.end().catch(() => undefined);
    this.#reconnect();
  }

  #reconnect() {
    this.#retry = setTimeout(() => {
      this.#listen().then(
        (fresh) => {
          if (this.#closed) return void fresh.end();
          this.#client = fresh;
          this.#retryMs = 250;
          for (const listener of this.#gapListeners) listener();
        },
        (err: unknown) => {
          this.log.warn({ err }, 'live events: reconnect failed');
          this.#retryMs = Math.min(this.#retryMs * 2, RECONNECT_MAX_MS);
          if (!this.#closed) this.#reconnect();
        },
      );
    }, this.#retryMs);
    // Retrying must not keep alive a process that is otherwise done.
    this.#retry.unref();
  }

  async publish(db: Db, events: readonly RoutedEvent[]): Promise<void> {
    const large = events.some((r) => (r.audience.users?.length ?? 0) > USERS_PER_NOTIFY);
    // The usual change (a few events, a few users each) is one NOTIFY; a broadcast's long audience is split.
    if (!large) {
      const wire: Wire = events.map(({ event, audience }) => ({ e: event, a: audience }));
      await notify(db, wire);
      return;
    }
    for (const routed of events) await this.#publishSplit(db, routed);
  }

  async #publishSplit(db: Db, { event, audience }: RoutedEvent): Promise<void> {
    const users = audience.users ?? [];
    const parts: Wire[] = [];
    if (users.length <= USERS_PER_NOTIFY) parts.push([{ e: event, a: audience }]);
    else
      for (let i = 0; i < users.length; i += USERS_PER_NOTIFY)
        parts.push([
          {
            e: event,
            a: { ...audience, users: users.slice(i, i + USERS_PER_NOTIFY), admins: i === 0 && audience.admins },
          },
        ]);
    for (const part of parts) await notify(db, part);
  }

  onEvent(listener: (routed: RoutedEvent) => void): void {
    this.#listeners.push(listener);
  }

  onGap(listener: () => void): void {
    this.#gapListeners.push(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }
}
