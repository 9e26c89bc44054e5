import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { withStatementCache } from '../../src/server/db/statement-cache.js';

describe('the SQLite statement cache', () => {
  const raw = new Database(':memory:');
  afterEach(() => raw.exec('drop table if exists t'));

  it('prepares a statement once and hands the same one back for the same SQL', () => {
    const cached = withStatementCache(raw);
    raw.exec('create table t (n integer)');
    const insert = cached.prepare('insert into t (n) values (?)');
    expect(cached.prepare('insert into t (n) values (?)')).toBe(insert);
    insert.run(1);
    cached.prepare('insert into t (n) values (?)').run(2);
    expect(cached.prepare('select sum(n) as s from t').get()).toEqual({ s: 3 });
  });

  it('stays bounded, and still answers right, when more distinct statements come than it keeps', () => {
    const cached = withStatementCache(raw, 4);
    raw.exec('create table t (n integer)');
    const first = cached.prepare('select 0 as v');
    for (let i = 1; i <= 10; i++) expect(cached.prepare(`select ${i} as v`).get()).toEqual({ v: i });
    // Forgotten when the bound was reached: prepared again, and still right.
    const again = cached.prepare('select 0 as v');
    expect(again).not.toBe(first);
    expect(again.get()).toEqual({ v: 0 });
  });
});
