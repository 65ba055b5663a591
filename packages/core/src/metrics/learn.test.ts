/**
 * Learned weights (learn.ts, health/models.ts) on both dialects, judged as a CS lead would: in a
 * book where the clients that left were the ones who had stopped talking to us while staying
 * polite, the hand-written weights (tone first) rank them poorly and the learned ones put
 * engagement first and catch them better on later renewals than they learned from; that model is
 * offered, never applied by itself; once applied it scores from today (each snapshot names it),
 * a revert brings the hand-written weights back, and the summary's churn probability follows. A
 * book where the hand-written weights already do as well gets no offer, and too few outcomes get
 * a clear refusal.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { recomputeHealth } from '../health/recompute.js';
import { insertClient, insertInteractions, insertWorkspace, weeklyRoutine } from '../health/test-fixtures.js';
import { readSnapshotDetails } from '../health/snapshots.js';
import { HEALTH_COMPONENTS, scoreWithWeights } from '../health/model.js';
import { activeHealthModel, applyHealthModel, churnProbability, listHealthModels, revertHealthModel } from '../health/models.js';
import { updateSettings } from '../settings/settings.js';
import { addDays } from '../util/time.js';
import { renewalBook } from './test-book.js';
import { getSummary } from './summary.js';
import { getClientHealthHistory } from './client-history.js';
import { MAX_WEIGHT, MIN_WEIGHT, boundedWeights, learnHealthModel } from './learn.js';

afterAll(() => dropTestSchemas());

const WS = 'ourco.com';
const NOW = new Date('2025-06-30T12:00:00.000Z');
const day = (d: Date): string => d.toISOString().slice(0, 10);

describe('boundedWeights', () => {
  it('keeps every part of the score within the bounds, summing to one', () => {
    for (const raw of [
      [5, 0, 0, 0],
      [-1, -2, 3, 0.1],
      [1, 1, 1, 1],
      [0, 0, 0, 0],
      [0.2, 0.9, 0.05, 0.3],
    ]) {
      const w = boundedWeights(raw);
      const values = HEALTH_COMPONENTS.map((c) => w[c]);
      expect(values.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 3);
      for (const v of values) {
        expect(v).toBeGreaterThanOrEqual(MIN_WEIGHT - 1e-4);
        expect(v).toBeLessThanOrEqual(MAX_WEIGHT + 1e-4);
      }
    }
    // The order of importance survives the bounds.
    const w = boundedWeights([0.2, 0.9, 0.05, 0.3]);
    expect(w.engagement).toBeGreaterThan(w.recency);
    expect(w.recency).toBeGreaterThan(w.sentiment);
  });
});

describe.each(await testDialects())('learned weights on $name', (dialect) => {
  it('learns that the clients who left had stopped talking to us, offers it, and scores with it only once applied', async () => {
    const store = await dialect.open();
    const db = store.db;
    try {
      await insertWorkspace(db, WS);
      await renewalBook(db, WS, NOW, 90, { churnEngagement: [10, 45], seed: 7 });
      // Before any fit, the summary says it has no churn probability.
      const before = await getSummary(db, WS, { now: NOW });
      expect(before.health.churnCalibration).toMatchObject({ available: false, model: null });
      expect(before.health.churnCalibration.text).toMatch(/No churn calibration yet/);

      const { model, summary } = await learnHealthModel(db, WS, { now: NOW });
      expect(model).toMatchObject({ version: 1, status: 'offered', outcomes: 90, churned: 30, horizonDays: 60 });
      // Engagement weighs most, tone less than the hand-written 40 %.
      const top = HEALTH_COMPONENTS.reduce((a, b) => (model.weights[a] >= model.weights[b] ? a : b));
      expect(top).toBe('engagement');
      expect(model.weights.sentiment).toBeLessThan(0.4);
      // Tested only on renewals later than those it learned from, and better there.
      expect(model.heldOut.folds).toBe(4);
      expect(model.heldOut.outcomes).toBe(90 - Math.floor(90 / 5));
      expect(model.heldOut.aucLearned!).toBeGreaterThan(model.heldOut.aucDefault! + 0.05);
      expect(summary).toMatch(/Offered as model 1/);
      // Offered is not applied: nothing scores with it yet.
      expect(await activeHealthModel(db, WS)).toBeNull();
      // The summary now calibrates the hand-written weights' scores on the renewals.
      // Two clients at risk today: the lower score is the likelier churn, each probability from the calibration.
      await db.updateTable('clients').set({ health_score: 20, health_updated_at: NOW.toISOString() }).where('id', '=', 'c1').execute();
      await db.updateTable('clients').set({ health_score: 35, health_updated_at: NOW.toISOString() }).where('id', '=', 'c2').execute();
      const calibrated = await getSummary(db, WS, { now: NOW });
      expect(calibrated.health.churnCalibration).toMatchObject({ available: true, model: null, horizonDays: 60, outcomes: 90 });
      expect(calibrated.health.churnCalibration.text).toMatch(/churns at a renewal 60 days later, fitted on 90 renewals .* by the hand-written weights/);
      const risks = new Map(calibrated.lists.topRisks.map((r) => [r.clientId, r.churnProbability]));
      expect(risks.get('c1')).toBe(Math.round(churnProbability(model.baseline.calibration!, 20) * 1000) / 1000);
      expect(risks.get('c1')!).toBeGreaterThan(risks.get('c2')!);
      // Weights changed by hand since the fit: that calibration no longer holds.
      await updateSettings(db, WS, { healthWeights: { sentiment: 0.1, engagement: 0.3, responsiveness: 0.3, recency: 0.3 } });
      const changed = await getSummary(db, WS, { now: NOW });
      expect(changed.health.churnCalibration).toMatchObject({ available: false, text: expect.stringMatching(/changed since the last fit/) });
      expect(changed.lists.topRisks.every((r) => r.churnProbability === null)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('rescores from today with an applied model, names it in each new snapshot, and reverts one step', async () => {
    const store = await dialect.open();
    const db = store.db;
    try {
      await insertWorkspace(db, WS);
      await renewalBook(db, WS, NOW, 60, { churnEngagement: [10, 45], seed: 11 });
      // A client we hear from every week, scored day by day up to today.
      await insertClient(db, WS, { id: 'steady', domain: 'steady.com' });
      await insertInteractions(db, WS, weeklyRoutine('steady', '2025-06-27T09:00:00.000Z', 0.1));
      await recomputeHealth(db, { workspaceId: WS, now: NOW, clientIds: ['steady'] });
      const { model } = await learnHealthModel(db, WS, { now: NOW });
      expect(model.status).toBe('offered');

      const applied = await applyHealthModel(db, WS, model.version, NOW);
      expect(applied).toMatchObject({ status: 'active', previousVersion: null });
      await recomputeHealth(db, { workspaceId: WS, now: NOW, fromDays: new Map(), includeStale: true });
      const snapshot = async (date: string) => {
        const row = await db
          .selectFrom('health_snapshots')
          .select(['score', 'confidence', 'detail'])
          .where('client_id', '=', 'steady')
          .where('date', '=', date)
          .executeTakeFirstOrThrow();
        const [d] = await readSnapshotDetails(db, [row]);
        return { score: Number(row.score), components: d!.components };
      };
      const today = await snapshot(day(NOW));
      expect(today.components.model).toBe(1);
      expect(today.components.sentiment?.weight).toBeCloseTo(model.weights.sentiment, 3);
      expect(today.score).toBe(scoreWithWeights(today.components, model.weights));
      // Yesterday was scored before the model was applied: it keeps the hand-written weights.
      const yesterday = await snapshot(day(addDays(NOW, -1)));
      expect(yesterday.components.model).toBeUndefined();
      expect(yesterday.components.sentiment?.weight).toBe(0.4);

      // The client's history says which days the learned model scored.
      const history = await getClientHealthHistory(db, WS, 'steady', { windowDays: 3, now: NOW });
      expect(history.days.map((d) => [d.date, d.model])).toEqual([
        ['2025-06-28', undefined],
        ['2025-06-29', undefined],
        ['2025-06-30', 1],
      ]);
      // The summary's probability now rests on the applied model.
      const summary = await getSummary(db, WS, { now: NOW });
      expect(summary.health.churnCalibration).toMatchObject({ available: true, model: 1 });

      expect(await revertHealthModel(db, WS, NOW)).toBeNull();
      await recomputeHealth(db, { workspaceId: WS, now: NOW, fromDays: new Map(), includeStale: true });
      const reverted = await snapshot(day(NOW));
      expect(reverted.components.model).toBeUndefined();
      expect(reverted.components.sentiment?.weight).toBe(0.4);
      expect((await listHealthModels(db, WS)).map((m) => [m.version, m.status])).toEqual([[1, 'retired']]);
      // One step only: nothing is left to revert, and a retired model may be applied again.
      await expect(revertHealthModel(db, WS, NOW)).rejects.toMatchObject({ code: 'INVALID_TRANSITION' });
      expect(await applyHealthModel(db, WS, 1, NOW)).toMatchObject({ status: 'active' });
      // A second model: never two in use at once, and its revert goes back to the first.
      const second = (await learnHealthModel(db, WS, { now: NOW })).model;
      await expect(db.updateTable('health_models').set({ status: 'active' }).where('version', '=', second.version).execute()).rejects.toThrow();
      expect(await applyHealthModel(db, WS, second.version, NOW)).toMatchObject({ status: 'active', previousVersion: 1 });
      expect(await revertHealthModel(db, WS, NOW)).toMatchObject({ version: 1, status: 'active' });
    } finally {
      await store.close();
    }
  });

  it('offers nothing when the hand-written weights already do as well, and refuses to apply that fit', async () => {
    const store = await dialect.open();
    const db = store.db;
    try {
      await insertWorkspace(db, WS);
      // Churners and renewers alike on every component: nothing to learn.
      await renewalBook(db, WS, NOW, 60, { churnEngagement: [70, 95], seed: 3 });
      const { model, summary } = await learnHealthModel(db, WS, { now: NOW });
      expect(model.status).toBe('rejected');
      expect(summary).toMatch(/Not offered/);
      await expect(applyHealthModel(db, WS, model.version, NOW)).rejects.toMatchObject({ code: 'INVALID_TRANSITION' });
      await expect(applyHealthModel(db, WS, 99, NOW)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(await activeHealthModel(db, WS)).toBeNull();
    } finally {
      await store.close();
    }
  });

  it('refuses to learn from too few renewals, saying how many it has and needs', async () => {
    const store = await dialect.open();
    const db = store.db;
    try {
      await insertWorkspace(db, WS);
      await renewalBook(db, WS, NOW, 20, { churnEngagement: [10, 45], seed: 5 });
      await expect(learnHealthModel(db, WS, { now: NOW })).rejects.toMatchObject({
        code: 'CONFLICT',
        message: expect.stringMatching(/at least 30 renewal outcomes .* 8 of them churns; this workspace has 20 with 7 churn/),
      });
      // 90 days before, no score was stated at all.
      await expect(learnHealthModel(db, WS, { now: NOW, days: 90 })).rejects.toMatchObject({ message: expect.stringMatching(/has 0 with 0/) });
      await expect(learnHealthModel(db, WS, { now: NOW, days: 0 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      expect(await listHealthModels(db, WS)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
