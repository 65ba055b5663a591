/**
 * The backtest (backtest.ts) on both dialects, judged as a CS lead would: a client that was red
 * for months before it churned is caught early, one that churned out of the blue is missed, a red
 * client that recovered and renewed is a false alarm; and what happened after a cut-off never
 * changes what the score is said to have seen at it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import type { Db } from '../store/database.js';
import { recomputeHealth } from '../health/recompute.js';
import { storeSnapshots } from '../health/write.js';
import type { SnapshotRow } from '../health/score-client.js';
import { insertClient, insertInteractions, insertWorkspace, weeklyRoutine } from '../health/test-fixtures.js';
import { recordOutcome } from '../clients/outcomes.js';
import { runBacktest, type BacktestReport } from './backtest.js';

afterAll(() => dropTestSchemas());

const WS = 'ourco.com';
const NOW = new Date('2025-06-30T12:00:00.000Z');

/** One snapshot a day from `from` to `to` (inclusive), the score a function of the day. */
async function history(db: Db, clientId: string, from: string, to: string, score: (day: string) => number): Promise<void> {
  const rows: SnapshotRow[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) {
    const date = new Date(t).toISOString().slice(0, 10);
    const s = score(date);
    const comp = { value: s, weight: 0.25, contribution: s / 4 };
    rows.push({
      workspace_id: WS,
      client_id: clientId,
      date,
      score: s,
      confidence: 1,
      components: { sentiment: comp, engagement: comp, responsiveness: comp, recency: comp },
      reason: 'stable',
      reason_text: '',
      evidence: {},
    });
  }
  await storeSnapshots(db, rows);
}

describe.each(await testDialects())('backtest on $name', (dialect) => {
  it('catches the client that was red for months, misses the one that left out of the blue, and counts the red one that renewed as a false alarm', async () => {
    const store = await dialect.open();
    const db = store.db;
    try {
      await insertWorkspace(db, WS);
      for (const id of ['initech', 'globex', 'hooli', 'umbrella', 'stark', 'wayne']) await insertClient(db, WS, { id, domain: `${id}.com` });
      // Red (25) from March 1st until it churned on June 1st.
      await history(db, 'initech', '2024-12-01', '2025-06-01', (d) => (d >= '2025-03-01' ? 25 : 75));
      await history(db, 'globex', '2024-12-01', '2025-06-30', () => 75);
      // Calm to the end, and gone on May 15th.
      await history(db, 'hooli', '2024-12-01', '2025-05-15', () => 70);
      // Red in March, recovered in April, renewed in May.
      await history(db, 'umbrella', '2024-12-01', '2025-06-30', (d) => (d >= '2025-03-01' && d < '2025-04-01' ? 35 : 72));
      // Tracked only from May: no score 60 days before its renewal.
      await history(db, 'stark', '2025-05-01', '2025-06-30', () => 80);
      await history(db, 'wayne', '2024-12-01', '2025-06-30', () => 55);
      const record = (client: string, date: string, outcome: 'renewed' | 'churned' | 'downgraded', extra = {}) =>
        recordOutcome(db, WS, client, { date, outcome, ...extra }, 'api', NOW);
      await record('initech', '2025-06-01', 'churned');
      await record('globex', '2025-06-01', 'renewed');
      await record('hooli', '2025-05-15', 'churned');
      await record('umbrella', '2025-05-20', 'renewed');
      await record('stark', '2025-06-10', 'renewed');
      await record('wayne', '2025-06-05', 'downgraded', { mrrBefore: 1000, mrrAfter: 600 });

      const r = await runBacktest(db, WS, { days: 60 });
      expect(r).toMatchObject({ days: 60, threshold: 40, outcomes: 5, churned: 2, renewed: 2, downgraded: 1, withoutHistory: 1, flagged: 2 });
      // Churners above kept ones in 4 of the 6 pairs: initech above all three, hooli (70) only above globex (75).
      expect(r.auc).toBe(0.667);
      // Flagged 60 days before: initech (churned) and umbrella (renewed).
      expect([r.precision, r.recall]).toEqual([0.5, 0.5]);
      // initech red March 1st to May 31st (92 days); hooli never.
      expect(r.churns).toEqual([
        { clientId: 'hooli', date: '2025-05-15', scoreBefore: 70, signalsBefore: [], leadTimeDays: 0 },
        { clientId: 'initech', date: '2025-06-01', scoreBefore: 25, signalsBefore: [], leadTimeDays: 92 },
      ]);
      expect([r.leadTimeDaysMedian, r.churnsRedAtLeast45Days]).toEqual([46, 1]);
      expect(r.summary).toMatch(/^Of the 2 clients that churned, 1 was at risk \(red\) at least 45 days before/);
      expect(r.summary).toMatch(/1 outcome\(s\) had no score 60 days before/);
      expect(r.horizons.map((h) => h.days)).toEqual([30, 60, 90]);
      // 90 days before, only initech was red (its cut-off is March 3rd); umbrella's (February 19th) came before its red month.
      expect(r.horizons.find((h) => h.days === 90)).toMatchObject({ outcomes: 5, flagged: 1 });
      expect(r.reliability.reduce((n, b) => n + b.outcomes, 0)).toBe(5);
      expect(r.brier).toBeGreaterThanOrEqual(0);
      expect(r.roc[0]).toEqual({ fpr: 0, tpr: 0 });
      expect(r.roc.at(-1)).toEqual({ fpr: 1, tpr: 1 });
      await expect(runBacktest(db, WS, { days: 0 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      // A year before, nobody was tracked yet.
      expect(await runBacktest(db, WS, { days: 365 })).toMatchObject({ outcomes: 0, withoutHistory: 6, auc: null });
    } finally {
      await store.close();
    }
  });

  it('says it has nothing to judge before any outcome is recorded', async () => {
    const store = await dialect.open();
    try {
      await insertWorkspace(store.db, WS);
      const r = await runBacktest(store.db, WS);
      expect(r).toMatchObject({ days: 60, outcomes: 0, churned: 0, auc: null, precision: null, recall: null, leadTimeDaysMedian: null });
      expect(r.summary).toMatch(/No renewal outcomes recorded yet/);
    } finally {
      await store.close();
    }
  });

  it('point in time: mail dated after each cut-off, and a rebuild with it, change nothing the score is said to have seen at the cut-off', async () => {
    const store = await dialect.open();
    const db = store.db;
    const now = new Date('2024-06-30T18:00:00.000Z');
    try {
      await insertWorkspace(db, WS);
      await insertClient(db, WS, { id: 'content', domain: 'content.com' });
      await insertClient(db, WS, { id: 'quiet', domain: 'quiet.com' });
      await insertClient(db, WS, { id: 'angry', domain: 'angry.com' });
      await insertInteractions(db, WS, [
        ...weeklyRoutine('content', '2024-06-28T09:00:00.000Z'),
        ...weeklyRoutine('quiet', '2024-04-01T09:00:00.000Z'),
        ...weeklyRoutine('angry', '2024-06-28T09:00:00.000Z', -0.6),
      ]);
      await recomputeHealth(db, { workspaceId: WS, now });
      for (const [client, outcome] of [
        ['content', 'renewed'],
        ['quiet', 'churned'],
        ['angry', 'churned'],
      ] as const)
        await recordOutcome(db, WS, client, { date: '2024-06-25', outcome }, 'api', now);
      const before = await runBacktest(db, WS, { days: 30 });
      const scoreOn = async (client: string, date: string) =>
        Number(
          (await db.selectFrom('health_snapshots').select('score').where('client_id', '=', client).where('date', '=', date).executeTakeFirstOrThrow()).score,
        );
      const contentLate = await scoreOn('content', '2024-06-20');

      // After every cut-off (the latest is May 26th): the content client threatens to leave, the
      // quiet one writes happily, the angry one calms down; then the history is rebuilt with it.
      await insertInteractions(db, WS, [
        { id: 'late-1', clientId: 'content', at: '2024-06-10T10:00:00.000Z', direction: 'inbound', sentiment: -0.9, signals: 1 | 4, thread: 'late-1' },
        { id: 'late-2', clientId: 'quiet', at: '2024-06-01T10:00:00.000Z', direction: 'inbound', sentiment: 0.9, thread: 'late-2' },
        { id: 'late-3', clientId: 'angry', at: '2024-05-30T10:00:00.000Z', direction: 'inbound', sentiment: 0.8, thread: 'late-3' },
      ]);
      await recomputeHealth(db, { workspaceId: WS, now });
      // The later mail did change the history after the cut-off…
      expect(await scoreOn('content', '2024-06-20')).not.toBe(contentLate);
      const after = await runBacktest(db, WS, { days: 30 });
      // …and nothing the backtest reads at the cut-offs.
      const atCutoff = (r: BacktestReport) => ({
        horizons: r.horizons,
        scoresBefore: r.churns.map((c) => [c.clientId, c.scoreBefore, c.signalsBefore]),
        figures: [r.outcomes, r.churned, r.auc, r.precision, r.recall, r.flagged, r.brier, r.liftTopDecile],
      });
      expect(atCutoff(after)).toEqual(atCutoff(before));
      expect(before.outcomes).toBe(3);
      // What the score saw a month before: the quiet client's silence (and nothing of the later mail).
      const seen = Object.fromEntries(before.churns.map((c) => [c.clientId, c.signalsBefore]));
      expect(seen.quiet).toEqual(['gone_quiet']);
    } finally {
      await store.close();
    }
  });
});
