import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseConfig } from '../config/config.js';
import { applicationName, type DatabaseHandle } from '../db/database.js';
import { LocalBus } from './bus-local.js';
import { PostgresBus } from './bus-postgres.js';
import type { LiveConfig } from '../config/live.js';
import type { EventBus } from './events.js';
import { LiveHub } from './hub.js';

export interface Live {
  hub: LiveHub;
  bus: EventBus;
  /** Ends the streams, then stops listening. */
  close(): Promise<void>;
}

/**
 * The event stream's two halves for this process: the bus services publish to (PostgreSQL's NOTIFY between processes,
 * in-process on SQLite) and the hub that writes to this process's streams whatever the bus carries.
 */
export async function startLive(
  config: LiveConfig,
  database: DatabaseConfig,
  handle: DatabaseHandle,
  log: FastifyBaseLogger,
): Promise<Live> {
  const hub = new LiveHub(config);
  let bus: EventBus;
  if (database.kind === 'postgres') {
    const pgBus = new PostgresBus({ url: database.url, applicationName: applicationName(database.schema) }, log);
    await pgBus.start(handle.db);
    bus = pgBus;
  } else {
    bus = new LocalBus(handle.onNotify!);
  }
  bus.onEvent((routed) => hub.deliver(routed));
  bus.onGap(() => hub.gap());
  return {
    hub,
    bus,
    async close() {
      hub.close();
      await bus.close();
    },
  };
}
