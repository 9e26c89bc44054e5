// What an event-stream answer is, for the handler that opens one and the http layer that writes it (http/routes.ts).
import type { Readable } from 'node:stream';

/** A `text/event-stream` answer (GET /api/events): written as it comes, not in the envelope. */
export interface EventStreamAnswer {
  stream: Readable;
}
