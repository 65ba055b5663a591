import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, createWorkspace, recomputeHealth, updateSettings, type Db } from '@chs/core';
import { dropTestSchemas, testDialects } from '@chs/core/testing';
import { insertClient, insertInteractions, insertSnapshot } from '../../../../packages/core/src/health/test-fixtures.js';
import { startTestApp, type TestApp } from '../testing.js';

/**
 * Fixture: the hand-built workspace behind the clients/metrics route tests. Every expected number in those
 * tests is worked out by hand from the rows below. "Now" is 2024-06-30T12:00:00Z (a Sunday).
 */

export const FIXTURE_NOW = '2024-06-30T12:00:00.000Z';
const UPDATED = FIXTURE_NOW;

export async function loadMetricsFixture(db: Db, ws: string): Promise<void> {
  // Clients. Scores are "current" (health_score) with snapshots on 06-23 (7 days ago) and 06-30.
  await insertClient(db, ws, {
    id: 'c1',
    domain: 'acmeco.com',
    name: 'Acme',
    mrr: 1000,
    renewal_date: '2024-07-10',
    health_score: 30,
    health_updated_at: UPDATED,
    last_interaction_at: '2024-06-27T10:00:00.000Z',
    csm_owner: 'ana@ourco.com',
  });
  await insertClient(db, ws, {
    id: 'c2',
    domain: 'beta.io',
    name: 'Beta',
    mrr: 500,
    renewal_date: '2024-08-15',
    health_score: 80,
    health_updated_at: UPDATED,
    last_interaction_at: '2024-06-29T12:00:00.000Z',
  });
  await insertClient(db, ws, {
    id: 'c3',
    domain: 'gamma.org',
    name: 'Gamma',
    health_score: 35,
    health_updated_at: UPDATED,
    last_interaction_at: '2024-06-24T10:00:00.000Z',
  });
  await insertClient(db, ws, {
    id: 'c4',
    domain: 'delta.net',
    name: 'Delta',
    mrr: 2000,
    renewal_date: '2024-07-30',
    health_score: 70,
    health_updated_at: UPDATED,
  });
  await insertClient(db, ws, {
    id: 'c5',
    domain: 'excl.com',
    name: 'Excluded',
    mrr: 9999,
    renewal_date: '2024-07-01',
    health_score: 10,
    health_updated_at: UPDATED,
    is_excluded: 1,
  });
  await insertClient(db, ws, { id: 'c6', domain: 'eps.com', name: 'Epsilon', mrr: 300, health_score: 45, health_updated_at: UPDATED });

  // Contributions [sentiment, engagement, responsiveness, recency]; the score is their sum.
  await insertSnapshot(db, ws, 'c1', '2024-06-23', [20, 10, 10, 10]); // 50
  await insertSnapshot(db, ws, 'c1', '2024-06-30', [8, 8, 10, 4]); // 30: −12, −2, 0, −6 → sentiment_declining
  await insertSnapshot(db, ws, 'c2', '2024-06-23', [24, 12, 12, 12]); // 60
  await insertSnapshot(db, ws, 'c2', '2024-06-30', [32, 18, 16, 14]); // 80: +8, +6, +4, +2 → sentiment_improving
  await insertSnapshot(db, ws, 'c3', '2024-06-23', [16, 10, 5, 10]); // 41
  await insertSnapshot(db, ws, 'c3', '2024-06-30', [16, 4, 5, 10]); // 35: 0, −6, 0, 0 → engagement_dropped
  await insertSnapshot(db, ws, 'c4', '2024-06-30', [30, 15, 10, 15]); // 70, new: no 06-23 snapshot
  await insertSnapshot(db, ws, 'c5', '2024-06-23', [30, 20, 20, 20]); // 90 (excluded)
  await insertSnapshot(db, ws, 'c5', '2024-06-30', [4, 2, 2, 2]); // 10 (excluded)
  await insertSnapshot(db, ws, 'c6', '2024-06-23', [25, 12, 12, 12]); // 61
  await insertSnapshot(db, ws, 'c6', '2024-06-30', [12, 11, 12, 10]); // 45: −13, −1, 0, −2 → sentiment_declining

  await insertInteractions(db, ws, [
    { id: 'i13', clientId: 'c1', at: '2024-05-15T10:00:00.000Z', direction: 'inbound', sentiment: 0.5, thread: 'T0' },
    { id: 'i1', clientId: 'c1', at: '2024-06-25T09:00:00.000Z', direction: 'inbound', sentiment: -0.5, thread: 'T1' },
    { id: 'i2', clientId: 'c1', at: '2024-06-25T15:00:00.000Z', direction: 'outbound', sentiment: 0.2, thread: 'T1', opened: 1 },
    { id: 'i3', clientId: 'c1', at: '2024-06-26T10:00:00.000Z', direction: 'inbound', sentiment: -0.4, thread: 'T1' },
    { id: 'i4', clientId: 'c1', at: '2024-06-27T10:00:00.000Z', direction: 'inbound', sentiment: 0.6, type: 'meeting' },
    { id: 'i5', clientId: 'c1', at: '2024-06-20T10:00:00.000Z', direction: 'outbound', sentiment: 0, thread: 'T2', opened: 0 },
    { id: 'i6', clientId: 'c2', at: '2024-06-28T10:00:00.000Z', direction: 'outbound', sentiment: 0.5, thread: 'T3' },
    { id: 'i7', clientId: 'c2', at: '2024-06-29T10:00:00.000Z', direction: 'inbound', sentiment: 0.3, thread: 'T3' },
    { id: 'i8', clientId: 'c2', at: '2024-06-29T12:00:00.000Z', direction: 'outbound', sentiment: 0.1, thread: 'T3', label: 'neutral' },
    // After "now" (12:00): outside time windows, inside today's day bucket.
    { id: 'i9', clientId: 'c2', at: '2024-06-30T13:00:00.000Z', direction: 'inbound', sentiment: 0, type: 'call' },
    { id: 'i10', clientId: 'c3', at: '2024-06-24T10:00:00.000Z', direction: 'inbound', sentiment: -0.8, type: 'support_ticket' },
    { id: 'i11', clientId: 'c5', at: '2024-06-29T10:00:00.000Z', direction: 'inbound', sentiment: -0.9, thread: 'T9' },
    { id: 'i12', clientId: 'c4', at: '2024-05-01T10:00:00.000Z', direction: 'outbound', sentiment: 0, type: 'note' },
  ]);

  const at = '2024-06-01T00:00:00.000Z';
  await db
    .insertInto('contacts')
    .values([
      {
        id: 'ct1',
        workspace_id: ws,
        client_id: 'c1',
        name: 'Alice Smith',
        title: 'CFO',
        last_seen_at: '2024-06-26T10:00:00.000Z',
        created_at: at,
        updated_at: at,
      },
      { id: 'ct2', workspace_id: ws, client_id: 'c1', name: 'Bob', title: '', last_seen_at: '2024-06-25T09:00:00.000Z', created_at: at, updated_at: at },
      { id: 'ct3', workspace_id: ws, client_id: 'c2', name: 'Cy', title: 'CTO', last_seen_at: null, created_at: at, updated_at: at },
      { id: 'ct4', workspace_id: ws, client_id: 'c5', name: 'Ex', title: '', last_seen_at: null, created_at: at, updated_at: at },
      { id: 'ct5', workspace_id: ws, client_id: null, name: 'Loose', title: '', last_seen_at: null, created_at: at, updated_at: at },
    ])
    .execute();
  await db
    .insertInto('contact_emails')
    .values([
      { workspace_id: ws, email: 'alice@acmeco.com', contact_id: 'ct1' },
      { workspace_id: ws, email: 'a.smith@acmeco.com', contact_id: 'ct1' },
      { workspace_id: ws, email: 'bob@acmeco.com', contact_id: 'ct2' },
    ])
    .execute();

  const run = (id: string, startedAt: string, e: { parse: number; charset: number; attachment: number; sentiment: number }) => ({
    id,
    workspace_id: ws,
    job_id: null,
    source: 'mbox',
    status: 'completed',
    started_at: startedAt,
    completed_at: startedAt,
    items_processed: 0,
    items_added: 0,
    items_updated: 0,
    items_skipped: 0,
    items_filtered: 0,
    errors_count: e.parse + e.charset + e.attachment + e.sentiment,
    parse_errors: e.parse,
    charset_errors: e.charset,
    attachment_errors: e.attachment,
    sentiment_errors: e.sentiment,
    filtered_json: '{}',
    skipped_json: '{}',
    clients_created: 0,
    contacts_created: 0,
  });
  await db
    .insertInto('ingestion_runs')
    .values([
      run('r1', '2024-06-20T00:00:00.000Z', { parse: 2, charset: 1, attachment: 3, sentiment: 1 }),
      run('r2', '2024-04-01T00:00:00.000Z', { parse: 5, charset: 0, attachment: 0, sentiment: 0 }),
    ])
    .execute();
}

afterAll(() => dropTestSchemas());
const dialects = await testDialects();
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument --
   response bodies are walked as Json (any) in assertions; contract-check.ts validates every answer against its schema. */
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies in assertions

describe.each(dialects.map((d) => [d.name, d] as const))('clients and metrics on %s', (_name, dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dialect, workspace: 'ourco.com', now: FIXTURE_NOW });
    await loadMetricsFixture(t.engine.store.db, t.workspaceId);
  });
  afterAll(() => t.close());

  const get = async (path: string, status = 200): Promise<Json> => {
    const sep = path.includes('?') ? '&' : '?';
    const res = await t.request(`/api${path}${sep}workspaceId=${t.workspaceId}`);
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(status);
    return body;
  };

  it('GET /clients lists every client, excluded ones too, as a bare array', async () => {
    const list = await get('/clients');
    expect(list.map((c: Json) => c.name)).toEqual(['Acme', 'Beta', 'Delta', 'Epsilon', 'Excluded', 'Gamma']);
    expect(list[0]).toMatchObject({
      id: 'c1',
      name: 'Acme',
      domain: 'acmeco.com',
      sentimentScore: 30,
      lastInteraction: '2024-06-27T10:00:00.000Z',
      mrr: 1000,
      renewalDate: '2024-07-10',
      csmOwner: 'ana@ourco.com',
      isExcluded: false,
    });
    expect(list[0].createdAt).toBe('2024-01-01T00:00:00.000Z');
    expect(list[4]).toMatchObject({ id: 'c5', isExcluded: true });
  });

  it('GET /clients/last-interactions is not taken for a client id', async () => {
    expect(await get('/clients/last-interactions')).toEqual({
      c1: '2024-06-27T10:00:00.000Z',
      c2: '2024-06-29T12:00:00.000Z',
      c3: '2024-06-24T10:00:00.000Z',
      c4: null,
      c5: null,
      c6: null,
    });
  });

  it('GET /clients/{id}: metrics with response time in hours, trend and contacts', async () => {
    const d = await get('/clients/c1');
    expect(d.client).toMatchObject({ id: 'c1', name: 'Acme', sentimentScore: 30, mrr: 1000, isExcluded: false });
    // 6 interactions; 5 since 05-31T12:00; our reply in T1: i1 09:00 → i2 15:00 = 6 h.
    // Their sentiment: last 30 days i1 −.5, i3 −.4, i4 .6 → −0.1; the 30 before: i13 .5 → −0.6 change → declining.
    expect(d.metrics).toEqual({ totalInteractions: 6, avgResponseTime: 6, lastMonthInteractions: 5, sentimentTrend: 'declining' });
    expect(d.contacts).toEqual([
      { email: 'a.smith@acmeco.com', name: 'Alice Smith', title: 'CFO', lastSeen: '2024-06-26T10:00:00.000Z' },
      { email: 'bob@acmeco.com', name: 'Bob', title: '', lastSeen: '2024-06-25T09:00:00.000Z' },
    ]);
    // c2: i7 10:00 → i8 12:00 = 2 h; i9 (after now) is outside the month; only i7 speaks → stable.
    const b = await get('/clients/c2');
    expect(b.metrics).toEqual({ totalInteractions: 4, avgResponseTime: 2, lastMonthInteractions: 3, sentimentTrend: 'stable' });
  });

  it('GET /clients/{id} is a JSON 404 for an unknown client or another workspace’s', async () => {
    const other = await createWorkspace(t.engine.store.db, { domain: 'other.com', name: 'Other', ownerEmail: 'o@other.com', ownerName: 'O' });
    await insertClient(t.engine.store.db, other.workspace.id, { id: 'o1', domain: 'theirs.com' });
    for (const path of ['/clients/nope', '/clients/o1', '/clients/o1/interactions']) {
      const body = await get(path, 404);
      expect(body).toMatchObject({ code: 'CLIENT_NOT_FOUND', status: 404 });
    }
  });

  it('GET /clients/{id}/interactions pages newest first with defaults 50/0', async () => {
    const all = await get('/clients/c1/interactions');
    expect(all.interactions.map((i: Json) => i.id)).toEqual(['i4', 'i3', 'i2', 'i1', 'i5', 'i13']);
    expect(all.pagination).toEqual({ total: 6, limit: 50, offset: 0, hasMore: false });
    expect(all.interactions[2]).toMatchObject({
      id: 'i2',
      type: 'email',
      subject: 'subject i2',
      sentiment: 'positive',
      date: '2024-06-25T15:00:00.000Z',
      from: 'me@us.test',
      to: 'them@c1.test',
      summary: 'summary i2',
    });
    const p1 = await get('/clients/c1/interactions?limit=2');
    expect(p1.interactions.map((i: Json) => i.id)).toEqual(['i4', 'i3']);
    expect(p1.pagination).toEqual({ total: 6, limit: 2, offset: 0, hasMore: true });
    const p3 = await get('/clients/c1/interactions?limit=2&offset=4');
    expect(p3.interactions.map((i: Json) => i.id)).toEqual(['i5', 'i13']);
    expect(p3.pagination).toEqual({ total: 6, limit: 2, offset: 4, hasMore: false });
    expect((await get('/clients/c1/interactions?limit=200')).pagination.limit).toBe(200);
    for (const q of ['limit=201', 'limit=0', 'limit=1.5', 'limit=abc', 'offset=-1', 'offset=x']) {
      expect((await get(`/clients/c1/interactions?${q}`, 400)).status).toBe(400);
    }
  });

  it('GET /metrics/summary: every number by hand (window 7, threshold 40 from settings)', async () => {
    const s = await get('/metrics/summary');
    // Clients c1 c2 c3 c4 c6 (c5 excluded). Contacts ct1 ct2 ct3 (ct4 excluded client, ct5 none).
    // Window 06-23T12:00 → 06-30T12:00: i1 i2 i3 i4 (c1), i6 i7 i8 (c2), i10 (c3) = 8.
    // Renewals 06-30..07-30: c1 (07-10), c4 (07-30) = 2. Open: T1 ends with their i3 = 1 (T3 ends with our i8).
    expect(s.totals).toEqual({ clients: 5, contacts: 3, interactionsWindow: 8, renewals30d: 2, openTasks: 1 });
    // mrr 1000 + 500 + 0 + 2000 + 300 = 3800; at risk (<40): c1 30, c3 35 → 1000 + 0;
    // renewals 1000 + 2000; average over the 4 clients with an mrr: 950.
    expect(s.revenue).toEqual({ mrrTotal: 3800, mrrAtRisk: 1000, renewals30dValue: 3000, avgClientValue: 950 });
    // avg (30+80+35+70+45)/5 = 52; change over 7 days for c1 −20, c2 +20, c3 −6, c6 −16 → −22/4 = −5.5;
    // then (50+60+41+61)/4 = 53 → −5.5/53 = −10.38 %; improving (≥ +5 over the window): c2.
    // No renewal outcome was ever learned from: no churn probability, and it says so.
    expect(s.health).toEqual({
      avgScore: 52,
      change7: -5.5,
      change7Pct: -10.4,
      threshold: 40,
      atRiskCount: 2,
      improvingCount: 1,
      churnCalibration: { available: false, model: null, horizonDays: null, outcomes: null, text: expect.stringMatching(/^No churn calibration yet/) },
    });
    expect(s.lists.topRisks.map((r: Json) => r.churnProbability)).toEqual([null, null]);
    expect(s.lists.topRisks.map((r: Json) => [r.clientId, r.name, r.score, r.mrr, r.reasonCode])).toEqual([
      ['c1', 'Acme', 30, 1000, 'sentiment_declining'],
      ['c3', 'Gamma', 35, 0, 'engagement_dropped'],
    ]);
    expect(s.lists.topRisks[0].reason).toMatch(/^Score fell 20\.0 points \(50\.0 → 30\.0\), mostly because the tone/);
    expect(s.lists.topImproving).toEqual([{ clientId: 'c2', name: 'Beta', score: 80, scoreChange: 20, mrr: 500 }]);
    expect(s.lists.renewals).toEqual([
      { clientId: 'c1', name: 'Acme', renewalDate: '2024-07-10', mrr: 1000, daysUntil: 10 },
      { clientId: 'c4', name: 'Delta', renewalDate: '2024-07-30', mrr: 2000, daysUntil: 30 },
    ]);
    expect(s.asOf).toBe(FIXTURE_NOW);
    expect(s.windowDays).toBe(7);
  });

  it('GET /metrics/summary with riskThreshold and a 90-day window', async () => {
    const s = await get('/metrics/summary?riskThreshold=50');
    // <50: c1 30, c3 35, c6 45 → mrr 1000 + 0 + 300, ranked by mrr: c1, c6, c3.
    expect(s.health.atRiskCount).toBe(3);
    expect(s.health.threshold).toBe(50);
    expect(s.revenue.mrrAtRisk).toBe(1300);
    expect(s.lists.topRisks.map((r: Json) => r.clientId)).toEqual(['c1', 'c6', 'c3']);
    const w = await get('/metrics/summary?windowDays=90');
    // From 04-01T12:00: + i13 (c1), i5 (c1), i12 (c4) = 11; open threads: T0 (only their i13) and T1 = 2.
    expect(w.totals.interactionsWindow).toBe(11);
    expect(w.totals.openTasks).toBe(2);
    // No snapshot 90 days ago: nobody counts as improving.
    expect(w.health.improvingCount).toBe(0);
    expect(w.health.change7).toBe(-5.5);
  });

  it('GET /metrics/summary answers 400 beyond its limits', async () => {
    for (const q of ['windowDays=91', 'windowDays=0', 'windowDays=7.5', 'riskThreshold=101', 'riskThreshold=-1', 'riskThreshold=abc']) {
      expect((await get(`/metrics/summary?${q}`, 400)).status).toBe(400);
    }
    expect((await get('/metrics/summary?windowDays=90&riskThreshold=100')).health.threshold).toBe(100);
  });

  it('GET /metrics/trends/health daily from the snapshots', async () => {
    // 06-23: c1 50, c2 60, c3 41, c6 61 → 53 (4); 06-30: 30, 80, 35, 70, 45 → 52 (5). c5 excluded.
    const expected = [
      { date: '2024-06-23', avgScore: 53, clientCount: 4 },
      { date: '2024-06-30', avgScore: 52, clientCount: 5 },
    ];
    expect(await get('/metrics/trends/health')).toEqual(expected);
    expect(await get('/metrics/trends/health?windowDays=7')).toEqual([expected[1]]);
    for (const q of ['windowDays=366', 'windowDays=0', 'interval=hourly']) expect((await get(`/metrics/trends/health?${q}`, 400)).status).toBe(400);
  });

  it('GET /metrics/trends/sentiment per day in [0, 1]', async () => {
    expect(await get('/metrics/trends/sentiment?windowDays=7')).toEqual([
      { date: '2024-06-24', avgSentiment: 0.1, volume: 1, positive: 0, neutral: 0, negative: 1 }, // i10 −.8
      { date: '2024-06-25', avgSentiment: 0.425, volume: 2, positive: 1, neutral: 0, negative: 1 }, // (−.5 + .2)/2 = −.15
      { date: '2024-06-26', avgSentiment: 0.3, volume: 1, positive: 0, neutral: 0, negative: 1 }, // −.4
      { date: '2024-06-27', avgSentiment: 0.8, volume: 1, positive: 1, neutral: 0, negative: 0 }, // .6
      { date: '2024-06-28', avgSentiment: 0.75, volume: 1, positive: 1, neutral: 0, negative: 0 }, // .5
      { date: '2024-06-29', avgSentiment: 0.6, volume: 2, positive: 1, neutral: 1, negative: 0 }, // (.3 + .1)/2 (c5's i11 excluded)
      { date: '2024-06-30', avgSentiment: 0.5, volume: 1, positive: 0, neutral: 1, negative: 0 }, // i9: today's bucket
    ]);
    // Default 30 days adds 06-20 (i5, 0).
    const d = await get('/metrics/trends/sentiment');
    expect(d.map((x: Json) => x.date)[0]).toBe('2024-06-20');
    expect(d).toHaveLength(8);
    expect((await get('/metrics/trends/sentiment?windowDays=366', 400)).status).toBe(400);
  });

  it('GET /metrics/trends/interactions: percentages sum to exactly 100', async () => {
    // 30 days to now: email 7 (i1 i2 i3 i5 i6 i7 i8), meeting 1 (i4), support_ticket 1 (i10) → 77.8 / 11.1 / 11.1.
    const mix = await get('/metrics/trends/interactions');
    expect(mix).toEqual([
      { source: 'email', count: 7, percentage: 77.8 },
      { source: 'meeting', count: 1, percentage: 11.1 },
      { source: 'support_ticket', count: 1, percentage: 11.1 },
    ]);
    expect(mix.reduce((s: number, m: Json) => s + Math.round(m.percentage * 10), 0)).toBe(1000);
    expect((await get('/metrics/trends/interactions?windowDays=0', 400)).status).toBe(400);
  });

  it('GET /metrics/deltas groups changes by reason, minDelta default 10', async () => {
    expect(await get('/metrics/deltas')).toEqual([
      {
        reason: 'sentiment_declining',
        totalDelta: -36,
        count: 2,
        avgDelta: -18,
        clients: [
          { id: 'c1', name: 'Acme', delta: -20, currentScore: 30, previousScore: 50 },
          { id: 'c6', name: 'Epsilon', delta: -16, currentScore: 45, previousScore: 61 },
        ],
      },
      {
        reason: 'sentiment_improving',
        totalDelta: 20,
        count: 1,
        avgDelta: 20,
        clients: [{ id: 'c2', name: 'Beta', delta: 20, currentScore: 80, previousScore: 60 }],
      },
    ]);
    const five = await get('/metrics/deltas?minDelta=5');
    expect(five.map((g: Json) => [g.reason, g.totalDelta])).toEqual([
      ['sentiment_declining', -36],
      ['sentiment_improving', 20],
      ['engagement_dropped', -6],
    ]);
    expect(await get('/metrics/deltas?windowDays=30')).toEqual([]); // no snapshot on 05-31
    for (const q of ['minDelta=101', 'minDelta=-1', 'windowDays=366']) expect((await get(`/metrics/deltas?${q}`, 400)).status).toBe(400);
  });

  it('GET /metrics/email-stats: open rate where tracked, response rate from threads', async () => {
    // 30 days: sent i2 i5 (c1) i6 i8 (c2) = 4; received i1 i3 i7 = 3. Tracked i2 (opened), i5 (not) → 0.5.
    // Answered (next in thread is theirs): i2 → i3, i6 → i7 → 2/4.
    const e = await get('/metrics/email-stats');
    expect(e).toMatchObject({ avgOpenRate: 0.5, avgResponseRate: 0.5, totalEmailsSent: 4, totalEmailsReceived: 3, totalClients: 2, openTrackingEnabled: true });
    expect(e.topEngaged).toEqual([
      { clientId: 'c1', name: 'Acme', openRate: 0.5, responseRate: 0.5, emailCount: 4 },
      { clientId: 'c2', name: 'Beta', openRate: 0, responseRate: 0.5, emailCount: 3 },
    ]);
    expect(e.leastEngaged.map((x: Json) => x.clientId)).toEqual(['c2', 'c1']);
    // 7 days: sent i2 i6 i8; tracked i2 opened → 1; answered i2, i6 → 2/3.
    const w = await get('/metrics/email-stats?windowDays=7');
    expect(w).toMatchObject({ avgOpenRate: 1, avgResponseRate: 0.6667, totalEmailsSent: 3, totalEmailsReceived: 3 });
    expect((await get('/metrics/email-stats?windowDays=366', 400)).status).toBe(400);
  });

  it('GET /ingest/email-stats with processing errors from the runs in the window', async () => {
    const s = await get('/ingest/email-stats');
    expect(s).toMatchObject({
      windowDays: 30,
      emailsProcessed: 7,
      emailsInbound: 3,
      emailsOutbound: 4,
      openTrackingEnabled: true,
      openRate: 0.5,
      responseRate: 0.5,
      // (−.5 + .2 − .4 + 0 + .5 + .3 + .1)/7 = .028571 → (1.028571)/2
      avgSentimentScore: 0.5143,
      processingErrors: { parseErrors: 2, attachmentErrors: 3, sentimentErrors: 1, charsetErrors: 1 },
    });
    expect(s.topClients).toEqual([
      { clientId: 'c1', clientName: 'Acme', emailCount: 4, avgSentiment: 0.4125, openRate: 0.5 }, // mean −.175
      { clientId: 'c2', clientName: 'Beta', emailCount: 3, avgSentiment: 0.65, openRate: 0 }, // mean .3
    ]);
    // Run r1 (06-20) is before a 7-day window.
    expect((await get('/ingest/email-stats?windowDays=7')).processingErrors).toEqual({
      parseErrors: 0,
      attachmentErrors: 0,
      sentimentErrors: 0,
      charsetErrors: 0,
    });
    for (const q of ['windowDays=91', 'windowDays=0']) expect((await get(`/ingest/email-stats?${q}`, 400)).status).toBe(400);
  });

  it('riskThreshold falls back to the workspace setting', async () => {
    await updateSettings(t.engine.store.db, t.workspaceId, { riskThreshold: 31 });
    const s = await get('/metrics/summary');
    expect(s.health).toMatchObject({ threshold: 31, atRiskCount: 1 });
    await updateSettings(t.engine.store.db, t.workspaceId, { riskThreshold: 40 });
  });
});

describe.each(dialects.map((d) => [d.name, d] as const))('health buckets, past history and PATCH on %s', (_name, dialect) => {
  let t: TestApp;
  let db: Db;
  beforeAll(async () => {
    t = await startTestApp({ dialect, workspace: 'trendco.com', now: FIXTURE_NOW });
    db = t.engine.store.db;
    const ws = t.workspaceId;
    await insertClient(db, ws, { id: 't1', domain: 'one.com', name: 'One' });
    await insertClient(db, ws, { id: 't2', domain: 'two.com', name: 'Two' });
    await insertClient(db, ws, { id: 't3', domain: 'three.com', name: 'Three', is_excluded: 1 });
    // t1: every day 05-27..06-30, 40 in May and 60 in June. t2: 06-10..06-30, 80 until 06-23, then 100.
    // t3 (excluded): 0 every day.
    for (let d = new Date('2024-05-27T00:00:00Z'); d <= new Date('2024-06-30T00:00:00Z'); d = new Date(d.getTime() + DAY_MS)) {
      const day = d.toISOString().slice(0, 10);
      await insertSnapshot(db, ws, 't1', day, [0, 0, 0, 0], day < '2024-06-01' ? 40 : 60);
      if (day >= '2024-06-10') await insertSnapshot(db, ws, 't2', day, [0, 0, 0, 0], day <= '2024-06-23' ? 80 : 100);
      await insertSnapshot(db, ws, 't3', day, [0, 0, 0, 0], 0);
    }
  });
  afterAll(() => t.close());

  const get = async (path: string, status = 200): Promise<Json> => {
    const res = await t.request(`/api${path}${path.includes('?') ? '&' : '?'}workspaceId=${t.workspaceId}`);
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(status);
    return body;
  };

  it('weekly buckets start on Monday and average client-days', async () => {
    // 06-17..06-23: t1 7×60, t2 7×80 → 980/14 = 70; 06-24..06-30: 7×60 + 7×100 → 1120/14 = 80.
    expect(await get('/metrics/trends/health?windowDays=14&interval=weekly')).toEqual([
      { date: '2024-06-17', avgScore: 70, clientCount: 2 },
      { date: '2024-06-24', avgScore: 80, clientCount: 2 },
    ]);
    // A window from 06-21 still labels its first (partial) week by its Monday: 3×60 + 3×80 → 70.
    expect((await get('/metrics/trends/health?windowDays=10&interval=weekly'))[0]).toEqual({ date: '2024-06-17', avgScore: 70, clientCount: 2 });
  });

  it('monthly buckets', async () => {
    // From 05-17: May: t1 5×40 → 40 (1 client). June: t1 30×60 = 1800, t2 14×80 + 7×100 = 1820 → 3620/51 = 70.98.
    expect(await get('/metrics/trends/health?windowDays=45&interval=monthly')).toEqual([
      { date: '2024-05-01', avgScore: 40, clientCount: 1 },
      { date: '2024-06-01', avgScore: 71, clientCount: 2 },
    ]);
    // Default interval is daily: the last 3 days are (60 + 100)/2.
    expect(await get('/metrics/trends/health?windowDays=3')).toEqual(
      ['2024-06-28', '2024-06-29', '2024-06-30'].map((date) => ({ date, avgScore: 80, clientCount: 2 })),
    );
  });

  it('a past-dated ingest gives a real 365-day history', async () => {
    await insertClient(db, t.workspaceId, { id: 'p1', domain: 'past.com', name: 'Past' });
    await insertInteractions(db, t.workspaceId, [
      { id: 'p-a', clientId: 'p1', at: '2023-08-01T10:00:00.000Z', direction: 'inbound', sentiment: 0.9 },
      // Three more warm messages that day: the same day's score, and a client we know by December.
      { id: 'p-a2', clientId: 'p1', at: '2023-08-01T11:00:00.000Z', direction: 'inbound', sentiment: 0.9 },
      { id: 'p-a3', clientId: 'p1', at: '2023-08-01T12:00:00.000Z', direction: 'inbound', sentiment: 0.9 },
      { id: 'p-a4', clientId: 'p1', at: '2023-08-01T13:00:00.000Z', direction: 'inbound', sentiment: 0.9 },
      { id: 'p-b', clientId: 'p1', at: '2023-12-01T10:00:00.000Z', direction: 'inbound', sentiment: -0.9 },
      { id: 'p-c', clientId: 'p1', at: '2024-04-01T10:00:00.000Z', direction: 'inbound', sentiment: 0.4 },
    ]);
    await recomputeHealth(db, { workspaceId: t.workspaceId, clientIds: ['p1'], fromDay: '2023-08-01', now: new Date(FIXTURE_NOW) });
    const daily = await get('/metrics/trends/health?windowDays=365');
    // 2023-08-01: sentiment .9 → 95·.4 = 38; engagement 100·.2; responsiveness 50·.2; recency 100·.2 → 88.
    expect(daily[0]).toEqual({ date: '2023-08-01', avgScore: 88, clientCount: 1 });
    // 2023-12-01: −.9 → 5·.4 = 2; a complaint is no healthy exchange: engagement 0; 10; 20 → 32
    // (five messages in all by then: a client we know, not one lifted to neutral for lack of data).
    expect(daily.find((x: Json) => x.date === '2023-12-01')).toEqual({ date: '2023-12-01', avgScore: 32, clientCount: 1 });
    const monthly = await get('/metrics/trends/health?windowDays=365&interval=monthly');
    expect(monthly.map((m: Json) => m.date)).toEqual([
      '2023-08-01',
      '2023-09-01',
      '2023-10-01',
      '2023-11-01',
      '2023-12-01',
      '2024-01-01',
      '2024-02-01',
      '2024-03-01',
      '2024-04-01',
      '2024-05-01',
      '2024-06-01',
    ]);
    expect(new Set(monthly.slice(0, 9).map((m: Json) => m.avgScore)).size).toBeGreaterThan(5);
  });

  it('PATCH /clients/{id} (extension) sets attributes; bad values are 400, taken domains 409', async () => {
    const patch = (id: string, json: unknown) => t.request(`/api/clients/${id}?workspaceId=${t.workspaceId}`, { method: 'PATCH', json });
    const res = await patch('t1', { mrr: 2500, renewalDate: '2024-07-05', csmOwner: 'Bo@trendco.com', name: 'One Inc', domains: ['mail.one-group.co.uk'] });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 't1', name: 'One Inc', mrr: 2500, renewalDate: '2024-07-05', csmOwner: 'bo@trendco.com', isExcluded: false });
    const dom = await db.selectFrom('client_domains').select('domain').where('client_id', '=', 't1').orderBy('domain').execute();
    expect(dom.map((d) => d.domain)).toEqual(['one-group.co.uk', 'one.com']);
    expect(await (await patch('t1', { mrr: null, isExcluded: true })).json()).toMatchObject({ mrr: null, isExcluded: true });
    for (const bad of [{ renewalDate: '2024-02-30' }, { mrr: -1 }, { mrr: '5' }, { color: 'red' }, {}, { csmOwner: 'nobody' }]) {
      expect((await patch('t1', bad)).status, JSON.stringify(bad)).toBe(400);
    }
    expect((await patch('t1', { domains: ['two.com'] })).status).toBe(409);
    expect((await patch('zz', { mrr: 1 })).status).toBe(404);
    const doc = (await (await t.request('/api/openapi.json')).json()) as Json;
    expect(doc.paths['/api/clients/{clientId}'].patch.tags).toContain('extension');
  });
});
