import { afterAll, describe, expect, it } from 'vitest';
import { createWorkspace, getSummary, updateSettings, type Db } from '../index.js';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { renewalAlerts, scoreDropAlerts, dropPercent } from './alerts.js';
import { buildDigest, digestIsQuiet } from './digest.js';
import { planNotifications } from './plan.js';
import { digestsDue, mondayOf } from './schedule.js';
import { localTime } from '../util/time.js';
import { seedClient, seedInteraction, seedScores, seedSnapshot } from './test-data.js';
import { getSettings } from '../settings/settings.js';

afterAll(async () => {
  await dropTestSchemas();
});

const WS = 'acme.com';
const DATA_NOW = new Date('2024-05-20T12:00:00.000Z'); // a Monday

describe('local time and due digests', () => {
  it('reads the wall time in the zone and its ISO weekday', () => {
    expect(localTime(new Date('2024-05-20T03:30:00Z'), 'America/New_York')).toEqual({ day: '2024-05-19', hour: 23, minute: 30, weekday: 7 });
    expect(localTime(new Date('2024-05-19T23:00:00Z'), 'Asia/Tokyo')).toEqual({ day: '2024-05-20', hour: 8, minute: 0, weekday: 1 });
    expect(localTime(new Date('2024-05-20T00:00:00Z'), 'Not/AZone').day).toBe('2024-05-20');
    expect(mondayOf('2024-05-26')).toBe('2024-05-20');
    expect(mondayOf('2024-05-20')).toBe('2024-05-20');
  });

  it('daily from 08:00 local; weekly from 08:00 local on Monday; the zone decides the day', () => {
    const both = { daily: true, weekly: true };
    // 11:59 UTC is 07:59 in New York: nothing yet; 12:00 UTC is 08:00.
    expect(digestsDue(new Date('2024-05-20T11:59:00Z'), 'America/New_York', both)).toEqual([]);
    expect(digestsDue(new Date('2024-05-20T12:00:00Z'), 'America/New_York', both)).toEqual([
      { kind: 'daily', period: '2024-05-20' },
      { kind: 'weekly', period: '2024-05-20' },
    ]);
    // Sunday 23:00 UTC is Monday 08:00 in Tokyo, and still Sunday in UTC.
    expect(digestsDue(new Date('2024-05-19T23:00:00Z'), 'Asia/Tokyo', both)).toEqual([
      { kind: 'daily', period: '2024-05-20' },
      { kind: 'weekly', period: '2024-05-20' },
    ]);
    expect(digestsDue(new Date('2024-05-19T23:00:00Z'), 'UTC', both)).toEqual([{ kind: 'daily', period: '2024-05-19' }]);
    expect(digestsDue(new Date('2024-05-20T12:00:00Z'), 'UTC', { daily: false, weekly: false })).toEqual([]);
  });

  it('relative drop in percent of the earlier score', () => {
    expect(dropPercent(80, 68)).toBe(15);
    expect(dropPercent(80, 68.1)).toBe(14.88);
    expect(dropPercent(0, 10)).toBeNull();
  });
});

async function setup(db: Db): Promise<void> {
  await createWorkspace(db, { domain: WS, name: 'Acme', ownerEmail: 'ana@acme.com' });
}

describe.each(await testDialects())('alerts and digests from hand-built data ($name)', (dialect) => {
  it('score drop: fires on a ≥15% fall against the day or the week before, once per fall, never for excluded clients', async () => {
    const store = await dialect.open();
    const db = store.db;
    try {
      await setup(db);
      for (const id of ['sharp', 'almost', 'slow', 'stays', 'excluded', 'stale', 'rising'])
        await seedClient(db, WS, {
          id,
          name: id[0]!.toUpperCase() + id.slice(1),
          excluded: id === 'excluded',
          csmOwner: id === 'sharp' ? 'Cy@Acme.com' : null,
        });
      await seedInteraction(db, WS, { id: 'i1', clientId: 'sharp', at: '2024-05-20T09:15:00.000Z', subject: 'We are cancelling', sentiment: -0.8 });
      await seedInteraction(db, WS, { id: 'i2', clientId: 'sharp', at: '2024-05-20T10:00:00.000Z', subject: 'Still broken', sentiment: -0.5 });
      // 80 → 68 in a day: exactly 15 %.
      await seedScores(db, WS, 'sharp', { '2024-05-13': 78, '2024-05-19': 80 });
      await seedSnapshot(db, WS, 'sharp', '2024-05-20', 68, ['i1', 'i2']);
      // 80 → 68.1: 14.88 %, and 14.88 % against the week too.
      await seedScores(db, WS, 'almost', { '2024-05-13': 80, '2024-05-19': 80, '2024-05-20': 68.1 });
      // Slow decline: 80 a week ago, 70 yesterday (12.5 % against its own week), 67 today (16.25 %).
      await seedScores(db, WS, 'slow', { '2024-05-12': 80, '2024-05-13': 80, '2024-05-19': 70, '2024-05-20': 67 });
      // Fell last week and stays down: already ≥ 15 % below its week-ago score yesterday.
      await seedScores(db, WS, 'stays', { '2024-05-12': 80, '2024-05-13': 80, '2024-05-19': 60, '2024-05-20': 60 });
      await seedScores(db, WS, 'excluded', { '2024-05-19': 80, '2024-05-20': 40 });
      // Latest snapshot three days old: stale news.
      await seedScores(db, WS, 'stale', { '2024-05-16': 80, '2024-05-17': 40 });
      await seedScores(db, WS, 'rising', { '2024-05-13': 40, '2024-05-19': 50, '2024-05-20': 70 });

      const alerts = await scoreDropAlerts(db, WS, { now: DATA_NOW, scoreDropPct: 15 });
      expect(alerts.map((a) => [a.clientId, a.date, a.trigger.days, a.trigger.dropPct])).toEqual([
        ['slow', '2024-05-20', 7, 16.25],
        ['sharp', '2024-05-20', 1, 15],
      ]);
      const sharp = alerts.find((a) => a.clientId === 'sharp')!;
      expect(sharp).toMatchObject({ clientName: 'Sharp', score: 68, reason: 'sentiment_declining', csmOwner: 'Cy@Acme.com' });
      expect(sharp.trigger).toEqual({ days: 1, date: '2024-05-19', score: 80, dropPoints: 12, dropPct: 15 });
      expect(sharp.comparisons.map((c) => [c.days, c.dropPct])).toEqual([
        [1, 15],
        [7, 12.82],
      ]);
      expect(sharp.reasonText).toBe(
        'Score fell 12.0 points (80.0 → 68.0), mostly because the tone of recent interactions turned more negative (sentiment −12.0).',
      );
      expect(sharp.evidence.map((e) => [e.subject, e.occurredAt])).toEqual([
        ['We are cancelling', '2024-05-20T09:15:00.000Z'],
        ['Still broken', '2024-05-20T10:00:00.000Z'],
      ]);
      // No evidence ids on the snapshot: the most negative things said in the compared days.
      const slow = alerts.find((a) => a.clientId === 'slow')!;
      expect(slow.evidence).toEqual([]);

      // A higher bar: only 'slow' (16.25 %) passes 16 %.
      expect((await scoreDropAlerts(db, WS, { now: DATA_NOW, scoreDropPct: 16 })).map((a) => a.clientId)).toEqual(['slow']);
      // The next day, nothing new happened: the falls are not repeated (sharp is 15 % below its week but was already so).
      await seedScores(db, WS, 'sharp', { '2024-05-21': 68 });
      await seedScores(db, WS, 'slow', { '2024-05-21': 67 });
      expect(await scoreDropAlerts(db, WS, { now: new Date('2024-05-21T12:00:00Z'), scoreDropPct: 15 })).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('renewal: within renewalsAheadDays only, with score, MRR and the reason when at risk', async () => {
    const store = await dialect.open();
    const db = store.db;
    try {
      await setup(db);
      await seedClient(db, WS, {
        id: 'risky',
        name: 'Risky',
        mrr: 5000,
        renewalDate: '2024-06-01',
        score: 30,
        scoredAt: '2024-05-20T06:00:00.000Z',
        csmOwner: 'cy@acme.com',
      });
      await seedScores(db, WS, 'risky', { '2024-05-13': 60, '2024-05-20': 30 });
      await seedClient(db, WS, { id: 'fine', name: 'Fine', mrr: 1000, renewalDate: '2024-05-20', score: 75 });
      await seedClient(db, WS, { id: 'far', name: 'Far', mrr: 1000, renewalDate: '2024-06-20', score: 75 }); // 31 days ahead
      await seedClient(db, WS, { id: 'past', name: 'Past', mrr: 1000, renewalDate: '2024-05-19', score: 75 });
      await seedClient(db, WS, { id: 'hidden', name: 'Hidden', mrr: 1000, renewalDate: '2024-05-25', score: 10, excluded: true });
      const alerts = await renewalAlerts(db, WS, { now: DATA_NOW, renewalsAheadDays: 30, riskThreshold: 40 });
      expect(alerts.map((a) => [a.clientId, a.renewalDate, a.daysUntil, a.atRisk])).toEqual([
        ['fine', '2024-05-20', 0, false],
        ['risky', '2024-06-01', 12, true],
      ]);
      expect(alerts[0]!.reason).toBeNull();
      expect(alerts[1]).toMatchObject({ score: 30, mrr: 5000, reason: { code: 'sentiment_declining' } });
      expect(alerts[1]!.reason!.text).toContain('Score fell 30.0 points (60.0 → 30.0)');
    } finally {
      await store.close();
    }
  });

  it("digest: changes over the complete days since the previous digest, figures equal to getSummary's at the same moment", async () => {
    const store = await dialect.open();
    const db = store.db;
    try {
      await setup(db);
      // Yesterday (05-19) against the day before (05-18), for a first daily digest on 05-20.
      await seedClient(db, WS, { id: 'crossed', name: 'Crossed', mrr: 3000, score: 35 });
      await seedScores(db, WS, 'crossed', { '2024-05-13': 55, '2024-05-18': 50, '2024-05-19': 35, '2024-05-20': 35 });
      await seedClient(db, WS, { id: 'already', name: 'Already', mrr: 2000, score: 20 });
      await seedScores(db, WS, 'already', { '2024-05-13': 21, '2024-05-18': 21, '2024-05-19': 20, '2024-05-20': 20 });
      await seedClient(db, WS, { id: 'up', name: 'Up', mrr: 500, score: 90, renewalDate: '2024-06-10' });
      await seedScores(db, WS, 'up', { '2024-05-13': 60, '2024-05-18': 60, '2024-05-19': 90, '2024-05-20': 90 });
      await seedClient(db, WS, { id: 'flat', name: 'Flat', mrr: 700, score: 70, renewalDate: '2024-06-25' });
      await seedScores(db, WS, 'flat', { '2024-05-13': 70, '2024-05-18': 70, '2024-05-19': 72, '2024-05-20': 70 });
      await seedClient(db, WS, { id: 'gone', name: 'Gone', mrr: 9000, score: 10, excluded: true });
      await seedScores(db, WS, 'gone', { '2024-05-18': 80, '2024-05-19': 10 });
      await db
        .insertInto('jobs')
        .values({
          id: 'job_1',
          workspace_id: WS,
          kind: 'sync',
          source: 'google',
          state: 'failed',
          group_id: null,
          params_json: '{}',
          progress_json: '{}',
          items_processed: 0,
          items_read: 0,
          total_items: null,
          items_added: 0,
          items_updated: 0,
          items_skipped: 0,
          items_filtered: 0,
          errors_count: 1,
          errors_json: '[]',
          cursor_json: null,
          lease_owner: null,
          lease_expires_at: null,
          parked_until: null,
          attempts: 3,
          last_error: 'Gmail answered 500',
          created_at: '2024-05-20T05:00:00.000Z',
          started_at: '2024-05-20T05:00:00.000Z',
          completed_at: '2024-05-20T05:10:00.000Z',
          updated_at: '2024-05-20T05:10:00.000Z',
        })
        .execute();

      const settings = await getSettings(db, WS);
      const digest = await buildDigest(db, WS, { kind: 'daily', period: '2024-05-20', now: DATA_NOW, dataNow: DATA_NOW, previousSentAt: null, settings });
      expect([digest.fromDay, digest.toDay]).toEqual(['2024-05-19', '2024-05-19']);
      expect(digest.newRisks.map((c) => [c.clientId, c.from, c.to, c.reason])).toEqual([['crossed', 50, 35, 'sentiment_declining']]);
      expect(digest.movers.map((c) => [c.clientId, c.delta])).toEqual([
        ['up', 30],
        ['crossed', -15],
      ]);
      expect(digest.renewals.map((r) => [r.clientId, r.daysUntil, r.isNew])).toEqual([['up', 21, false]]);
      expect(digest.failedJobs.map((j) => [j.jobId, j.error])).toEqual([['job_1', 'Gmail answered 500']]);
      expect(digestIsQuiet(digest)).toBe(false);

      const summary = await getSummary(db, WS, { now: DATA_NOW });
      expect(digest.figures).toEqual({
        clients: summary.totals.clients,
        avgScore: summary.health.avgScore,
        change7: summary.health.change7,
        threshold: summary.health.threshold,
        atRiskCount: summary.health.atRiskCount,
        mrrTotal: summary.revenue.mrrTotal,
        mrrAtRisk: summary.revenue.mrrAtRisk,
        renewals30d: summary.totals.renewals30d,
        renewals30dValue: summary.revenue.renewals30dValue,
      });
      // By hand: four included clients; at risk below 40: crossed (3000) and already (2000).
      expect(digest.figures).toMatchObject({ clients: 4, atRiskCount: 2, mrrAtRisk: 5000, mrrTotal: 6200, avgScore: 53.8 });

      // A weekly digest covers the 7 days 05-13 … 05-19 against 05-12 (absent: every at-risk client is new).
      const weekly = await buildDigest(db, WS, { kind: 'weekly', period: '2024-05-20', now: DATA_NOW, dataNow: DATA_NOW, previousSentAt: null, settings });
      expect([weekly.fromDay, weekly.toDay]).toEqual(['2024-05-13', '2024-05-19']);
      expect(weekly.newRisks.map((c) => c.clientId)).toEqual(['crossed', 'already']);
      // 'up' renews on 06-10, already within 30 days of 05-13: not new to a weekly reader.
      expect(weekly.renewals.map((r) => [r.clientId, r.isNew])).toEqual([['up', false]]);

      // The next daily digest, a day later and with nothing new, is quiet.
      await updateSettings(db, WS, { notifications: { dailyDigest: true } });
      const next = await buildDigest(db, WS, {
        kind: 'daily',
        period: '2024-05-21',
        now: new Date('2024-05-21T12:00:00Z'),
        dataNow: new Date('2024-05-21T12:00:00Z'),
        previousSentAt: '2024-05-20T12:00:00.000Z',
        settings,
      });
      expect([next.fromDay, next.toDay]).toEqual(['2024-05-20', '2024-05-20']);
      expect(next.newRisks).toEqual([]);
      expect(next.movers.map((c) => c.clientId)).toEqual([]);
      expect(digestIsQuiet(next)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('plan: nothing when channels.email is false or a switch is off; owner and CSM as recipients', async () => {
    const store = await dialect.open();
    const db = store.db;
    try {
      await setup(db);
      await updateSettings(db, WS, { notifications: { dailyDigest: true } });
      await seedClient(db, WS, { id: 'sharp', name: 'Sharp', csmOwner: 'Cy@Acme.com', score: 30, mrr: 100, renewalDate: '2024-05-30' });
      await seedScores(db, WS, 'sharp', { '2024-05-18': 80, '2024-05-19': 60, '2024-05-20': 30 });
      const now = new Date('2024-05-20T09:00:00Z');
      let plan = await planNotifications(db, WS, { now });
      expect(plan.messages.map((m) => [m.kind, m.dedupeKey, m.to])).toEqual([
        ['score_drop', 'score_drop:sharp:2024-05-20', ['ana@acme.com', 'cy@acme.com']],
        ['renewal', 'renewal:sharp:2024-05-30', ['ana@acme.com', 'cy@acme.com']],
        ['digest_daily', 'digest_daily:2024-05-20', ['ana@acme.com']],
      ]);
      // The week 05-13 … 05-19 brought nothing (05-12 has no scores to compare, the renewal was already near): quiet.
      expect(plan.quiet.map((q) => q.dedupeKey)).toEqual(['digest_weekly:2024-05-20']);
      expect(plan.messages.every((m) => m.from === 'notifications@acme.com')).toBe(true);

      await updateSettings(db, WS, { notifications: { alertOnScoreDrop: false, alertOnRenewals: false, weeklyDigest: false } });
      plan = await planNotifications(db, WS, { now });
      expect(plan.messages.map((m) => m.kind)).toEqual(['digest_daily']);

      await updateSettings(db, WS, { notifications: { alertOnScoreDrop: true, alertOnRenewals: true, weeklyDigest: true, channels: { email: false } } });
      plan = await planNotifications(db, WS, { now });
      expect(plan.messages).toEqual([]);
      expect(plan.notes).toEqual(['notifications.channels.email is false: nothing is sent']);
    } finally {
      await store.close();
    }
  });
});
