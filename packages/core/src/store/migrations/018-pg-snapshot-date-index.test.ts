/**
 * Migration 018: on PostgreSQL the snapshots' date index is on the date alone (its B-tree keeps one
 * key per date: a few bytes a client-day instead of ~94); SQLite keeps its covering index. Down,
 * then up again, round-trips.
 */
import { Migrator, sql, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../testing.js';
import { migrations } from './index.js';

afterAll(() => dropTestSchemas());

/** The columns of health_snapshots_date, in order. */
async function dateIndexColumns(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<string[]> {
  if (dialect === 'sqlite') {
    const rows = await sql<{ name: string }>`select name from pragma_index_info('health_snapshots_date') order by seqno`.execute(db);
    return rows.rows.map((r) => r.name);
  }
  const rows = await sql<{
    def: string;
  }>`select indexdef as def from pg_indexes where indexname = 'health_snapshots_date' and schemaname = current_schema()`.execute(db);
  const m = /\(([^)]*)\)\s*$/.exec(rows.rows[0]?.def ?? '');
  return m ? m[1]!.split(',').map((c) => c.trim()) : [];
}

describe('018-pg-snapshot-date-index', async () => {
  for (const dialect of await testDialects()) {
    it(`indexes the snapshots by date alone on PostgreSQL, by (date, client, score) on SQLite, and round-trips (${dialect.name})`, async () => {
      const store = await dialect.open();
      try {
        const db = store.db as unknown as Kysely<unknown>;
        const latest = dialect.name === 'postgres' ? ['date'] : ['date', 'client_id', 'score'];
        expect(await dateIndexColumns(db, dialect.name)).toEqual(latest);
        const migrator = new Migrator({
          db,
          provider: { getMigrations: async () => migrations },
          ...(store.schema ? { migrationTableSchema: store.schema } : {}),
        });
        expect((await migrator.migrateTo('017-health-stale')).error).toBeUndefined();
        expect(await dateIndexColumns(db, dialect.name)).toEqual(['date', 'client_id', 'score']);
        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        expect(await dateIndexColumns(db, dialect.name)).toEqual(latest);
      } finally {
        await store.close();
      }
    });
  }
});
