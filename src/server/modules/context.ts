import type { FastifyBaseLogger } from 'fastify';
import type { AppConfig } from '../config/config.js';
import type { Db } from '../db/database.js';
import type { LiveHub } from '../live/hub.js';
import type { Metrics } from '../metrics/metrics.js';
import type { LookupHost } from './ai/target-guard.js';
import type { Mailer } from '../support/mailer.js';
import type { SettingsValidator } from './services/settings.js';

/** What services need from the running app; tests build one with their own clock or mailer. */
export interface AppContext {
  db: Db;
  config: AppConfig;
  mailer: Mailer;
  log: FastifyBaseLogger;
  now(): number;
  /** Facts read often and changed rarely, refreshed from the database (see modules/site/analytics.ts). */
  live: { analyticsOrigin: string };
  /** Services' settings against their kind's schema in openapi.yaml. */
  settings: SettingsValidator;
  /** Resolves host names the server calls out to (the AI endpoint), so a test can stub the resolver. */
  lookupHost: LookupHost;
  /** This process's event streams (GET /api/events); services publish with live/events.ts `publish`, not through it. */
  streams: LiveHub;
  /** What /metrics reports; parts of the app count into it (metrics/metrics.ts). */
  metrics: Metrics;
  /**
   * Posts a form to one of this server's own paths over loopback (http/loopback.ts), as a gateway on the same machine
   * would: the sandbox gateway's notifications. Answers the body.
   */
  loopback: (path: string, form: Record<string, string>) => Promise<string>;
}
