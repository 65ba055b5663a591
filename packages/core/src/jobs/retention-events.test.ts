/**
 * Retention of the outbox: the delivery log is kept 30 days (or the workspace's shorter data
 * retention) to look back on and redeliver from; a delivery still being retried, and its event,
 * are kept whatever their age. Both dialects.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../workspace/workspaces.js';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { createEndpoint } from '../events/endpoints.js';
import { recordEvent } from '../events/outbox.js';
import { DAY_MS } from '../util/time.js';
import { pruneHistory } from './retention.js';

afterAll(() => dropTestSchemas());

const WS = 'acme.com';

describe.each(await testDialects())('retention of events and deliveries ($name)', (dialect) => {
  it('drops settled deliveries and their events after 30 days, keeps one still being retried', async () => {
    const store = await dialect.open();
    const db = store.db;
    try {
      await createWorkspace(db, { domain: WS, name: 'Acme', ownerEmail: 'ana@acme.com' });
      await createEndpoint(
        db,
        randomBytes(32),
        { workspaceId: WS, url: 'https://hooks.example.com/chs', events: ['job.completed'] },
        { resolve: async () => ['93.184.215.14'] },
      );
      const now = new Date('2024-06-01T00:00:00.000Z');
      const data = (id: string) => ({
        job: {
          id,
          kind: 'sync',
          source: 'google',
          itemsProcessed: 0,
          itemsAdded: 0,
          itemsUpdated: 0,
          itemsSkipped: 0,
          errorsCount: 0,
          startedAt: null,
          completedAt: null,
        },
      });
      const ids: Record<string, string> = {};
      for (const name of ['old-delivered', 'old-retrying', 'recent']) {
        const e = await db.transaction().execute((trx) => recordEvent(trx, { workspaceId: WS, type: 'job.completed', occurredAt: now, data: data(name) }));
        ids[name] = e!.id;
      }
      const old = new Date(now.getTime() - 40 * DAY_MS).toISOString();
      await db.updateTable('events').set({ created_at: old }).where('id', 'in', [ids['old-delivered']!, ids['old-retrying']!]).execute();
      await db.updateTable('webhook_deliveries').set({ created_at: old }).where('event_id', 'in', [ids['old-delivered']!, ids['old-retrying']!]).execute();
      await db.updateTable('webhook_deliveries').set({ state: 'succeeded' }).where('event_id', '=', ids['old-delivered']!).execute();

      const pruned = await pruneHistory(db, WS, 365, now, now);
      expect({ events: pruned.events, webhookDeliveries: pruned.webhookDeliveries }).toEqual({ events: 1, webhookDeliveries: 1 });
      const left = await db.selectFrom('events').select('id').orderBy('seq').execute();
      expect(left.map((r) => r.id)).toEqual([ids['old-retrying'], ids['recent']]);
    } finally {
      await store.close();
    }
  });
});
