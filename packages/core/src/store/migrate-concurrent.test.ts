/**
 * Several runners opening one empty PostgreSQL database at the same moment: Kysely's Migrator
 * serialises them with an advisory lock (and creates its own tables race-safely), so every
 * migration runs once and no opener fails. Here eight stores open at once in one process, each
 * with its own pool, which overlaps them for certain (the CLI-level test starts three processes).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, migrateToLatest } from './database.js';
import { migrations } from './migrations/index.js';
import { createTestDatabase, postgresAvailable, type TestDatabase } from './testing.js';

const hasPg = await postgresAvailable();
const made: TestDatabase[] = [];
afterAll(async () => {
  for (const d of made.splice(0)) await d.drop();
});

describe.runIf(hasPg)('migrations when several runners start at once (PostgreSQL)', () => {
  it('eight openers on one empty database: all succeed, each migration is applied exactly once', async () => {
    const database = await createTestDatabase('postgres');
    made.push(database);
    const stores = await Promise.all(Array.from({ length: 8 }, () => openStore({ url: database.url, poolSize: 2 })));
    try {
      const rows = (await stores[0]!.db
        .selectFrom('kysely_migration' as never)
        .select('name' as never)
        .execute()) as Array<{ name: string }>;
      expect(rows.map((r) => r.name).sort()).toEqual(Object.keys(migrations).sort());
      // Every store sees the finished schema, and there is nothing left to run.
      for (const s of stores) expect((await migrateToLatest(s.db)).results).toEqual([]);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});
