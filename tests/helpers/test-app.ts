import { afterAll, beforeAll } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/server/app.js';
import type { AppConfig } from '../../src/server/config/config.js';
import type { JobsConfig } from '../../src/server/config/jobs.js';
import { loadLiveConfig } from '../../src/server/config/live.js';
import type { Mail, Mailer } from '../../src/server/support/mailer.js';
import { ApiClient } from './client.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export const ADMIN = { userAccount: 'admin', userPassword: 'AdminPassw0rd!' };
export const PASSWORD = 'Passw0rd!';

/** A clock tests can move forward (captcha expiry, lockout windows, session idle time). */
export class TestClock {
  current: number;
  constructor(start: number = Date.now()) {
    this.current = start;
  }
  now = () => this.current;
  advance(ms: number) {
    this.current += ms;
  }
}

/** Keeps sent mail in memory; `failNext` simulates an SMTP outage. */
export class MemoryMailer implements Mailer {
  sent: Mail[] = [];
  failNext = false;
  async send(mail: Mail) {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('smtp down');
    }
    this.sent.push(mail);
  }
  close() {}
  lastCode(to: string): string {
    const mail = [...this.sent].reverse().find((m) => m.to === to);
    const code = mail?.text.match(/\b(\d{6})\b/)?.[1];
    if (!code) throw new Error(`no code mailed to ${to}`);
    return code;
  }
}

export interface TestAppOptions {
  /**
   * Send mail through the app's own transport (nodemailer to `smtpUrl`, src/server/modules/email/mailer.ts) instead
   * of the in-memory mailer; `mailer` then stays empty.
   */
  realMailer?: boolean;
  /** Changes the test database's settings before the app opens it (e.g. a PostgreSQL address through a proxy). */
  database?: (config: TestDatabase['config']) => TestDatabase['config'];
  /**
   * The instant the app's clock shows from its very start, before the admin is seeded or anything is rolled up. A
   * test that fixes a time must fix it here: moving the clock after the start leaves the seeded admin, the start-up
   * rollups and anything else made at start on today's real date, which changes under the test every day.
   */
  startAt?: number;
}

export interface TestApp {
  built: BuiltApp;
  clock: TestClock;
  /** The in-memory mailer the app sends through (unused, and empty, with `realMailer`). */
  mailer: MemoryMailer;
  db: TestDatabase;
  /** A fresh client with no session (a visitor). */
  client(): ApiClient;
  admin(): Promise<ApiClient>;
  /** The seeded admin's user id. */
  adminId(): Promise<number>;
  /** Registers (through the API) and logs in a new user; `role` agent is granted by the admin. */
  newUser(options?: {
    role?: 'user' | 'agent' | 'admin';
    invitationCode?: string;
  }): Promise<{ client: ApiClient; id: number; userAccount: string }>;
  close(): Promise<void>;
}

/** The scheduler in tests: no background loop (a test ticks it on its own clock), an instant sandbox that never fails. */
export const TEST_JOBS_CONFIG: JobsConfig = {
  enabled: false,
  timeZone: 'Asia/Shanghai',
  pollMs: 1000,
  leaseMs: 60_000,
  concurrency: 4,
  runTimeoutMs: 30_000,
  shutdownMs: 1000,
  batchChunk: 200,
  sandbox: { latencyMs: 0, failurePercent: 0, seed: 1 },
};

let counter = 0;
export const uniqueAccount = (prefix = 'u') =>
  `${prefix}${process.pid % 1000}_${(counter++).toString(36)}${Math.random().toString(36).slice(2, 5)}`.slice(0, 16);

export function testConfig(database: TestDatabase['config'], overrides: Partial<AppConfig> = {}): AppConfig {
  return {
    host: '127.0.0.1',
    port: 0,
    database,
    sessionSecret: 'test-secret-test-secret-test-secret!',
    cookieSecure: false,
    trustProxy: false,
    adminAccount: ADMIN.userAccount,
    adminPassword: ADMIN.userPassword,
    // The suites sign the admin in with its password alone; tests/api/two-factor.test.ts covers `required`.
    admin2fa: 'optional',
    publicOrigin: { origin: 'http://localhost:8080', rpId: 'localhost' },
    smtpUrl: '',
    mailFrom: 'test <test@localhost>',
    logLevel: 'silent',
    logRequests: false,
    webRoot: '/nonexistent',
    jobs: TEST_JOBS_CONFIG,
    live: loadLiveConfig({}),
    metrics: { token: '', port: 0 },
    ...overrides,
  };
}

export async function startTestApp(overrides: Partial<AppConfig> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const clock = new TestClock(options.startAt);
  const mailer = new MemoryMailer();
  let built: BuiltApp;
  try {
    built = await buildApp(testConfig(options.database ? options.database(db.config) : db.config, overrides), {
      logger: process.env.TEST_LOG ? { level: 'error' } : false,
      ...(options.realMailer ? {} : { mailer }),
      now: clock.now,
    });
  } catch (error) {
    // A start that fails (e.g. a migration error) leaves no schema or file behind.
    await db.drop();
    throw error;
  }
  const client = () => new ApiClient(built.fastify);
  let adminClient: ApiClient | undefined;
  const app: TestApp = {
    built,
    clock,
    mailer,
    db,
    client,
    async admin() {
      if (!adminClient) {
        adminClient = client();
        await adminClient.ok('userLogin', { body: ADMIN });
      }
      return adminClient;
    },
    async adminId() {
      return (await (await app.admin()).ok('userGetLogin')).id;
    },
    async newUser(options = {}) {
      const userAccount = uniqueAccount();
      const c = client();
      let id: number;
      if (options.role === 'admin') {
        id = await (
          await app.admin()
        ).ok('userAdd', { body: { userAccount, userPassword: PASSWORD, userRole: 'admin' } });
      } else {
        id = await c.ok('userRegister', {
          body: {
            userAccount,
            userPassword: PASSWORD,
            checkPassword: PASSWORD,
            ...(options.invitationCode ? { invitationCode: options.invitationCode } : {}),
          },
          ip: `10.0.${counter % 250}.${(counter++ % 250) + 1}`,
        });
        if (options.role === 'agent') await (await app.admin()).ok('userUpdateBoss', { query: { userAccount } });
      }
      await c.ok('userLogin', { body: { userAccount, userPassword: PASSWORD } });
      return { client: c, id, userAccount };
    },
    async close() {
      await built.fastify.close();
      await db.drop();
    },
  };
  return app;
}

/** Starts one app for the file's tests and closes it after them. */
export function useTestApp(overrides: Partial<AppConfig> = {}, options: TestAppOptions = {}): () => TestApp {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await startTestApp(overrides, options);
  });
  afterAll(async () => {
    await app?.close();
  });
  return () => {
    if (!app) throw new Error('test app not started');
    return app;
  };
}
