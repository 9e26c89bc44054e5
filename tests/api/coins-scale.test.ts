import { sql, type CompiledQuery } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { dbKind } from '../helpers/database.js';
import { expectLedgerConsistent, grant, idem } from '../helpers/ledger.js';
import { uniqueAccount, useTestApp } from '../helpers/test-app.js';
import { userListQuery } from '../../src/server/modules/users/repo.js';

// The statement, its export, the ledger check and the user search at a size where the way rows are read shows:
// keyset pages, a streamed export in chunks, a check in user ranges, a search through an index.

const app = useTestApp();
const db = () => app().built.context.db;

afterEach(async () => {
  await expectLedgerConsistent(app());
});

/**
 * Appends `n` admin_add entries of 1 coin for a user straight in the database (the ledger's shape, without n API
 * calls): a running balance, and the balance moved by the same total.
 */
async function plantEntries(userId: number, n: number, reference = 'PLANTED') {
  const balance = Number(
    (await db().selectFrom('users').select('coin').where('id', '=', userId).executeTakeFirstOrThrow()).coin,
  );
  const rows = Array.from({ length: n }, (_, i) => ({
    userId,
    amount: 1,
    balanceAfter: balance + i + 1,
    kind: 'admin_add' as const,
    counterpartyId: null,
    reference: `${reference}-${i}`,
    description: `第 ${i + 1} 笔`,
    actorId: null,
    createdAt: 1_700_000_000_000 + i,
  }));
  for (let i = 0; i < rows.length; i += 1000)
    await db()
      .insertInto('coinEntries')
      .values(rows.slice(i, i + 1000))
      .execute();
  await sql`update users set coin = coin + ${n} where id = ${userId}`.execute(db());
}

type Entry = { id: number; amount: number };

describe('coinEntries with a cursor', () => {
  it('pages through every entry exactly once, newest first, while new entries arrive between pages', async () => {
    const user = await app().newUser();
    await plantEntries(user.id, 45);
    const seen: number[] = [];
    let page = await user.client.ok('coinEntries', { query: { pageSize: 10 } });
    expect(page.total).toBe(45);
    const before = page.records.map((r: Entry) => r.id);
    seen.push(...before);
    let arrivals = 0;
    for (; page.nextCursor !== null; arrivals++) {
      // A new entry on top moves every numbered page by one; the cursor must not care.
      await grant(app(), user.userAccount, 1);
      page = await user.client.ok('coinEntries', { query: { pageSize: 10, cursor: page.nextCursor } });
      seen.push(...page.records.map((r: Entry) => r.id));
      expect(arrivals).toBeLessThan(10);
    }
    const planted = (
      await db().selectFrom('coinEntries').select('id').where('userId', '=', user.id).orderBy('id', 'desc').execute()
    )
      .map((r) => r.id)
      .filter((id) => id <= before[0]);
    expect(seen).toEqual(planted);
    expect(seen).toHaveLength(45);
    // The count beside the balance follows the new entries.
    expect((await user.client.ok('coinEntries', { query: { pageSize: 1 } })).total).toBe(45 + arrivals);
  });

  it('keeps numbered pages working and hands out a cursor from them; filtered pages carry theirs', async () => {
    const user = await app().newUser();
    const other = await app().newUser();
    await plantEntries(user.id, 12);
    await user.client.ok('userTransferCoin', { body: { userAccount: other.userAccount, coin: 2 }, headers: idem() });
    const second = await user.client.ok('coinEntries', { query: { current: 2, pageSize: 5 } });
    expect([second.total, second.current, second.records.length]).toEqual([13, 2, 5]);
    const third = await user.client.ok('coinEntries', { query: { pageSize: 5, cursor: second.nextCursor } });
    expect(third.records.map((r: Entry) => r.id)).toEqual(
      (await user.client.ok('coinEntries', { query: { current: 3, pageSize: 5 } })).records.map((r: Entry) => r.id),
    );
    expect(third.nextCursor).toBeNull();

    const adds = await user.client.ok('coinEntries', { query: { kind: 'admin_add', pageSize: 10 } });
    expect(adds.total).toBe(12);
    const rest = await user.client.ok('coinEntries', {
      query: { kind: 'admin_add', pageSize: 10, cursor: adds.nextCursor },
    });
    expect(rest.records.map((r: Entry & { kind: string }) => r.kind)).toEqual(['admin_add', 'admin_add']);
  });

  it('refuses an altered cursor, or one from another query, with 400 / 40000 in Chinese', async () => {
    const user = await app().newUser();
    const admin = await app().admin();
    await plantEntries(user.id, 6);
    const { nextCursor } = await user.client.ok('coinEntries', { query: { pageSize: 2 } });
    const [id, signature] = String(nextCursor).split('.') as [string, string];
    const tampered = [
      `${(parseInt(id, 36) + 1).toString(36)}.${signature}`,
      `${id}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`,
      'abc',
      `${id}.${'A'.repeat(16)}`,
    ];
    for (const cursor of tampered) {
      const r = await user.client.call('coinEntries', { query: { pageSize: 2, cursor } });
      expect([r.status, r.code], cursor).toEqual([400, 40000]);
      expect(r.message).toMatch(/^翻页位置/);
    }
    // The same cursor for another kind, or (by an admin) for another user's statement, is not this query's.
    const otherKind = await user.client.call('coinEntries', {
      query: { pageSize: 2, cursor: nextCursor, kind: 'redeem' },
    });
    expect([otherKind.status, otherKind.code]).toEqual([400, 40000]);
    const otherUser = await admin.call('coinEntries', { query: { pageSize: 2, cursor: nextCursor } });
    expect([otherUser.status, otherUser.code]).toEqual([400, 40000]);
    expect((await user.client.ok('coinEntries', { query: { pageSize: 2, cursor: nextCursor } })).records).toHaveLength(
      2,
    );
  });
});

describe('coinEntriesExport at size', () => {
  it('streams every entry, newest first, across many chunks', async () => {
    const user = await app().newUser();
    await plantEntries(user.id, 1234);
    const r = await user.client.call<string>('coinEntriesExport');
    expect(r.status).toBe(200);
    // Streamed: sent in chunks, not as one body of a known length.
    expect(r.headers['content-length']).toBeUndefined();
    expect(r.data.startsWith('\ufeff时间,类型,变动,变动后余额,对方账号,说明,编号,操作人\r\n')).toBe(true);
    const lines = r.data.trim().split('\r\n');
    expect(lines).toHaveLength(1 + 1234);
    const balances = lines.slice(1).map((l) => Number(l.split(',')[3]));
    expect(balances).toEqual(Array.from({ length: 1234 }, (_, i) => 1234 - i));
  });
});

describe('coinLedgerCheck at size', () => {
  it('finds a planted mismatch beyond the first range of users and counts every entry', async () => {
    const admin = await app().admin();
    const user = await app().newUser();
    await plantEntries(user.id, 3);
    const farId = 4321;
    const userAccount = uniqueAccount('far');
    // A user row far beyond the others' ids, holding coins no entry explains.
    await db()
      .insertInto('users')
      .values({
        id: farId,
        userAccount,
        userName: '远方',
        passwordHash: 'x',
        userRole: 'user',
        status: 'active',
        invitationCode: `F${String(Date.now()).slice(-7)}`,
        createdAt: 0,
        updatedAt: 0,
        coin: 9,
      } as never)
      .execute();
    try {
      const check = await admin.ok('coinLedgerCheck');
      expect(check.mismatches).toEqual([
        { userId: farId, userAccount, balance: 9, sumOfEntries: 0, entryCount: 0, entriesCounted: 0 },
      ]);
    } finally {
      await sql`update users set coin = 0 where id = ${farId}`.execute(db());
    }
  });
});

describe('coinLedgerCheck of a user with many entries', () => {
  it('sums a user with more entries than one statement reads in slices, and still finds its mismatch', async () => {
    const admin = await app().admin();
    const user = await app().newUser();
    // More than two slices' worth (5,000 each): summed in three statements plus the one beside the balance.
    const before = await admin.ok('coinLedgerCheck');
    await plantEntries(user.id, 12_345, 'MANY');
    const counted = await admin.ok('coinLedgerCheck');
    expect(counted.mismatches).toEqual([]);
    expect(counted.entries - before.entries).toBe(12_345);
    await sql`update users set coin = coin + 5 where id = ${user.id}`.execute(db());
    try {
      const check = await admin.ok('coinLedgerCheck');
      const sum = Number(
        (await db().selectFrom('users').select('coin').where('id', '=', user.id).executeTakeFirstOrThrow()).coin,
      );
      expect(check.mismatches).toEqual([
        {
          userId: user.id,
          userAccount: user.userAccount,
          balance: sum,
          sumOfEntries: sum - 5,
          entryCount: 12_345,
          entriesCounted: 12_345,
        },
      ]);
      expect(check.entries).toBe(counted.entries);
    } finally {
      await sql`update users set coin = coin - 5 where id = ${user.id}`.execute(db());
    }
    // The stored entry count checked on the sliced path too.
    await sql`update users set entry_count = entry_count - 1 where id = ${user.id}`.execute(db());
    try {
      const check = await admin.ok('coinLedgerCheck');
      expect(check.mismatches).toMatchObject([{ userId: user.id, entryCount: 12_344, entriesCounted: 12_345 }]);
    } finally {
      await sql`update users set entry_count = entry_count + 1 where id = ${user.id}`.execute(db());
    }
  });
});

/** The plan the database chooses for the admin user search of `text` (on PostgreSQL with scans made unattractive). */
async function searchPlan(text: string): Promise<string> {
  const compiled = userListQuery(db(), { searchText: text }).select('users.id').compile();
  const explain = (prefix: string): CompiledQuery => ({ ...compiled, sql: `${prefix} ${compiled.sql}` });
  if (dbKind() === 'sqlite') {
    const rows = (await db().executeQuery<{ detail: string }>(explain('explain query plan'))).rows;
    return rows.map((r) => r.detail).join('\n');
  }
  // A test table holds a handful of rows, where a scan is cheapest; the question is whether the index can serve.
  return db()
    .transaction()
    .execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const rows = (await trx.executeQuery<{ 'QUERY PLAN': string }>(explain('explain'))).rows;
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
}

describe('user search through an index', () => {
  it('looks a text of three or more characters up in the index of both searched columns', async () => {
    const plan = await searchPlan('Straße');
    if (dbKind() === 'sqlite') {
      expect(plan).toMatch(/users_search VIRTUAL TABLE INDEX/);
      expect(plan).not.toMatch(/^SCAN users\b/m);
    } else {
      expect(plan).toContain('users_account_trgm');
      expect(plan).toContain('users_name_key_trgm');
    }
  });

  it('finds the same users through the index as the LIKE it replaces, short texts included', async () => {
    const admin = await app().admin();
    const names = ['张三丰', '张三', '李四', '50%_折扣', 'O"Brien'];
    const ids = new Map<string, number>();
    for (const userName of names) {
      const { id } = await app().newUser();
      await admin.ok('userUpdate', { body: { id, userName } });
      ids.set(userName, id);
    }
    const found = async (searchText: string) =>
      (await admin.ok('userListPage', { query: { searchText, pageSize: 100 } })).records
        .map((r: { id: number }) => r.id)
        .filter((id: number) => [...ids.values()].includes(id))
        .sort();
    const of = (...n: string[]) => n.map((k) => ids.get(k)!).sort();
    expect(await found('张三')).toEqual(of('张三丰', '张三'));
    expect(await found('张三丰')).toEqual(of('张三丰'));
    expect(await found('%_折')).toEqual(of('50%_折扣'));
    expect(await found('o"b')).toEqual(of('O"Brien'));
    expect(await found('三丰x')).toEqual([]);
  });
});
