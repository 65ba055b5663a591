import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from './database.js';
import { dropTestSchemas, postgresDialect, testDialects } from './testing.js';
import { insertWorkspace } from '../health/test-fixtures.js';

afterAll(dropTestSchemas);
const dir = mkdtempSync(join(tmpdir(), 'chs-data-version-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Store.dataVersion on SQLite', () => {
  it('stays the same across reads and changes on every write, by this connection or another', async () => {
    const file = join(dir, 'chs.db');
    const a = await openStore({ url: file });
    const b = await openStore({ url: file });
    try {
      await insertWorkspace(a.db, 'w1');
      const v1 = a.dataVersion();
      expect(v1).toEqual(expect.any(String));
      // Reads, through either connection, change nothing.
      await a.db.selectFrom('workspaces').selectAll().execute();
      await b.db.selectFrom('workspaces').selectAll().execute();
      expect(a.dataVersion()).toBe(v1);
      // A write through this connection.
      await a.db.updateTable('workspaces').set({ name: 'one' }).where('id', '=', 'w1').execute();
      const v2 = a.dataVersion();
      expect(v2).not.toBe(v1);
      expect(a.dataVersion()).toBe(v2);
      // A write through another connection to the same file (another runner, a CLI).
      await b.db.updateTable('workspaces').set({ name: 'two' }).where('id', '=', 'w1').execute();
      const v3 = a.dataVersion();
      expect(v3).not.toBe(v2);
      // A transaction that writes, and one that only reads.
      await a.db.transaction().execute(async (trx) => trx.updateTable('workspaces').set({ name: 'three' }).where('id', '=', 'w1').execute());
      const v4 = a.dataVersion();
      expect(v4).not.toBe(v3);
      await b.db.transaction().execute(async (trx) => trx.selectFrom('workspaces').selectAll().execute());
      expect(a.dataVersion()).toBe(v4);
      // An insert … returning writes too (a statement that both reads and writes).
      await a.db
        .insertInto('workspaces')
        .values({ id: 'w2', name: 'w2', plan: 'free', billing_status: 'active', created_at: 'x', updated_at: 'x' })
        .returning('id')
        .execute();
      expect(a.dataVersion()).not.toBe(v4);
    } finally {
      await a.close();
      await b.close();
    }
    expect(a.dataVersion()).toBeUndefined();
  });
});

describe("Store.dataVersion('turn') on SQLite", () => {
  it('shows this process’s writes at once and other processes’ commits from the next turn of the event loop', async () => {
    const file = join(dir, 'turn.db');
    const a = await openStore({ url: file });
    const b = await openStore({ url: file }); // another engine of this process on the same file
    const otherProcess = new SqliteDatabase(file); // a connection that is not one of ours
    try {
      await insertWorkspace(a.db, 'w1');
      const v1 = a.dataVersion('turn');
      await b.db.updateTable('workspaces').set({ name: 'b' }).where('id', '=', 'w1').execute();
      const v2 = a.dataVersion('turn');
      expect(v2).not.toBe(v1);
      // Another process commits: 'now' sees it at once; 'turn' from the next turn on.
      otherProcess.prepare("update workspaces set name = 'other' where id = 'w1'").run();
      expect(a.dataVersion('now')).not.toBe(a.dataVersion('turn'));
      expect(a.dataVersion('turn')).toBe(v2);
      await new Promise<void>((resolve) => setImmediate(resolve));
      const v3 = a.dataVersion('turn');
      expect(v3).not.toBe(v2);
      expect(v3).toBe(a.dataVersion('now'));
    } finally {
      otherProcess.close();
      await a.close();
      await b.close();
    }
  });
});

const pg = (await testDialects()).some((d) => d.name === 'postgres');
describe.runIf(pg)('Store.dataVersion on PostgreSQL', () => {
  it('is undefined: nothing may be kept against it', async () => {
    const store = await postgresDialect.open();
    try {
      expect(store.dataVersion()).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
