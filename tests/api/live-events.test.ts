import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applicationName } from '../../src/server/db/database.js';
import { publish } from '../../src/server/live/events.js';
import { loadLiveConfig } from '../../src/server/config/live.js';
import { dbKind, POSTGRES_URL } from '../helpers/database.js';
import { EventStreamReader } from '../helpers/event-stream.js';
import { grant, idem } from '../helpers/ledger.js';
import { addPlatform, startService } from '../helpers/services.js';
import { startTestApp, useTestApp, type TestApp } from '../helpers/test-app.js';

// GET /api/events over real HTTP on both databases: who hears what, resuming with Last-Event-ID, the heartbeat, the
// caps, and that an event is heard only once its transaction commits.

const LIVE = { ...loadLiveConfig({}), heartbeatMs: 150, maxStreamsPerUser: 3, replayEvents: 8 };
const app = useTestApp({ live: LIVE });
let base = '';
const open: EventStreamReader[] = [];

beforeAll(async () => {
  base = await app().built.fastify.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await Promise.all(open.map((r) => r.close()));
});

/** Opens a stream for the client's session and waits for its `ready`. */
async function stream(cookie: string | undefined, lastEventId?: string) {
  const { reader, opened } = await EventStreamReader.open(base, cookie, { lastEventId });
  expect(opened.status, JSON.stringify(opened.refusal)).toBe(200);
  open.push(reader);
  await reader.next((d) => d.kind === 'ready');
  return reader;
}

/**
 * Grants the user each of `amounts` and waits until the server has heard every grant back, as a stream kept open
 * does: on PostgreSQL events come back through NOTIFY, and a stream resumed before they have would replay only the
 * ones heard so far (the later ones reach it live, after ready).
 */
async function grantsHeard(user: Awaited<ReturnType<TestApp['newUser']>>, amounts: number[]) {
  const watcher = await stream(user.client.cookie);
  for (const amount of amounts) await grant(app(), user.userAccount, amount);
  await watcher.until(
    `${amounts.length} balances`,
    (r) => r.events.filter((e) => e.data.kind === 'balance').length >= amounts.length,
    5000,
  );
  await watcher.close();
}

/** Long enough for an event that was going to come to have come (they arrive in milliseconds here). */
const settle = () => new Promise((r) => setTimeout(r, 300));

describe(`the event stream (${dbKind()})`, () => {
  it('opens as text/event-stream, unbuffered, with a retry and a ready event that carries an id', async () => {
    const user = await app().newUser();
    const { reader, opened } = await EventStreamReader.open(base, user.client.cookie);
    open.push(reader);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(opened.headers.get('x-accel-buffering')).toBe('no');
    expect(opened.headers.get('cache-control')).toContain('no-transform');
    const ready = await reader.next((d) => d.kind === 'ready');
    expect(ready.id).toMatch(/^[A-Za-z0-9]+-\d+$/);
    expect(reader.retry).toBe(3000);
  });

  it('refuses a visitor with 401 / 40100 and the envelope', async () => {
    const { opened } = await EventStreamReader.open(base, undefined);
    expect(opened.status).toBe(401);
    expect(opened.refusal?.code).toBe(40100);
  });

  it("tells a user of its own balance and notices; a second user's stream stays silent", async () => {
    const a = await app().newUser();
    const b = await app().newUser();
    const mine = await stream(a.client.cookie);
    const other = await stream(b.client.cookie);
    const admin = await stream((await app().admin()).cookie);

    await grant(app(), a.userAccount, 50);
    await mine.until('a hears the grant', (r) => r.changes.length >= 2);
    // An admin's grant is told twice: the balance, and the 积分到账 notice.
    await grant(app(), b.userAccount, 20);
    await other.until('b hears the grant', (r) => r.changes.filter((e) => e.data.kind !== 'ready').length >= 2);
    expect(other.changes.map((e) => e.data)).toEqual([{ kind: 'balance' }, { kind: 'notice', action: 'created' }]);
    // b pays a: both balances move, a gets a notice
    const before = other.changes.length;
    const aHeard = mine.events.length;
    await b.client.ok('userTransferCoin', { body: { userAccount: a.userAccount, coin: 5 }, headers: idem() });
    await mine.until('a hears the transfer', (r) =>
      r.events.slice(aHeard).some((e) => e.data.kind === 'notice' && e.data.action === 'created'),
    );
    await other.until('b hears its own balance', (r) => r.changes.length > before);
    await settle();
    expect(other.changes.slice(before).map((e) => e.data)).toEqual([{ kind: 'balance' }]);
    // Balances are nobody else's business, not even an admin's screen.
    expect(admin.changes.filter((e) => e.data.kind === 'balance' || e.data.kind === 'notice')).toEqual([]);

    await a.client.ok('noticeReadAll');
    await mine.next((d) => d.kind === 'notice' && d.action === 'read');
    await settle();
    // a reading its notices is nothing b hears (b's own 积分到账 came before the transfer).
    expect(other.changes.slice(before).filter((e) => e.data.kind === 'notice')).toEqual([]);
  });

  it('tells admins of every order, the buyer of its own, and nobody else', async () => {
    const buyer = await app().newUser();
    const bystander = await app().newUser();
    const packageId = await (
      await app().admin()
    ).ok('mallAdd', {
      body: { coinName: `实时套餐${Date.now() % 10000}`, amount: 100, addCoin: 10, status: 1, sort: 0 },
    });
    const admin = await stream((await app().admin()).cookie);
    const own = await stream(buyer.client.cookie);
    const silent = await stream(bystander.client.cookie);
    const order = await buyer.client.ok('orderSubmit', { body: { packageId }, headers: idem() });
    const expected = { kind: 'order', action: 'created', orderId: order.id };
    expect((await admin.next((d) => d.kind === 'order')).data).toEqual(expected);
    expect((await own.next((d) => d.kind === 'order')).data).toEqual(expected);
    await (await app().admin()).ok('orderConfirm', { body: { id: order.id }, headers: idem() });
    await own.next((d) => d.kind === 'order' && d.action === 'confirmed');
    await own.next((d) => d.kind === 'balance');
    await settle();
    expect(silent.changes).toEqual([]);
  });

  it("tells a run's owner when it is planned, claimed and finished", async () => {
    const user = await app().newUser();
    await grant(app(), user.userAccount, 10);
    const platformId = await addPlatform(app(), { price: 1, billingUnit: 'per_run' });
    const service = await startService(user.client, platformId);
    const mine = await stream(user.client.cookie);
    const run = await user.client.ok('serviceRunNow', { body: { id: service.id }, headers: idem() });
    await app().built.scheduler.tick();
    await mine.until('the run finished', (r) =>
      r.changes.some((e) => e.data.kind === 'run' && e.data.action === 'finished'),
    );
    const runEvents = mine.changes.filter((e) => e.data.kind === 'run').map((e) => e.data);
    expect(runEvents.map((d) => d.action)).toEqual(['planned', 'claimed', 'finished']);
    expect(runEvents[0]).toEqual({ kind: 'run', action: 'planned', runId: run.id, serviceId: service.id, platformId });
  });

  it("tells admins of a batch task's progress (no polling needed)", async () => {
    const admin = await stream((await app().admin()).cookie);
    const task = await (await app().admin()).ok('taskStatements');
    await admin.next((d) => d.kind === 'task' && d.taskId === task.id);
    const before = admin.changes.length;
    await app().built.scheduler.batches.drain();
    await admin.until('progress', (r) => r.changes.length > before);
    expect(admin.changes.slice(before).every((e) => e.data.kind === 'task' && e.data.taskId === task.id)).toBe(true);
  });

  it('tells every open stream of a change of the live site record', async () => {
    const a = await stream((await app().newUser()).client.cookie);
    await (await app().admin()).ok('basicInformationUpdate', { body: { id: 1, noticeBar: `实时 ${Date.now()}` } });
    await a.next((d) => d.kind === 'site');
  });

  it('resumes with Last-Event-ID: what was missed is replayed in order, then ready', async () => {
    const user = await app().newUser();
    const first = await stream(user.client.cookie);
    const lastId = first.events.at(-1)!.id;
    await first.close();
    await grantsHeard(user, [1, 2]);
    const again = await stream(user.client.cookie, lastId);
    // Each grant is its balance and its 积分到账 notice, replayed in the order they happened.
    expect(again.events.map((e) => e.data.kind)).toEqual(['balance', 'notice', 'balance', 'notice', 'ready']);
    const seqs = again.events.slice(0, -1).map((e) => Number(e.id.split('-')[1]));
    expect(seqs[0]).toBeGreaterThan(Number(lastId.split('-')[1]));
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBeGreaterThan(seqs[i - 1]!);
  });

  it('asks for a resync when the missed events are beyond the window, or the id is from another process', async () => {
    const user = await app().newUser();
    const first = await stream(user.client.cookie);
    const lastId = first.events.at(-1)!.id;
    await first.close();
    await grantsHeard(user, Array<number>(LIVE.replayEvents + 1).fill(1));
    const late = await stream(user.client.cookie, lastId);
    expect(late.events.map((e) => e.data.kind)).toEqual(['resync', 'ready']);
    const foreign = await stream(user.client.cookie, 'otherprocess-3');
    expect(foreign.events.map((e) => e.data.kind)).toEqual(['resync', 'ready']);
    await Promise.all([late.close(), foreign.close()]);
  });

  it('writes a heartbeat comment every LIVE_HEARTBEAT_MS', async () => {
    const reader = await stream((await app().newUser()).client.cookie);
    await reader.until('two heartbeats', (r) => r.comments >= 2, 2000);
  });

  it('caps the streams of one user, with a Chinese envelope; a closed one frees its place', async () => {
    const user = await app().newUser();
    const readers = [];
    for (let i = 0; i < LIVE.maxStreamsPerUser; i++) readers.push(await stream(user.client.cookie));
    const { opened } = await EventStreamReader.open(base, user.client.cookie);
    expect(opened.status).toBe(429);
    expect(opened.refusal?.code).toBe(42900);
    expect(opened.refusal?.message).toMatch(/[\u4e00-\u9fff]/);
    // Another user is not held back by this one's streams.
    await stream((await app().newUser()).client.cookie);
    await readers[0]!.close();
    await expect
      .poll(async () => (await EventStreamReader.open(base, user.client.cookie)).opened.status, { timeout: 3000 })
      .toBe(200);
  });

  it('hears an event published in a transaction only once it commits, and never one that rolled back', async () => {
    const user = await app().newUser();
    const reader = await stream(user.client.cookie);
    const db = app().built.context.db;
    await db
      .transaction()
      .execute(async (trx) => {
        await publish(trx, { kind: 'balance' }, { users: [user.id] });
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    await db.transaction().execute(async (trx) => {
      await publish(trx, { kind: 'site' }, { users: [user.id] });
      // Not yet: the transaction is still open.
      await settle();
      expect(reader.changes).toEqual([]);
    });
    await reader.next((d) => d.kind === 'site');
    await settle();
    expect(reader.changes.map((e) => e.data.kind)).toEqual(['site']);
  });

  it.runIf(dbKind() === 'postgres')(
    'tells every stream to read everything again once a lost listening connection is back, and hears events after',
    async () => {
      const user = await app().newUser();
      const reader = await stream(user.client.cookie);
      const config = app().db.config;
      if (config.kind !== 'postgres') throw new Error('unreachable');
      const other = new pg.Client({ connectionString: POSTGRES_URL });
      await other.connect();
      try {
        // This app's listening connection only: other test files share the database.
        const ended = await other.query(
          'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
          [`${applicationName(config.schema)}:live`],
        );
        expect(ended.rowCount).toBe(1);
      } finally {
        await other.end();
      }
      await reader.next((d) => d.kind === 'resync');
      await grant(app(), user.userAccount, 1);
      await reader.next((d) => d.kind === 'balance');
    },
  );
});

describe(`the event stream's limits on one process (${dbKind()})`, () => {
  let small: TestApp | undefined;
  afterAll(async () => {
    await small?.close();
  });

  it('caps the streams of the process, and shutdown ends open streams instead of waiting for them', async () => {
    small = await startTestApp({ live: { ...LIVE, maxStreams: 1 } });
    const url = await small.built.fastify.listen({ host: '127.0.0.1', port: 0 });
    const a = await small.newUser();
    const b = await small.newUser();
    const { reader, opened } = await EventStreamReader.open(url, a.client.cookie);
    expect(opened.status).toBe(200);
    await reader.next((d) => d.kind === 'ready');
    const refused = await EventStreamReader.open(url, b.client.cookie);
    expect(refused.opened.status).toBe(429);
    expect(refused.opened.refusal?.code).toBe(42900);
    const started = Date.now();
    await small.close();
    small = undefined;
    expect(Date.now() - started).toBeLessThan(3000);
    await reader.until('the stream ended', (r) => r.ended, 3000);
  });
});
