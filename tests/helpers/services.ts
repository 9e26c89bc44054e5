import { expect } from 'vitest';
import type { Schemas } from '../../src/api/operations.js';
import type { ApiClient } from './client.js';
import { idem } from './ledger.js';
import type { TestApp } from './test-app.js';

/** An instant given as wall-clock time in the site's time zone (Asia/Shanghai, UTC+8 all year). */
export const siteTime = (local: string): number => Date.parse(`${local}:00+08:00`);

export const WEEKDAYS_0830: Schemas['ClockInSettings'] = {
  days: [1, 2, 3, 4, 5],
  checkInTime: '08:30',
  notify: 'inbox',
};

/** A new on-shelf platform of a kind, priced as the test needs (the seeded ones stay off shelf). */
export async function addPlatform(
  app: TestApp,
  options: { kind?: string; price: number; billingUnit: Schemas['BillingUnit']; retryLimit?: number },
): Promise<number> {
  const admin = await app.admin();
  return admin.ok('platformAdd', {
    body: {
      kind: options.kind ?? 'gxy',
      name: `测试平台${Math.random().toString(36).slice(2, 6)}`,
      price: options.price,
      billingUnit: options.billingUnit,
      retryLimit: options.retryLimit ?? 3,
      status: 1,
    },
  });
}

/** Saves settings and starts the service, as the platform page does. */
export async function startService(
  client: ApiClient,
  platformId: number,
  settings: object = WEEKDAYS_0830,
): Promise<Schemas['Service']> {
  const saved = await client.ok<Schemas['Service']>('serviceSave', { body: { platformId, settings } });
  return client.ok<Schemas['Service']>('serviceStart', { body: { id: saved.id }, headers: idem() });
}

/**
 * Moves the test clock to `until` in steps, letting the scheduler plan and execute at each step, as the poll loop
 * would. Sessions slide forward with use, so the given clients (and the admin) call once per simulated day.
 */
export async function runUntil(
  app: TestApp,
  until: number,
  options: { stepMs?: number; keepAlive?: ApiClient[] } = {},
): Promise<void> {
  const step = options.stepMs ?? 30 * 60_000;
  const admin = await app.admin();
  let lastAlive = app.clock.current;
  while (app.clock.current < until) {
    app.clock.current = Math.min(until, app.clock.current + step);
    await app.built.scheduler.tick();
    if (app.clock.current - lastAlive >= 24 * 3600_000) {
      lastAlive = app.clock.current;
      for (const c of [admin, ...(options.keepAlive ?? [])]) await c.ok('userGetLogin');
    }
  }
}

/** A service's runs straight from the database, oldest first, numbers normalised. */
export async function runsOf(app: TestApp, serviceId: number) {
  const rows = await app.built.context.db
    .selectFrom('runs')
    .selectAll()
    .where('serviceId', '=', serviceId)
    .orderBy('scheduledAt')
    .execute();
  return rows.map((r) => ({
    ...r,
    scheduledAt: Number(r.scheduledAt),
    attempts: Number(r.attempts),
    charged: Number(r.charged),
  }));
}

/** The service's check-ins as the sandbox platform received them. */
export async function checkinsOf(app: TestApp, serviceId: number) {
  return app.built.context.db.selectFrom('sandboxCheckins').selectAll().where('serviceId', '=', serviceId).execute();
}

/**
 * The user's notices about its services, oldest first: the coins a test grants to set a user up leave notices of their
 * own (积分到账), which are not what these tests look at.
 */
export async function noticesOf(app: TestApp, userId: number) {
  return app.built.context.db
    .selectFrom('notices')
    .selectAll()
    .where('userId', '=', userId)
    .where('kind', 'not in', ['coins_credited', 'coins_debited'])
    .orderBy('id')
    .execute();
}

/** The weekday (1 Monday … 7 Sunday) and the wall-clock time of an instant in the site's time zone. */
export function siteWallClock(ms: number): { weekday: number; time: string; day: string } {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Asia/Shanghai',
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(ms);
  const get = (t: string) => parts.find((p) => p.type === t)!.value;
  const weekday = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(get('weekday')) + 1;
  expect(weekday).toBeGreaterThan(0);
  return { weekday, time: `${get('hour')}:${get('minute')}`, day: `${get('year')}-${get('month')}-${get('day')}` };
}
