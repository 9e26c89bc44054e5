import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { loadJobsConfig, type JobsConfig } from './jobs.js';
import { loadLiveConfig, type LiveConfig } from './live.js';
import { loadMetricsConfig, type MetricsConfig } from './metrics.js';
import { ConfigError, flag, integer } from '../lib/config-values.js';
import { loadPublicOrigin, type PublicOrigin } from '../lib/public-origin.js';

/** Where the database lives: the embedded SQLite file by default, PostgreSQL when DATABASE_URL says so. */
export type DatabaseConfig =
  | ({
      kind: 'sqlite';
      path: string;
    } & Partial<Pick<DatabaseTimeouts, 'lockTimeoutMs'>>)
  | ({
      kind: 'postgres';
      url: string;
      schema?: string;
      poolSize: number;
    } & Partial<DatabaseTimeouts>);

/** How long one request may wait on the database before it answers 503 instead of hanging. */
export interface DatabaseTimeouts {
  /** PostgreSQL: the longest a statement may run. */
  statementTimeoutMs: number;
  /** The longest a write waits for a lock another connection or process holds (PostgreSQL and SQLite). */
  lockTimeoutMs: number;
  /** PostgreSQL: the longest a request waits for a pooled connection (or a new one to open). */
  acquireTimeoutMs: number;
}

export const DATABASE_TIMEOUTS: DatabaseTimeouts = {
  statementTimeoutMs: 10_000,
  lockTimeoutMs: 5_000,
  acquireTimeoutMs: 5_000,
};

export interface AppConfig {
  host: string;
  port: number;
  database: DatabaseConfig;
  /** HMAC key for stored session-token and captcha hashes: a database leak alone yields nothing usable. */
  sessionSecret: string;
  /** Mark cookies Secure; on by default only when the operator says the site is served over HTTPS. */
  cookieSecure: boolean;
  /**
   * Which X-Forwarded-For hops to believe for the client address (rate limits, 登录设备): false, a number of proxies
   * in front (TRUST_PROXY=true is one), or their addresses. Never "all": the leftmost entry is whatever the client sent.
   */
  trustProxy: false | number | string;
  adminAccount: string;
  /** Empty: a password is generated and printed once when the admin is first created. */
  adminPassword: string;
  /**
   * ADMIN_2FA: `required` (default) refuses an admin without two-factor sign-in everything but enrolling in it;
   * `optional` leaves it to each admin, as for every other account.
   */
  admin2fa: Admin2fa;
  /** PUBLIC_ORIGIN: the address people open; passkeys are bound to it (lib/public-origin.ts). */
  publicOrigin: PublicOrigin;
  smtpUrl: string;
  mailFrom: string;
  logLevel: string;
  /** Per-request access logs; off by default because the reverse proxy usually keeps them. */
  logRequests: boolean;
  /** Built web app to serve; absent in API-only test runs. */
  webRoot: string;
  /** The scheduler of platform services and its sandbox connector. */
  jobs: JobsConfig;
  /** The event stream (GET /api/events): heartbeat, caps, replay window. */
  live: LiveConfig;
  /** Prometheus' /metrics: behind a bearer token, or on a loopback port of its own. */
  metrics: MetricsConfig;
}

export type Admin2fa = 'required' | 'optional';

function admin2fa(raw: string | undefined): Admin2fa {
  if (raw === undefined || raw === '') return 'required';
  if (raw === 'required' || raw === 'optional') return raw;
  throw new ConfigError(`ADMIN_2FA must be required or optional, got "${raw}"`);
}

export function parseDatabaseUrl(raw: string | undefined, poolSize = 10): DatabaseConfig {
  const url = raw && raw.trim() !== '' ? raw.trim() : 'sqlite:./data/app.db';
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (path === '') throw new ConfigError('DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/app.db');
    return { kind: 'sqlite', path: path === ':memory:' ? path : resolve(path) };
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    return { kind: 'postgres', url, poolSize };
  }
  throw new ConfigError('DATABASE_URL must start with sqlite: or postgres://');
}

/**
 * The session secret comes from SESSION_SECRET or, on a single machine, from a file generated once next to the
 * database. Several processes on one PostgreSQL must share SESSION_SECRET, or no process accepts another's session.
 */
function loadSessionSecret(env: NodeJS.ProcessEnv): string {
  if (env.SESSION_SECRET) {
    if (env.SESSION_SECRET.length < 32) throw new ConfigError('SESSION_SECRET must be at least 32 characters');
    return env.SESSION_SECRET;
  }
  const file = resolve(env.SESSION_SECRET_FILE ?? './data/session-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

/** DATABASE_SCHEMA: the PostgreSQL schema to use (its search_path), e.g. one private to a bench or test run. */
function withSchema(database: DatabaseConfig, raw: string | undefined): DatabaseConfig {
  if (raw === undefined || raw === '') return database;
  if (database.kind !== 'postgres') throw new ConfigError('DATABASE_SCHEMA applies only to a postgres:// DATABASE_URL');
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw))
    throw new ConfigError(`DATABASE_SCHEMA must be a lower-case identifier, got "${raw}"`);
  return { ...database, schema: raw };
}

function timeouts(env: NodeJS.ProcessEnv): DatabaseTimeouts {
  const d = DATABASE_TIMEOUTS;
  return {
    statementTimeoutMs: integer(
      'DATABASE_STATEMENT_TIMEOUT_MS',
      env.DATABASE_STATEMENT_TIMEOUT_MS,
      d.statementTimeoutMs,
      100,
      600_000,
    ),
    lockTimeoutMs: integer('DATABASE_LOCK_TIMEOUT_MS', env.DATABASE_LOCK_TIMEOUT_MS, d.lockTimeoutMs, 10, 600_000),
    acquireTimeoutMs: integer(
      'DATABASE_ACQUIRE_TIMEOUT_MS',
      env.DATABASE_ACQUIRE_TIMEOUT_MS,
      d.acquireTimeoutMs,
      100,
      600_000,
    ),
  };
}

/**
 * TRUST_PROXY: `true` trusts the one proxy in front (the address it appends to X-Forwarded-For is the client's); a
 * number trusts that many hops; a comma-separated list of addresses or CIDR ranges trusts those proxies only.
 */
export function trustedProxies(raw: string | undefined): false | number | string {
  const value = raw?.trim() ?? '';
  if (value === '' || ['0', 'false', 'no', 'off'].includes(value.toLowerCase())) return false;
  if (['true', 'yes', 'on'].includes(value.toLowerCase())) return 1;
  if (/^\d+$/.test(value)) return integer('TRUST_PROXY', value, 1, 1, 10);
  if (!/^[0-9a-fA-F.:/,\s]+$/.test(value))
    throw new ConfigError('TRUST_PROXY must be true, a number of proxies, or their addresses (e.g. 10.0.0.0/8)');
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const database = parseDatabaseUrl(
    env.DATABASE_URL,
    integer('DATABASE_POOL_SIZE', env.DATABASE_POOL_SIZE, 10, 1, 200),
  );
  const limits = timeouts(env);
  const port = integer('PORT', env.PORT, 8080, 0, 65535);
  const cookieSecure = flag(env.COOKIE_SECURE, false);
  return {
    host: env.HOST || '127.0.0.1',
    port,
    database: withSchema(
      database.kind === 'sqlite' ? { ...database, lockTimeoutMs: limits.lockTimeoutMs } : { ...database, ...limits },
      env.DATABASE_SCHEMA,
    ),
    sessionSecret: loadSessionSecret(env),
    cookieSecure,
    trustProxy: trustedProxies(env.TRUST_PROXY),
    adminAccount: env.ADMIN_ACCOUNT || 'admin',
    adminPassword: env.ADMIN_PASSWORD ?? '',
    admin2fa: admin2fa(env.ADMIN_2FA),
    publicOrigin: loadPublicOrigin(env, port, cookieSecure),
    smtpUrl: env.SMTP_URL ?? '',
    mailFrom: env.MAIL_FROM || '积分商城 <no-reply@localhost>',
    logLevel: env.LOG_LEVEL || 'info',
    logRequests: flag(env.LOG_REQUESTS, false),
    webRoot: resolve(env.WEB_ROOT ?? './dist/web'),
    jobs: loadJobsConfig(env),
    live: loadLiveConfig(env),
    metrics: loadMetricsConfig(env),
  };
}
