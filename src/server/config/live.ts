import { integer } from '../lib/config-values.js';

/** The event stream's settings (environment variables, README "Configuration"). */
export interface LiveConfig {
  /** A comment line this often on every open stream, so proxies and phones keep the connection (LIVE_HEARTBEAT_MS). */
  heartbeatMs: number;
  /** Streams one user may hold open on one process: a few tabs and phones (LIVE_MAX_STREAMS_PER_USER). */
  maxStreamsPerUser: number;
  /** Streams one process holds open at most (LIVE_MAX_STREAMS). */
  maxStreams: number;
  /** Events each process keeps to replay after a reconnect with Last-Event-ID (LIVE_REPLAY_EVENTS). */
  replayEvents: number;
  /** A stream ends after this long and the browser reconnects through the session guard (a session ended meanwhile is refused then). */
  maxAgeMs: number;
}

export function loadLiveConfig(env: NodeJS.ProcessEnv): LiveConfig {
  return {
    heartbeatMs: integer('LIVE_HEARTBEAT_MS', env.LIVE_HEARTBEAT_MS, 25_000, 100, 300_000),
    maxStreamsPerUser: integer('LIVE_MAX_STREAMS_PER_USER', env.LIVE_MAX_STREAMS_PER_USER, 8, 1, 1000),
    maxStreams: integer('LIVE_MAX_STREAMS', env.LIVE_MAX_STREAMS, 5000, 1, 100_000),
    replayEvents: integer('LIVE_REPLAY_EVENTS', env.LIVE_REPLAY_EVENTS, 2000, 0, 1_000_000),
    maxAgeMs: 10 * 60_000,
  };
}
