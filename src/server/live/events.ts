// What the event stream says, and how a change says it. Services call `publish(db, event, audience)` where their
// change commits: inside the transaction (delivered once it commits, dropped if it rolls back) or right after it.
// The events travel through the database itself (db/live-notify.ts): a NOTIFY on PostgreSQL, which every process
// hears, and the SQLite driver's in-process counterpart; the bus of each process (bus-postgres.ts, bus-local.ts)
// hears them and hands them to its streams.
import type { Schemas } from '../../api/operations.js';
import type { Db } from '../db/database.js';
import { notifyLive } from '../db/live-notify.js';

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

/** Hears the events the database carries, for this process's streams (bus-local.ts, bus-postgres.ts). */
export interface EventBus {
  /** Every event published by any process, this one included. */
  onEvent(listener: (routed: RoutedEvent) => void): void;
  /** The bus may have lost events (the listening connection dropped): streams should read everything again. */
  onGap(listener: () => void): void;
  close(): Promise<void>;
}

/** One payload: the events of one change, each with who hears it. */
type Wire = { e: LiveEvent; a: Audience }[];

/** A NOTIFY carries at most 8000 bytes; an audience of many users (a broadcast's chunk) goes in several. */
const USERS_PER_PAYLOAD = 500;

/** The payloads that carry `events`: the usual change (a few events, a few users each) is one. */
function payloadsOf(events: readonly RoutedEvent[]): string[] {
  const large = events.some((r) => (r.audience.users?.length ?? 0) > USERS_PER_PAYLOAD);
  if (!large) return [JSON.stringify(events.map(({ event, audience }): Wire[number] => ({ e: event, a: audience })))];
  const payloads: string[] = [];
  for (const { event, audience } of events) {
    const users = audience.users ?? [];
    for (let i = 0; i === 0 || i < users.length; i += USERS_PER_PAYLOAD) {
      const part =
        users.length <= USERS_PER_PAYLOAD
          ? audience
          : { ...audience, users: users.slice(i, i + USERS_PER_PAYLOAD), admins: i === 0 && audience.admins };
      payloads.push(JSON.stringify([{ e: event, a: part }]));
    }
  }
  return payloads;
}

/** The events one payload carries (a bus's side of payloadsOf). */
export const eventsOf = (payload: string): RoutedEvent[] =>
  (JSON.parse(payload) as Wire).map(({ e, a }) => ({ event: e, audience: a }));

const heardBySomeone = ({ audience }: RoutedEvent) =>
  (audience.users?.length ?? 0) > 0 ||
  audience.admins === true ||
  audience.everyone === true ||
  audience.sessionsOf !== undefined;

/** Tells the streams of `audience` that something changed; delivered after `db`'s transaction commits. */
export const publish = (db: Db, event: LiveEvent, audience: Audience): Promise<void> =>
  publishAll(db, [{ event, audience }]);

/** Several events of one change in one message (one statement in the transaction). */
export async function publishAll(db: Db, events: readonly RoutedEvent[]): Promise<void> {
  const heard = events.filter(heardBySomeone);
  if (heard.length > 0) for (const payload of payloadsOf(heard)) await notifyLive(db, payload);
}

/** The user's own event, which admins also hear (their lists show everyone's orders and runs). */
export const ownerAndAdmins = (userId: number): Audience => ({ users: [userId], admins: true });
