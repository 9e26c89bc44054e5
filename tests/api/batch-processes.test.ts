import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { insertUsers } from '../helpers/batches.js';
import { createTestDatabase, dbKind, type TestDatabase } from '../helpers/database.js';
import { children, ensureServerBuilt, HttpClient, inspect, kill, startServer } from '../helpers/server-process.js';
import type { TestApp } from '../helpers/test-app.js';

// A quota batch in the production server, killed (SIGKILL) in the middle and started again: it resumes after the last
// committed chunk and every line is granted exactly once.

const LINES = 1500;

async function waitUntil(what: string, done: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe(`batch tasks in a server process (${dbKind()})`, () => {
  let db: TestDatabase | undefined;
  let inspector: TestApp | undefined;

  afterAll(async () => {
    await Promise.all([...children].map((child) => kill(child, 'SIGKILL')));
    await inspector?.built.fastify.close();
    await db?.drop();
  });

  it('killed in the middle of a quota batch: after a restart it resumes and grants every line exactly once', async () => {
    await ensureServerBuilt();
    db = await createTestDatabase();
    const secret = randomBytes(32).toString('base64url');
    // Small chunks, so the kill falls between many commits; a short lease, so the restart takes the batch over soon.
    const env = { SCHEDULER: 'on', SCHEDULER_POLL_MS: '50', SCHEDULER_LEASE_MS: '2000', BATCH_CHUNK: '20' };
    let server = await startServer(db, secret, env);
    inspector = await inspect(db);
    const idb = inspector.built.context.db;
    const ids = await insertUsers(idb, LINES, 'kill', Date.now());
    const admin = new HttpClient(() => server);
    await admin.ok('userLogin', { userAccount: 'admin', userPassword: 'AdminPassw0rd!' });
    const csv = ['userAccount,amount', ...ids.map((_, i) => `kill${i},1`)].join('\n');
    const { id } = await admin.ok('taskQuotaGrant', { csv, unit: 'runs', reason: '断电测试' });
    const batch = () => idb.selectFrom('batches').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    await waitUntil('a part of the batch is done', async () => Number((await batch()).done) >= 200, 60_000);
    server.child.kill('SIGKILL');
    await new Promise<void>((r) =>
      server.child.exitCode !== null || server.child.signalCode !== null ? r() : server.child.once('exit', () => r()),
    );
    children.delete(server.child);
    const atKill = await batch();
    expect(atKill.state).toBe('running');
    expect(Number(atKill.done)).toBeLessThan(LINES);
    // What the cursor says is done is exactly what was granted: a chunk's grants and its cursor commit together.
    const grantedAtKill = await idb.selectFrom('quotaGrants').select('userId').where('userId', 'in', ids).execute();
    expect(grantedAtKill.length).toBe(Number(atKill.done));

    server = await startServer(db, secret, env);
    await waitUntil('the batch is done', async () => (await batch()).state === 'done', 120_000);
    const finished = await batch();
    expect([Number(finished.total), Number(finished.done), Number(finished.failed)]).toEqual([LINES, LINES, 0]);
    const grants = await idb.selectFrom('quotaGrants').select('userId').where('userId', 'in', ids).execute();
    const perUser = new Map<number, number>();
    for (const g of grants) perUser.set(g.userId, (perUser.get(g.userId) ?? 0) + 1);
    expect(grants.length).toBe(LINES);
    expect([...perUser.values()].every((n) => n === 1)).toBe(true);
    console.log(`batch crash (${dbKind()}): ${Number(atKill.done)} of ${LINES} lines done at the kill`);
    await kill(server.child, 'SIGTERM');
    expect(server.child.exitCode, server.output()).toBe(0);
  }, 240_000);
});
