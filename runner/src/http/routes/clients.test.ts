import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, type Db } from '@chs/core';
import { dropTestSchemas, testDialects, type TestDialect } from '@chs/core/testing';
import { insertClient, insertInteractions } from '../../../../packages/core/src/health/test-fixtures.js';
import { startTestApp, type TestApp } from '../testing.js';

/**
 * The client reads are kept between requests (read-cache.ts): every answer here must still be the
 * one a fresh computation gives, whoever wrote to the database and whatever the time.
 */
afterAll(() => dropTestSchemas());
const dialects = await testDialects();
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return --
   response bodies are walked as Json (any) in assertions; contract-check.ts validates every answer against its schema. */
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies in assertions

async function fixture(db: Db, ws: string): Promise<void> {
  await insertClient(db, ws, { id: 'c1', domain: 'acmeco.com', name: 'Acme', mrr: 1000 });
  await insertInteractions(db, ws, [
    // "now" starts at 06-30T12:00: 'a' is in the 60-day window until 07-14T10:00, 'z' is in the future.
    { id: 'a', clientId: 'c1', at: '2024-05-15T10:00:00.000Z', direction: 'inbound', sentiment: 0.5, thread: 'T0' },
    { id: 'b', clientId: 'c1', at: '2024-06-20T10:00:00.000Z', direction: 'inbound', sentiment: -0.5, thread: 'T1' },
    { id: 'c', clientId: 'c1', at: '2024-06-21T10:00:00.000Z', direction: 'outbound', sentiment: 0, thread: 'T1' },
    { id: 'z', clientId: 'c1', at: '2024-07-01T09:00:00.000Z', direction: 'inbound', sentiment: -0.5 },
  ]);
}

async function startWithFixture(
  dialect?: TestDialect,
): Promise<{ t: TestApp; clock: { now: number }; get: (path: string) => Promise<{ body: Json; type: string | null }> }> {
  const clock = { now: Date.parse('2024-06-30T12:00:00.000Z') };
  const t = await startTestApp({ ...(dialect ? { dialect } : {}), workspace: 'ourco.com', clock: () => new Date(clock.now) });
  await fixture(t.engine.store.db, t.workspaceId);
  return {
    t,
    clock,
    get: async (path: string) => {
      const res = await t.request(`/api${path}${path.includes('?') ? '&' : '?'}workspaceId=${t.workspaceId}`);
      expect(res.status).toBe(200);
      return { type: res.headers.get('content-type'), body: (await res.json()) as Json };
    },
  };
}

describe.each(dialects.map((d) => [d.name, d] as const))('client reads stay exact between requests on %s', (_name, dialect) => {
  it('follow writes through the API and the store, and the clock', async () => {
    const { t, clock, get } = await startWithFixture(dialect);
    try {
      const first = await get('/clients/c1');
      expect(first.type).toBe('application/json; charset=utf-8');
      expect(first.body.metrics).toEqual({ totalInteractions: 4, avgResponseTime: 24, lastMonthInteractions: 2, sentimentTrend: 'declining' });
      expect((await get('/clients/c1')).body).toEqual(first.body);

      // A write through the API.
      expect((await t.request(`/api/clients/c1?workspaceId=${t.workspaceId}`, { method: 'PATCH', json: { mrr: 2500 } })).status).toBe(200);
      expect((await get('/clients/c1')).body.client.mrr).toBe(2500);
      expect((await get('/clients')).body[0].mrr).toBe(2500);

      // A write straight into the store (what an ingestion does).
      await insertInteractions(t.engine.store.db, t.workspaceId, [
        { id: 'd', clientId: 'c1', at: '2024-06-29T10:00:00.000Z', direction: 'inbound', sentiment: 0.9, thread: 'T2' },
      ]);
      // Their mood this month: b −0.5, d 0.9 → 0.2; the 30 days before: a 0.5 → declining.
      expect((await get('/clients/c1')).body.metrics).toEqual({
        totalInteractions: 5,
        avgResponseTime: 24,
        lastMonthInteractions: 3,
        sentimentTrend: 'declining',
      });
      expect((await get('/clients/c1/interactions?limit=1')).body.interactions[0].id).toBe('z');

      // The clock: 'z' (07-01T09:00) comes into this month's count at its own time, not before.
      clock.now = Date.parse('2024-07-01T08:59:59.999Z');
      expect((await get('/clients/c1')).body.metrics.lastMonthInteractions).toBe(3);
      clock.now = Date.parse('2024-07-01T09:00:00.000Z');
      expect((await get('/clients/c1')).body.metrics.lastMonthInteractions).toBe(4);
      // 'a' leaves the 60-day window after 07-14T10:00, and with it the only mood before this month.
      clock.now = Date.parse('2024-07-14T10:00:00.000Z');
      const held = (await get('/clients/c1')).body.metrics;
      clock.now = Date.parse('2024-07-14T10:00:00.001Z');
      const moved = (await get('/clients/c1')).body.metrics;
      expect(held.sentimentTrend).toBe('declining'); // b, d, z: −0.03 against a: 0.5
      expect(moved.sentimentTrend).toBe('stable'); // nothing before to compare with
    } finally {
      await t.close();
    }
  });
});

describe('client reads on a SQLite file shared with another runner', () => {
  it('show the other runner’s writes on the next request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chs-clients-'));
    const file = join(dir, 'chs.db');
    const fileDialect: TestDialect = { name: 'sqlite', open: () => openStore({ url: file }), url: async () => ({ url: file }) };
    const { t, get } = await startWithFixture(fileDialect);
    const other = await openStore({ url: file });
    try {
      expect((await get('/clients/c1')).body.client.name).toBe('Acme');
      expect((await get('/clients')).body.map((c: Json) => c.name)).toEqual(['Acme']);
      await other.db.updateTable('clients').set({ name: 'Acme Corp' }).where('id', '=', 'c1').execute();
      expect((await get('/clients/c1')).body.client.name).toBe('Acme Corp');
      expect((await get('/clients')).body.map((c: Json) => c.name)).toEqual(['Acme Corp']);
      await insertInteractions(other.db, t.workspaceId, [{ id: 'e', clientId: 'c1', at: '2024-06-30T11:00:00.000Z', direction: 'inbound', sentiment: 0 }]);
      expect((await get('/clients/c1')).body.metrics.totalInteractions).toBe(5);
      expect((await get('/clients/c1/interactions')).body.pagination.total).toBe(5);
    } finally {
      await other.close();
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
