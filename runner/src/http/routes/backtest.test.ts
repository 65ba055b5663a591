import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '@chs/core/testing';
import { insertClient, insertSnapshot } from '../../../../packages/core/src/health/test-fixtures.js';
import { startTestApp } from '../testing.js';

/**
 * GET /metrics/backtest (an extension): after a CS lead records how two renewals ended through
 * the API, the backtest says whether the score saw the churn coming — the churned client was red a
 * month before, the renewed one green — and refuses a horizon it does not offer.
 */
afterAll(() => dropTestSchemas());
const dialects = await testDialects();

describe.each(dialects.map((d) => [d.name, d] as const))('GET /metrics/backtest on %s', (_name, dialect) => {
  it('a churn the score saw a month before: AUC 1, flagged, recalled; 400 beyond 1-365 days', async () => {
    const t = await startTestApp({ dialect, workspace: 'ourco.com', now: '2024-06-30T12:00:00.000Z' });
    try {
      const db = t.engine.store.db;
      await insertClient(db, t.workspaceId, { id: 'red', domain: 'red.com', name: 'Red' });
      await insertClient(db, t.workspaceId, { id: 'green', domain: 'green.com', name: 'Green' });
      // Scores 30 days before each renewal (June 20th): red 20, green 80.
      await insertSnapshot(db, t.workspaceId, 'red', '2024-05-21', [5, 5, 5, 5]);
      await insertSnapshot(db, t.workspaceId, 'green', '2024-05-21', [20, 20, 20, 20]);
      const q = `workspaceId=${t.workspaceId}`;
      for (const [client, outcome] of [
        ['red', 'churned'],
        ['green', 'renewed'],
      ])
        expect((await t.request(`/api/clients/${client}/outcomes?${q}`, { method: 'POST', json: { date: '2024-06-20', outcome } })).status).toBe(201);

      const res = await t.request(`/api/metrics/backtest?${q}&days=30`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ days: 30, outcomes: 2, churned: 1, renewed: 1, auc: 1, flagged: 1, precision: 1, recall: 1, threshold: 40 });
      expect(body.churns).toEqual([{ clientId: 'red', date: '2024-06-20', scoreBefore: 20, signalsBefore: [], leadTimeDays: 0 }]);
      // The default horizon is 60 days: no score was stored then.
      expect(await (await t.request(`/api/metrics/backtest?${q}`)).json()).toMatchObject({ days: 60, outcomes: 0, withoutHistory: 2 });
      for (const days of ['0', '366', 'soon']) {
        const bad = await t.request(`/api/metrics/backtest?${q}&days=${days}`);
        expect(bad.status).toBe(400);
      }
    } finally {
      await t.close();
    }
  });
});
