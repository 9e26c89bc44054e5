import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dbKind, type TestDatabase } from '../helpers/database.js';
import { newKey } from '../helpers/ledger.js';
import { freePort } from '../helpers/ports.js';
import { children, ensureServerBuilt, HttpClient, kill, startServer } from '../helpers/server-process.js';
import { addPlatform, startService } from '../helpers/services.js';
import { ADMIN, useTestApp } from '../helpers/test-app.js';

// GET /metrics for Prometheus (src/server/metrics): off the public surface, in the text exposition format, and moved
// by what the app does.

const TOKEN = 'metrics-token-for-the-tests-0123456789';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Parses Prometheus' text exposition format (0.0.4) strictly enough to fail on anything malformed: every line a HELP,
 * a TYPE or a sample; every sample's family declared by a TYPE line before it.
 */
function parseExposition(text: string): Sample[] {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (-?(?:[0-9.e+-]+|NaN|\+Inf|-Inf))$/;
  const label = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta) {
      if (meta[1] === 'TYPE') {
        expect(['counter', 'gauge', 'histogram', 'summary', 'untyped']).toContain(meta[3]);
        types.set(meta[2]!, meta[3]!);
      }
      continue;
    }
    const m = sample.exec(line);
    expect(m, `not a sample line: ${line}`).not.toBeNull();
    const name = m![1]!;
    const family = [...types.keys()].find(
      (t) => name === t || (/^_(bucket|sum|count|total|created)$/.test(name.slice(t.length)) && name.startsWith(t)),
    );
    expect(family, `${name} has no TYPE line before it`).toBeDefined();
    const labels: Record<string, string> = {};
    for (const l of (m![3] ?? '').matchAll(label)) labels[l[1]!] = l[2]!;
    samples.push({ name, labels, value: Number(m![4]) });
  }
  return samples;
}

const valueOf = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);

describe(`/metrics (${dbKind()})`, () => {
  const app = useTestApp({ metrics: { token: TOKEN, port: 0 } });

  const scrape = async (authorization?: string) =>
    app().built.fastify.inject({
      method: 'GET',
      url: '/metrics',
      headers: authorization ? { authorization } : {},
    });

  it('answers only a bearer of METRICS_TOKEN, never cached, in the text format', async () => {
    expect((await scrape()).statusCode).toBe(401);
    expect((await scrape('Bearer not-the-token')).statusCode).toBe(401);
    const ok = await scrape(`Bearer ${TOKEN}`);
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toContain('text/plain; version=0.0.4');
    expect(ok.headers['cache-control']).toBe('no-store');
    const samples = parseExposition(ok.body);
    for (const family of [
      'process_cpu_seconds_total',
      'http_requests_in_flight',
      'scheduler_runs_due',
      'event_streams_open',
      dbKind() === 'postgres' ? 'db_pool_connections' : 'sqlite_busy_retries_total',
    ])
      expect(samples.some((s) => s.name === family)).toBe(true);
    // Not under /api: the contract is for phones.
    expect((await app().client().call('userGetLogin')).status).toBe(401);
    const underApi = await app().built.fastify.inject({ method: 'GET', url: '/api/metrics' });
    expect(underApi.statusCode).toBe(404);
  });

  it('a transfer moves the request, the coin movement and the in-flight figures; a run the scheduler ones', async () => {
    const t = app();
    const admin = await t.admin();
    const payer = await t.newUser();
    const payee = await t.newUser();
    await admin.ok('userAddCoin', {
      body: { userAccount: payer.userAccount, coin: 50, description: '期初' },
      headers: { 'idempotency-key': newKey() },
    });
    const before = parseExposition((await scrape(`Bearer ${TOKEN}`)).body);
    await payer.client.ok('userTransferCoin', {
      body: { userAccount: payee.userAccount, coin: 5 },
      headers: { 'idempotency-key': newKey() },
    });
    const platformId = await addPlatform(t, { price: 1, billingUnit: 'per_run' });
    const service = await startService(payer.client, platformId);
    await payer.client.ok('serviceRunNow', { body: { id: service.id }, headers: { 'idempotency-key': newKey() } });
    await t.built.scheduler.tick();
    const after = parseExposition((await scrape(`Bearer ${TOKEN}`)).body);
    const moved = (name: string, labels?: Record<string, string>) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);

    expect(moved('coin_movements_total', { kind: 'transfer_out' })).toBe(1);
    expect(moved('coin_movements_total', { kind: 'transfer_in' })).toBe(1);
    expect(moved('http_request_duration_seconds_count', { operation: 'userTransferCoin', status_class: '2xx' })).toBe(
      1,
    );
    expect(moved('scheduler_runs_claimed_total')).toBe(1);
    expect(moved('scheduler_runs_finished_total', { outcome: 'succeeded' })).toBe(1);
    expect(moved('coin_movements_total', { kind: 'service_charge' })).toBe(1);
    expect(valueOf(after, 'http_requests_in_flight')).toBe(1); // the scrape itself
  });
});

describe('/metrics without METRICS_TOKEN', () => {
  const app = useTestApp();
  it('is not served on the app port', async () => {
    const answer = await app().built.fastify.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: 'Bearer anything-at-all-0000' },
    });
    expect(answer.statusCode).toBe(404);
  });
});

describe(`METRICS_PORT (${dbKind()})`, () => {
  let db: TestDatabase | undefined;
  afterAll(async () => {
    await Promise.all([...children].map((child) => kill(child, 'SIGTERM')));
    await db?.drop();
  });

  it('serves /metrics on a loopback port of its own, and with WORKERS=2 sums every worker', async () => {
    await ensureServerBuilt();
    db = await createTestDatabase();
    const port = await freePort();
    const workers = dbKind() === 'postgres' ? '2' : '1';
    const server = await startServer(db, randomBytes(32).toString('base64url'), {
      METRICS_PORT: String(port),
      WORKERS: workers,
    });
    const client = new HttpClient(() => server);
    await client.ok('userLogin', ADMIN);
    // Many connections at once, so with two workers both answer some.
    const calls = 30;
    await Promise.all(Array.from({ length: calls }, () => client.ok('userGetLogin')));
    const response = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(response.status).toBe(200);
    const samples = parseExposition(await response.text());
    expect(valueOf(samples, 'http_request_duration_seconds_count', { operation: 'userGetLogin' })).toBe(calls);
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
  }, 120_000);
});
