/**
 * Migration 011 over SQLite and PostgreSQL, on data of the version before it: a Google connection
 * takes its address as its account, its cursors move to the account's keys (the next sync
 * continues instead of reading everything again), HubSpot keeps '' and its cursor; afterwards a
 * second mailbox of the same workspace is a row of its own. Down, then up again, round-trips.
 */
import { Migrator, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../testing.js';
import { migrateToLatest } from '../database.js';
import { migrations } from './index.js';

afterAll(() => dropTestSchemas());

describe('011-integration-accounts', async () => {
  for (const dialect of await testDialects()) {
    it(`gives Google rows their address, moves their cursors, keeps one row per account (${dialect.name})`, async () => {
      const store = await dialect.open();
      try {
        const db = store.db;
        const migrator = new Migrator({
          db,
          provider: { getMigrations: async () => migrations },
          ...(store.schema ? { migrationTableSchema: store.schema } : {}),
        });
        const down = await migrator.migrateTo('010-oauth-states');
        expect(down.error).toBeUndefined();
        const at = '2025-01-01T00:00:00.000Z';
        const raw = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
        await raw
          .insertInto('workspaces')
          .values({ id: 'acme.com', name: 'Acme', plan: 'free', billing_status: 'active', created_at: at, updated_at: at })
          .execute();
        const row = (id: string, provider: string, email: string | null) => ({
          id,
          workspace_id: 'acme.com',
          provider,
          status: 'connected',
          account_email: email,
          credentials_enc: 'v2.x',
          scope: null,
          expires_at: null,
          has_refresh: 0,
          config_json: null,
          last_sync_at: null,
          last_error: null,
          created_at: at,
          updated_at: at,
        });
        await raw
          .insertInto('integrations')
          .values([row('int_g', 'google', 'Dana@Acme.com'), row('int_h', 'hubspot', null)])
          .execute();
        for (const key of ['google', 'google:backfill:job_1', 'hubspot', 'mbox:/x']) {
          await raw
            .insertInto('source_cursors')
            .values({ workspace_id: 'acme.com', source_key: key, cursor_json: `{"k":"${key}"}`, updated_at: at })
            .execute();
        }

        await migrateToLatest(db, store.schema);
        const rows = await db.selectFrom('integrations').select(['id', 'account']).orderBy('id').execute();
        expect(rows).toEqual([
          { id: 'int_g', account: 'dana@acme.com' },
          { id: 'int_h', account: '' },
        ]);
        const keys = (await db.selectFrom('source_cursors').select('source_key').orderBy('source_key').execute()).map((r) => r.source_key);
        expect(keys).toEqual(['google:backfill:job_1:dana@acme.com', 'google:dana@acme.com', 'hubspot', 'mbox:/x']);

        // A second mailbox is a row of its own; the same one twice is refused by the unique key.
        await db
          .insertInto('integrations')
          .values({ ...row('int_g2', 'google', 'eli@acme.com'), account: 'eli@acme.com' })
          .execute();
        await expect(
          db
            .insertInto('integrations')
            .values({ ...row('int_g3', 'google', 'eli@acme.com'), account: 'eli@acme.com' })
            .execute(),
        ).rejects.toThrow();
        await db.deleteFrom('integrations').where('id', '=', 'int_g2').execute();

        const back = await migrator.migrateTo('010-oauth-states');
        expect(back.error).toBeUndefined();
        await migrateToLatest(db, store.schema);
        expect(await db.selectFrom('integrations').select(['id', 'account']).orderBy('id').execute()).toEqual(rows);
      } finally {
        await store.close();
      }
    });
  }
});
