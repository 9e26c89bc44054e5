import { describe, expect, it } from 'vitest';
import { idem } from '../helpers/ledger.js';
import { PASSWORD, uniqueAccount, useTestApp } from '../helpers/test-app.js';

// Search ignores letter case for every script, and matches the same rows on SQLite and PostgreSQL.

const app = useTestApp();

const ids = (page: { records: { id: number }[] }) => page.records.map((r) => r.id);

async function registerNamed(userName: string) {
  const userAccount = uniqueAccount('x');
  const client = app().client();
  const id = await client.ok('userRegister', {
    body: { userAccount, userName, userPassword: PASSWORD, checkPassword: PASSWORD },
    ip: '10.55.0.1',
  });
  return { id, userAccount };
}

describe('users', () => {
  it('finds nicknames in any script by any letter case, full-width and composed forms', async () => {
    const admin = await app().admin();
    const cases: [string, string[]][] = [
      ['Émile Zola', ['émile', 'ÉMILE', 'E\u0301mile']],
      ['Ωmega', ['ωMEGA', 'ΩMEGA']],
      ['Юлия', ['юлия', 'ЮЛИЯ']],
      ['İzmir', ['İzmir', 'İZMIR', 'izmir']],
      ['Straße', ['STRASSE', 'strasse']],
      ['ＡＢＣ商店', ['abc商店', 'ABC']],
      ['ΟΔΥΣΣΕΥΣ', ['οδυσσευς']],
    ];
    for (const [userName, searches] of cases) {
      const { id } = await registerNamed(userName);
      for (const searchText of searches) {
        expect(ids(await admin.ok('userListPage', { query: { searchText } })), `${userName} by ${searchText}`).toEqual([
          id,
        ]);
      }
    }
    expect((await admin.ok('userListPage', { query: { searchText: 'emile' } })).total).toBe(0);
  });

  it('follows a renamed nickname', async () => {
    const admin = await app().admin();
    const { id } = await registerNamed('Ärger');
    await admin.ok('userUpdate', { body: { id, userName: 'Öl' } });
    expect(ids(await admin.ok('userListPage', { query: { searchText: 'öL' } }))).toEqual([id]);
    expect((await admin.ok('userListPage', { query: { searchText: 'ärger' } })).total).toBe(0);
  });
});

describe('mall packages and orders', () => {
  it('finds a package and the orders for it by its name in any letter case', async () => {
    const admin = await app().admin();
    const packageId = await admin.ok('mallAdd', {
      body: { coinName: 'Ärger套餐', amount: 1000, addCoin: 100, status: 1, sort: 0 },
    });
    for (const searchText of ['ärger', 'ÄRGER套餐', 'A\u0308rger']) {
      expect(ids(await admin.ok('mallListPage', { body: { searchText } })), searchText).toEqual([packageId]);
    }
    const buyer = await app().newUser();
    const order = await buyer.client.ok('orderSubmit', { body: { packageId }, headers: idem() });
    expect(ids(await buyer.client.ok('orderMy', { body: { searchText: 'äRGER' } }))).toEqual([order.id]);
  });
});

describe('site information', () => {
  it('filters records by notice text in any letter case', async () => {
    const admin = await app().admin();
    const id = await admin.ok('basicInformationAdd', {
      body: { websiteName: '草稿', noticeBar: 'Привет, Юлия', coinName: 'Ωmega' },
    });
    expect(ids(await admin.ok('basicInformationListPage', { body: { noticeBar: 'ЮЛИЯ' } }))).toEqual([id]);
    expect(ids(await admin.ok('basicInformationListPage', { body: { coinName: 'ωMEGA' } }))).toEqual([id]);
  });
});
