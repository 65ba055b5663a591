import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { insertClient, insertSnapshot, insertWorkspace } from '../health/test-fixtures.js';
import { healthTrend } from './trends.js';
import { getSummary } from './summary.js';

const NOW = new Date('2024-06-30T12:00:00.000Z'); // a Sunday
const WS = 'trend.test';

afterAll(() => dropTestSchemas());

for (const dialect of await testDialects()) {
  describe(`health trend and summary with excluded clients on ${dialect.name}`, () => {
    it('leaves excluded clients out of every day, bucket and count', async () => {
      const store = await dialect.open();
      const db = store.db;
      await insertWorkspace(db, WS);
      await insertClient(db, WS, { id: 'a', domain: 'a.com', name: 'A', health_score: 62, health_updated_at: NOW.toISOString(), mrr: 100 });
      await insertClient(db, WS, { id: 'b', domain: 'b.com', name: 'B', health_score: 39, health_updated_at: NOW.toISOString(), mrr: 200 });
      await insertClient(db, WS, { id: 'x', domain: 'x.com', name: 'X', health_score: 5, health_updated_at: NOW.toISOString(), mrr: 900, is_excluded: 1 });
      // a: 06-23 40, 06-29 60, 06-30 62; b: 06-29 41, 06-30 39 (b starts on 06-29);
      // x (excluded) on every one of those days, and on 06-22 alone.
      await insertSnapshot(db, WS, 'a', '2024-06-23', [10, 10, 10, 10]);
      await insertSnapshot(db, WS, 'a', '2024-06-29', [15, 15, 15, 15]);
      await insertSnapshot(db, WS, 'a', '2024-06-30', [17, 15, 15, 15]);
      await insertSnapshot(db, WS, 'b', '2024-06-29', [11, 10, 10, 10]);
      await insertSnapshot(db, WS, 'b', '2024-06-30', [9, 10, 10, 10]);
      for (const d of ['2024-06-22', '2024-06-23', '2024-06-29', '2024-06-30']) await insertSnapshot(db, WS, 'x', d, [1, 1, 1, 2]);

      // Daily, 9 days (06-22..06-30): 06-22 has only x, so no item; 06-23 a alone 40;
      // 06-29 (60 + 41)/2 = 50.5; 06-30 (62 + 39)/2 = 50.5.
      expect(await healthTrend(db, WS, { windowDays: 9, now: NOW })).toEqual([
        { date: '2024-06-23', avgScore: 40, clientCount: 1 },
        { date: '2024-06-29', avgScore: 50.5, clientCount: 2 },
        { date: '2024-06-30', avgScore: 50.5, clientCount: 2 },
      ]);
      // Weekly: ISO week of Monday 06-17 holds 06-23 (a: 40); week of 06-24 holds 06-29 and 06-30:
      // (60 + 41 + 62 + 39)/4 = 50.5, 2 clients on its last day.
      expect(await healthTrend(db, WS, { windowDays: 9, interval: 'weekly', now: NOW })).toEqual([
        { date: '2024-06-17', avgScore: 40, clientCount: 1 },
        { date: '2024-06-24', avgScore: 50.5, clientCount: 2 },
      ]);

      // Summary: 2 clients; mean score (62 + 39)/2 = 50.5; at risk (< 40): b only, mrr 200;
      // change7 uses the 06-23 snapshot: a only, 62 − 40 = 22, 22/40 = 55 %;
      // improving since 06-23 (≥ 5 points): a; the excluded x (score 5, mrr 900) appears nowhere.
      const s = await getSummary(db, WS, { now: NOW });
      expect(s.totals.clients).toBe(2);
      expect(s.revenue).toEqual({ mrrTotal: 300, mrrAtRisk: 200, renewals30dValue: 0, avgClientValue: 150 });
      expect(s.health).toMatchObject({ avgScore: 50.5, change7: 22, change7Pct: 55, threshold: 40, atRiskCount: 1, improvingCount: 1 });
      expect(s.lists.topRisks.map((r) => r.clientId)).toEqual(['b']);
      expect(s.lists.topImproving).toEqual([{ clientId: 'a', name: 'A', score: 62, scoreChange: 22, mrr: 100 }]);
      await store.close();
    });

    it('rounds a day whose mean ends in exactly 5 up, as every other figure, whatever order the database adds in', async () => {
      const store = await dialect.open();
      const db = store.db;
      await insertWorkspace(db, WS);
      // 10.1 and 10.2: the mean is exactly 10.15, which a sum in floating point makes 10.149999…
      await insertClient(db, WS, { id: 'a', domain: 'a.com', name: 'A', health_score: 10.1, health_updated_at: NOW.toISOString() });
      await insertClient(db, WS, { id: 'b', domain: 'b.com', name: 'B', health_score: 10.2, health_updated_at: NOW.toISOString() });
      await insertSnapshot(db, WS, 'a', '2024-06-30', [2.5, 2.5, 2.5, 2.6]);
      await insertSnapshot(db, WS, 'b', '2024-06-30', [2.5, 2.5, 2.5, 2.7]);
      expect(await healthTrend(db, WS, { windowDays: 1, now: NOW })).toEqual([{ date: '2024-06-30', avgScore: 10.2, clientCount: 2 }]);
      await store.close();
    });

    it('orders at-risk ties on revenue and score by name beyond the first ten', async () => {
      const store = await dialect.open();
      const db = store.db;
      await insertWorkspace(db, WS);
      // Twelve at-risk clients with the same mrr and score: the list is the first ten names.
      const names = ['Lima', 'Kilo', 'Juliett', 'India', 'Hotel', 'Golf', 'Foxtrot', 'Echo', 'Delta', 'Charlie', 'Bravo', 'Alpha'];
      for (const [i, name] of names.entries()) {
        await insertClient(db, WS, { id: `r${i}`, domain: `r${i}.com`, name, health_score: 20, health_updated_at: NOW.toISOString(), mrr: 50 });
      }
      // One with more revenue at risk comes first whatever its name.
      await insertClient(db, WS, { id: 'big', domain: 'big.com', name: 'Zulu', health_score: 30, health_updated_at: NOW.toISOString(), mrr: 5000 });
      const s = await getSummary(db, WS, { now: NOW });
      expect(s.health.atRiskCount).toBe(13);
      expect(s.revenue.mrrAtRisk).toBe(5600);
      expect(s.lists.topRisks.map((r) => r.name)).toEqual(['Zulu', 'Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo', 'Foxtrot', 'Golf', 'Hotel', 'India']);
      await store.close();
    });
  });
}
