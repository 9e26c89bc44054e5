// What the event stream says, and how a change says it. Services call `publish(db, event, audience)` where their
// change commits: inside the transaction (delivered once it commits, dropped if it rolls back) or right after it.
import type { Schemas } from '../../api/operations.js';
import type { Db } from '../db/database.js';

/** An event as the stream sends it (openapi.yaml `LiveEvent`): a kind and ids, never the record itself. */
export type LiveEvent = Schemas['LiveEvent'];

/**
 * Who hears an event: its owners (by user id), every admin, or every open stream (the site record). `sessionsOf` is
 * an end of sessions: the streams those sessions hold hear it as their last event and are closed.
 */
export interface Audience {
  users?: readonly number[];
  admins?: boolean;
  everyone?: boolean;
  sessionsOf?: SessionsEnded;
}

/** A user's sessions that ended: the ones named (`only`, by stored hash), or all but `except`, or all. */
export interface SessionsEnded {
  userId: number;
  only?: readonly string[];
  except?: string;
}

/** An event and who hears it, as it travels between processes. */
export interface RoutedEvent {
  event: LiveEvent;
  audience: Audience;
}

/** Carries events from where they commit to every process's streams (bus-local.ts, bus-postgres.ts). */
export interface EventBus {
  /** Sends once `db`'s transaction commits (at once outside one); several events travel as one message. */
  publish(db: Db, routed: readonly RoutedEvent[]): Promise<void>;
  /** Every event published by any process, this one included. */
  onEvent(listener: (routed: RoutedEvent) => void): void;
  /** The bus may have lost events (the listening connection dropped): streams should read everything again. */
  onGap(listener: () => void): void;
  close(): Promise<void>;
}

// The bus travels with the database: services hold a Db (or a transaction of it), not the app, and a transaction
// shares its root's adapter, so the adapter names the bus. A database without one (a migration, a tool) publishes
// nowhere.
const buses = new WeakMap<object, EventBus>();
const keyOf = (db: Db): object => db.getExecutor().adapter;

export const attachBus = (db: Db, bus: EventBus): void => void buses.set(keyOf(db), bus);
export const detachBus = (db: Db): void => void buses.delete(keyOf(db));

const heardBySomeone = ({ audience }: RoutedEvent) =>
  (audience.users?.length ?? 0) > 0 ||
  audience.admins === true ||
  audience.everyone === true ||
  audience.sessionsOf !== undefined;

/** Tells the streams of `audience` that something changed; delivered after `db`'s transaction commits. */
export const publish = (db: Db, event: LiveEvent, audience: Audience): Promise<void> =>
  publishAll(db, [{ event, audience }]);

/** Several events of one change in one message (on PostgreSQL one NOTIFY, sent with the COMMIT: no round trip). */
export async function publishAll(db: Db, events: readonly RoutedEvent[]): Promise<void> {
  const bus = buses.get(keyOf(db));
  const heard = events.filter(heardBySomeone);
  if (bus && heard.length > 0) await bus.publish(db, heard);
}

/** The user's own event, which admins also hear (their lists show everyone's orders and runs). */
export const ownerAndAdmins = (userId: number): Audience => ({ users: [userId], admins: true });
