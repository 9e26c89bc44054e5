import { afterEach, describe, expect, it } from 'vitest';
import { sqliteDriverOf } from '../../src/server/db/sqlite-driver.js';
import { postgresBatcherOf } from '../../src/server/modules/coins/ledger-postgres.js';
import { balanceOf, expectLedgerConsistent, grant, idem, newKey } from '../helpers/ledger.js';
import { useTestApp } from '../helpers/test-app.js';

// DATABASE_GROUP_COMMIT=0: every transfer in a transaction of its own (on PostgreSQL one transfer_coins call, as
// before transfer_coins_batch), with the same answers as grouped ones (tests/api/ledger-group-commit.test.ts).
const app = useTestApp({}, { database: (config) => ({ ...config, groupCommit: false }) });

afterEach(async () => {
  await expectLedgerConsistent(app());
});

describe('transfers with group commit turned off', () => {
  it('sent together, each commits alone; a refusal fails alone', async () => {
    const payee = await app().newUser();
    const payers = await Promise.all(Array.from({ length: 4 }, () => app().newUser()));
    for (const p of payers) await grant(app(), p.userAccount, 10);
    const answers = await Promise.all(
      payers.map((p, i) =>
        p.client.call('userTransferCoin', {
          body: { userAccount: payee.userAccount, coin: i === 1 ? 11 : 3 },
          headers: idem(newKey()),
        }),
      ),
    );
    expect(answers.map((r) => r.code)).toEqual([0, 40000, 0, 0]);
    expect(await balanceOf(app(), payee.id)).toBe(9);
    const db = app().built.context.db;
    // Nothing went through the PostgreSQL batcher; on SQLite each transaction carried one transfer.
    expect(postgresBatcherOf(db)).toBeUndefined();
    const sqlite = sqliteDriverOf(db)?.groupCommits;
    if (sqlite) expect(sqlite.transactions).toBe(sqlite.works);
  });
});
