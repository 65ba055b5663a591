/**
 * GET /clients/{clientId}/health-history (extension): the daily score history the dashboard
 * charts, each move with its reason and interactions, the latest components and the evidence.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { recomputeHealth } from '@chs/core';
import { dropTestSchemas, testDialects } from '@chs/core/testing';
import { insertClient, insertInteractions } from '../../../../packages/core/src/health/test-fixtures.js';
import { startTestApp } from '../testing.js';

afterAll(() => dropTestSchemas());
const dialects = await testDialects();
const NOW = '2024-06-30T12:00:00.000Z';

interface HistoryBody {
  clientId: string;
  windowDays: number;
  days: { date: string; score: number; change: number | null; reasonCode: string | null; reason: string | null; interactionIds: string[] }[];
  components: { name: string; value: number | null }[];
  evidence: { id: string; subject: string; date: string }[];
}

describe.each(dialects.map((d) => [d.name, d] as const))('client health history on %s', (_name, dialect) => {
  it('gives a point per day with the reason of each move, the components and the evidence; refuses a bad window and an unknown client', async () => {
    const t = await startTestApp({ dialect, workspace: 'ourco.com', now: NOW });
    try {
      const db = t.engine.store.db;
      await insertClient(db, t.workspaceId, { id: 'c1', domain: 'acmeco.com', name: 'Acme' });
      const direction = (i: number): 'inbound' | 'outbound' => (i % 2 === 0 ? 'inbound' : 'outbound');
      const calm = Array.from({ length: 20 }, (_, i) => ({
        id: `ok${i}`,
        clientId: 'c1',
        at: `2024-05-${String(i + 5).padStart(2, '0')}T10:00:00.000Z`,
        direction: direction(i),
        sentiment: 0.6,
        thread: `T${Math.floor(i / 2)}`,
      }));
      await insertInteractions(db, t.workspaceId, [
        ...calm,
        // A stated intent to leave, never answered: the score falls and names this message.
        { id: 'leave', clientId: 'c1', at: '2024-06-20T09:00:00.000Z', direction: 'inbound', sentiment: -0.8, signals: 1 | 4, thread: 'TX' },
      ]);
      await recomputeHealth(db, { workspaceId: t.workspaceId, now: new Date(NOW) });

      const res = await t.request(`/api/clients/c1/health-history?workspaceId=${t.workspaceId}&windowDays=30`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as HistoryBody;
      expect(body.clientId).toBe('c1');
      expect(body.windowDays).toBe(30);
      // 30 days up to the data's today, oldest first, one each.
      expect(body.days[0]!.date).toBe('2024-06-01');
      expect(body.days.at(-1)!.date).toBe('2024-06-30');
      expect(body.days).toHaveLength(30);
      // The first day of the window has a day before it: its change is known.
      expect(body.days[0]!.change).not.toBeNull();
      const drop = body.days.find((d) => d.date === '2024-06-20')!;
      expect(drop.change).toBeLessThan(-2);
      expect(drop.reasonCode).toBe('churn_intent');
      expect(drop.reason).toMatch(/leave/i);
      expect(drop.interactionIds).toContain('leave');
      expect(body.components.map((c) => c.name)).toEqual(['sentiment', 'engagement', 'responsiveness', 'recency']);
      expect(body.components.every((c) => typeof c.value === 'number')).toBe(true);
      expect(body.evidence[0]).toMatchObject({ id: 'leave', subject: 'subject leave', date: '2024-06-20T09:00:00.000Z' });

      // The default window is 90 days: the whole history since the first interaction (2024-05-05).
      const all = (await (await t.request(`/api/clients/c1/health-history?workspaceId=${t.workspaceId}`)).json()) as HistoryBody;
      expect(all.windowDays).toBe(90);
      expect(all.days[0]!.date).toBe('2024-05-05');
      expect(all.days[0]!.change).toBeNull();

      for (const bad of ['0', '366', 'x']) {
        const r = await t.request(`/api/clients/c1/health-history?workspaceId=${t.workspaceId}&windowDays=${bad}`);
        expect(r.status, bad).toBe(400);
      }
      const missing = await t.request(`/api/clients/nope/health-history?workspaceId=${t.workspaceId}`);
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as { code: string }).code).toBe('CLIENT_NOT_FOUND');
    } finally {
      await t.close();
    }
  });
});
