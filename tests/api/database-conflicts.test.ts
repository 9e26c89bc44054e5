import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { dbKind } from '../helpers/database.js';
import { balanceOf, expectLedgerConsistent, grant, idem } from '../helpers/ledger.js';
import { useTestApp } from '../helpers/test-app.js';

// PostgreSQL ends one of two transactions that wait on each other (deadlock, 40P01) or that cannot be serialised
// (40001). That is the database asking for the request again, not a fault of the server: the phone must hear
// "try again" (503 / 50000 with Retry-After), never 500. A trigger makes the database answer so on demand; SQLite
// has no such failures (its busy answers are covered by database-resilience).
const app = useTestApp();

describe.skipIf(dbKind() !== 'postgres')('a transaction PostgreSQL gives up on', () => {
  it.each([
    ['a deadlock', '40P01'],
    ['a serialization failure', '40001'],
  ])('answers %s with 503 / 50000 and Retry-After, moving nothing', async (_, state) => {
    const a = app();
    const payer = await a.newUser();
    const payee = await a.newUser();
    await grant(a, payer.userAccount, 50);
    const db = a.built.context.db;
    await sql`create or replace function test_refuse() returns trigger language plpgsql as $$
      begin raise exception 'provoked' using errcode = ${sql.lit(state)}; end $$`.execute(db);
    await sql`create trigger test_refuse before insert on coin_entries
      for each row execute function test_refuse()`.execute(db);
    try {
      const refused = await payer.client.call('userTransferCoin', {
        body: { userAccount: payee.userAccount, coin: 10 },
        headers: idem(),
      });
      expect([refused.status, refused.code]).toEqual([503, 50000]);
      expect(refused.message).toBe('服务器繁忙，请稍后再试');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await sql`drop trigger test_refuse on coin_entries`.execute(db);
      await sql`drop function test_refuse()`.execute(db);
    }
    expect(await balanceOf(a, payer.id)).toBe(50);
    await expectLedgerConsistent(a);
  });
});
