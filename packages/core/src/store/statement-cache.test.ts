import SqliteDatabase from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { withStatementCache } from './database.js';

describe('SQLite prepared-statement cache', () => {
  it('reuses a statement per SQL text, binds fresh values each call, and drops the least recently used', () => {
    const native = new SqliteDatabase(':memory:');
    const db = withStatementCache(native, 2);
    db.prepare('create table t (x integer)').run([]);
    const insert = db.prepare('insert into t (x) values (?)');
    insert.run([1]);
    expect(db.prepare('insert into t (x) values (?)')).toBe(insert);
    db.prepare('insert into t (x) values (?)').run([2]);
    const sum = db.prepare('select sum(x) as s from t');
    expect(sum.all([])).toEqual([{ s: 3 }]);
    // Cache of 2: the insert and the sum are kept; touching the insert makes the sum the oldest.
    expect(db.prepare('insert into t (x) values (?)')).toBe(insert);
    const count = db.prepare('select count(*) as n from t where x > ?');
    expect(count.all([1])).toEqual([{ n: 1 }]);
    expect(db.prepare('insert into t (x) values (?)')).toBe(insert);
    expect(db.prepare('select sum(x) as s from t')).not.toBe(sum);
    db.close();
    expect(native.open).toBe(false);
  });
});
