/**
 * Migration 013 over SQLite and PostgreSQL, on a workspace of the version before it: every client
 * it had stays a scored client (`active`) with all its mail, its mail counts as written to us
 * (`addressed` 1), the filter's per-message table starts empty, and the health rebuild still
 * scores them. Down, then up again, round-trips.
 */
import { Migrator, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../testing.js';
import { migrateToLatest } from '../database.js';
import { migrations } from './index.js';
import { recomputeHealth } from '../../health/recompute.js';
import { listClients } from '../../metrics/clients.js';

afterAll(() => dropTestSchemas());

describe('013-client-discovery', async () => {
  for (const dialect of await testDialects()) {
    it(`keeps every client and interaction of an existing workspace, scored as before (${dialect.name})`, async () => {
      const store = await dialect.open();
      try {
        const db = store.db;
        const migrator = new Migrator({
          db,
          provider: { getMigrations: async () => migrations },
          ...(store.schema ? { migrationTableSchema: store.schema } : {}),
        });
        expect((await migrator.migrateTo('012-interaction-index-trim')).error).toBeUndefined();
        const at = '2025-01-01T00:00:00.000Z';
        const raw = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
        await raw
          .insertInto('workspaces')
          .values({ id: 'acme.com', name: 'Acme', plan: 'free', billing_status: 'active', created_at: at, updated_at: at })
          .execute();
        for (const [id, domain] of [
          ['cl_a', 'globex.com'],
          ['cl_b', 'newsletter-co.com'],
        ] as const) {
          await raw
            .insertInto('clients')
            .values({
              id,
              workspace_id: 'acme.com',
              name: domain,
              name_source: 'domain',
              primary_domain: domain,
              mrr: null,
              renewal_date: null,
              csm_owner: null,
              is_excluded: 0,
              health_score: null,
              health_updated_at: null,
              last_interaction_at: null,
              created_at: at,
              updated_at: at,
            })
            .execute();
          await raw.insertInto('client_domains').values({ workspace_id: 'acme.com', domain, client_id: id }).execute();
          for (let k = 0; k < 4; k++) {
            await raw
              .insertInto('interactions')
              .values({
                id: `${id}_${k}`,
                workspace_id: 'acme.com',
                client_id: id,
                type: 'email',
                source: 'mbox',
                dedupe_key: `${id}-${k}@x`,
                provider_id: null,
                thread_id: `${id}-t${k}`,
                subject: 's',
                summary: 'fine, thanks',
                sentiment_label: 'positive',
                sentiment_score: 0.4,
                occurred_at: `2024-12-${String(10 + k).padStart(2, '0')}T10:00:00.000Z`,
                from_email: `ana@${domain}`,
                to_emails: 'sam@acme.com',
                direction: 'inbound',
                opened: null,
                signals: 0,
                content_hash: `h${k}`,
                created_at: at,
                updated_at: at,
              })
              .execute();
          }
        }

        await migrateToLatest(db, store.schema);
        const clients = await db.selectFrom('clients').select(['id', 'status', 'discovery']).orderBy('id').execute();
        expect(clients).toEqual([
          { id: 'cl_a', status: 'active', discovery: null },
          { id: 'cl_b', status: 'active', discovery: null },
        ]);
        const mail = await db.selectFrom('interactions').select(['addressed', 'role', 'topic']).execute();
        expect(mail).toHaveLength(8);
        for (const m of mail) expect(m).toEqual({ addressed: 1, role: null, topic: null });
        expect(await db.selectFrom('filtered_mail').selectAll().execute()).toEqual([]);
        // The team sees what it saw, and both are scored.
        const r = await recomputeHealth(db, { workspaceId: 'acme.com', now: new Date('2025-01-01T00:00:00Z') });
        expect(r.clientsScored).toBe(2);
        expect((await listClients(db, 'acme.com')).map((c) => c.id)).toEqual(['cl_a', 'cl_b']);

        expect((await migrator.migrateTo('012-interaction-index-trim')).error).toBeUndefined();
        await migrateToLatest(db, store.schema);
        expect(await db.selectFrom('clients').select(['id', 'status', 'discovery']).orderBy('id').execute()).toEqual(clients);
        const n = await db
          .selectFrom('interactions')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        expect(Number(n.n)).toBe(8);
      } finally {
        await store.close();
      }
    });
  }
});
