import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { dropTestSchemas, testDialects } from './testing.js';
import { migrateToLatest } from './database.js';

const dialects = await testDialects();
afterAll(dropTestSchemas);

describe.each(dialects)('store on $name', (dialect) => {
  it('migrates to the latest version, and again is a no-op', async () => {
    const store = await dialect.open();
    try {
      const again = await migrateToLatest(store.db, store.schema);
      expect(again.results).toEqual([]);
      const tables = await store.db.introspection.getTables();
      const names = tables.map((t) => t.name);
      for (const t of [
        'workspaces',
        'api_keys',
        'clients',
        'client_domains',
        'contacts',
        'contact_emails',
        'interactions',
        'health_snapshots',
        'integrations',
        'jobs',
        'job_events',
        'ingestion_runs',
        'source_cursors',
        'ingestion_sessions',
        'notification_log',
        'settings',
      ]) {
        expect(names).toContain(t);
      }
    } finally {
      await store.close();
    }
  });

  it('enforces foreign keys and one active job per workspace and source', async () => {
    const store = await dialect.open();
    const now = new Date().toISOString();
    try {
      await expect(
        store.db
          .insertInto('clients')
          .values({
            id: 'c1',
            workspace_id: 'nope.com',
            name: 'x',
            name_source: 'domain',
            primary_domain: 'x.com',
            is_excluded: 0,
            status: 'active',
            created_at: now,
            updated_at: now,
          })
          .execute(),
      ).rejects.toThrow();
      await store.db
        .insertInto('workspaces')
        .values({ id: 'acme.com', name: 'Acme', plan: 'free', billing_status: 'active', created_at: now, updated_at: now })
        .execute();
      const job = (id: string, state: string) => ({
        id,
        workspace_id: 'acme.com',
        kind: 'sync',
        source: 'google',
        state,
        params_json: '{}',
        progress_json: '{}',
        errors_json: '[]',
        created_at: now,
        updated_at: now,
        items_processed: 0,
        items_read: 0,
        items_added: 0,
        items_updated: 0,
        items_skipped: 0,
        items_filtered: 0,
        errors_count: 0,
        attempts: 0,
      });
      await store.db.insertInto('jobs').values(job('j1', 'running')).execute();
      await expect(store.db.insertInto('jobs').values(job('j2', 'queued')).execute()).rejects.toThrow();
      await store.db.insertInto('jobs').values(job('j3', 'completed')).execute();
      await store.db.updateTable('jobs').set({ state: 'completed' }).where('id', '=', 'j1').execute();
      await store.db.insertInto('jobs').values(job('j4', 'queued')).execute();
      const { rows } = await sql<{ n: number }>`select count(*) as n from jobs`.execute(store.db);
      expect(Number(rows[0]?.n)).toBe(3);
    } finally {
      await store.close();
    }
  });
});
