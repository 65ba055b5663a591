/**
 * Risk signals judged as a CS lead would: each test tells a client's story as interactions and
 * asks whether the account lands where a lead would put it — at risk (below the default threshold
 * 40) with the right reason, or safe. Both dialects.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { updateSettings } from '../settings/settings.js';
import { getSummary } from '../metrics/summary.js';
import { getClientDetails } from '../metrics/clients.js';
import { scoreDeltas } from '../metrics/deltas.js';
import { recomputeHealth } from './recompute.js';
import { storedSignals } from './model.js';
import { insertClient, insertInteractions, insertWorkspace, readSnapshots, type InteractionSpec } from './test-fixtures.js';
import { businessDueAt, DAY_MS } from '../util/time.js';

const WS = 'us.test';
/** A Tuesday noon. */
const NOW = new Date('2024-06-25T12:00:00.000Z');
const CHURN = 1;
const FOLLOW_UP = 2;
const ASKS = 4;

const at = (daysAgo: number, hour = 10): string => new Date(Date.UTC(2024, 5, 25, hour) - daysAgo * DAY_MS).toISOString();

let seq = 0;
/**
 * A friendly exchange every `every` days from `fromDaysAgo` to `toDaysAgo`: they write (a question,
 * positive), we answer `replyHours` later in the same thread.
 */
function routine(
  client: string,
  fromDaysAgo: number,
  toDaysAgo: number,
  every: number,
  opts: { sentiment?: number; replyHours?: number; from?: string } = {},
): InteractionSpec[] {
  const out: InteractionSpec[] = [];
  for (let d = fromDaysAgo; d >= toDaysAgo; d -= every) {
    const thread = `${client}-t${++seq}`;
    const sent = at(d, 9);
    out.push({
      id: `${thread}-in`,
      clientId: client,
      at: sent,
      direction: 'inbound',
      sentiment: opts.sentiment ?? 0.4,
      thread,
      signals: ASKS,
      ...(opts.from ? { from: opts.from } : {}),
    });
    const replyAt = new Date(Date.parse(sent) + (opts.replyHours ?? 3) * 3_600_000).toISOString();
    if (Date.parse(replyAt) <= NOW.getTime()) out.push({ id: `${thread}-out`, clientId: client, at: replyAt, direction: 'outbound', sentiment: 0.3, thread });
  }
  return out;
}

function message(client: string, daysAgo: number, sentiment: number, signals: number, thread: string, from?: string): InteractionSpec {
  return { id: `${client}-m${++seq}`, clientId: client, at: at(daysAgo, 11), direction: 'inbound', sentiment, thread, signals, ...(from ? { from } : {}) };
}

afterAll(() => dropTestSchemas());

for (const dialect of await testDialects()) {
  describe(`risk signals on ${dialect.name}`, () => {
    async function scoreOf(stories: Record<string, InteractionSpec[]>, setup?: (db: Awaited<ReturnType<typeof dialect.open>>['db']) => Promise<void>) {
      const store = await dialect.open();
      const db = store.db;
      await insertWorkspace(db, WS);
      if (setup) await setup(db);
      for (const [id, items] of Object.entries(stories)) {
        await insertClient(db, WS, { id, domain: `${id}.test`, name: id, mrr: 1000 });
        await insertInteractions(db, WS, items);
      }
      await recomputeHealth(db, { workspaceId: WS, now: NOW });
      const snaps = await readSnapshots(db, { date: '2024-06-25' });
      const byClient = new Map(snaps.map((s) => [s.client_id, s]));
      return { store, db, snap: (id: string) => byClient.get(id)! };
    }

    it('an angry, unanswered client who says they will not renew is at risk, first, with the reason in plain words', async () => {
      const angry = [
        ...routine('hooli', 120, 20, 7),
        // Six increasingly angry messages in 18 days, two saying they will not renew; none answered.
        message('hooli', 18, -0.4, ASKS, 'h-esc'),
        message('hooli', 15, -0.5, ASKS | FOLLOW_UP, 'h-esc'),
        message('hooli', 11, -0.6, ASKS, 'h-esc', 'cto@hooli.test'),
        message('hooli', 8, -0.7, ASKS | CHURN, 'h-esc'),
        message('hooli', 5, -0.8, ASKS | FOLLOW_UP, 'h-esc', 'cto@hooli.test'),
        message('hooli', 2, -0.8, ASKS | CHURN, 'h-esc'),
      ];
      const { store, db, snap } = await scoreOf({
        hooli: angry,
        happy: routine('happy', 120, 1, 5, { sentiment: 0.6 }),
        // One neutral e-mail 200 days ago: little is known, but it is not the fire to put out first.
        dormant: [{ id: 'dormant-1', clientId: 'dormant', at: at(200), direction: 'inbound', sentiment: 0, thread: 'd1' }],
      });
      const h = snap('hooli');
      expect(h.score).toBeLessThan(40);
      expect(h.reason).toBe('churn_intent');
      expect(h.reason_text).toMatch(/2 messages in the last 90 days say they will leave or not renew/);
      const comps = h.components;
      // Six escalating messages are no healthy engagement; six waiting make us unresponsive.
      expect(comps.engagement?.value).toBeLessThan(60);
      expect(comps.responsiveness?.value).toBeLessThan(30);
      expect(comps.risk?.code).toBe('churn_intent');
      expect(storedSignals(comps).map((s) => s.code)).toEqual(expect.arrayContaining(['churn_intent', 'escalation', 'unanswered', 'slow_replies']));
      expect(h.evidence.interactionIds).toHaveLength(2);
      expect(snap('happy').score).toBeGreaterThanOrEqual(60);
      expect(h.score).toBeLessThan(snap('dormant').score);

      const summary = await getSummary(db, WS, { now: NOW });
      expect(summary.lists.topRisks[0]).toMatchObject({ clientId: 'hooli', reasonCode: 'churn_intent' });
      expect(summary.lists.topRisks[0]!.reason).toMatch(/say they will leave or not renew/);
      expect(summary.lists.topRisks.map((r) => r.clientId)).not.toContain('happy');

      // The client page says the same, with every signal and the messages behind each.
      const details = await getClientDetails(db, WS, 'hooli', NOW);
      expect(details.health).toMatchObject({ score: h.score, date: '2024-06-25', reasonCode: 'churn_intent' });
      expect(details.health.risks[0]).toMatchObject({ code: 'churn_intent', interactionIds: h.evidence.interactionIds });
      expect(details.health.risks.map((r) => r.code)).toContain('escalation');
      // Over 30 days the fall is grouped under the signal that caused it.
      const deltas = await scoreDeltas(db, WS, { now: NOW, windowDays: 30, minDelta: 10 });
      expect(deltas.find((g) => g.clients.some((c) => c.id === 'hooli'))?.reason).toBe('churn_intent');
      await store.close();
    });

    it('requests left waiting past two business days put a client at risk; the same requests answered do not', async () => {
      const questions = (client: string, answered: boolean): InteractionSpec[] => {
        const out = [...routine(client, 100, 22, 7)];
        for (const d of [14, 10, 7]) {
          const m = message(client, d, 0, ASKS, `${client}-q${d}`);
          out.push(m);
          if (answered) out.push({ id: `${m.id}-r`, clientId: client, at: at(d, 15), direction: 'outbound', sentiment: 0.2, thread: `${client}-q${d}` });
        }
        return out;
      };
      const { store, snap } = await scoreOf({ waiting: questions('waiting', false), served: questions('served', true) });
      expect(snap('waiting').score).toBeLessThan(40);
      expect(snap('waiting').reason).toBe('unanswered');
      expect(snap('waiting').reason_text).toMatch(/3 messages from them have waited more than 2 business days for our reply \(the oldest 14 days\)/);
      expect(snap('served').score).toBeGreaterThanOrEqual(60);
      await store.close();
    });

    it('counts the service level in business days of the workspace zone', async () => {
      // A question on Friday evening in Tokyo (Friday 10:00 UTC) is due at the end of Tuesday, Tokyo time.
      const friday = Date.parse('2024-06-21T10:00:00.000Z');
      expect(new Date(businessDueAt(friday, 2, 'Asia/Tokyo')).toISOString()).toBe('2024-06-25T15:00:00.000Z');
      expect(new Date(businessDueAt(friday, 2, 'UTC')).toISOString()).toBe('2024-06-26T00:00:00.000Z');
      // Across a DST change: due at local midnight, whatever the offset then.
      expect(new Date(businessDueAt(Date.parse('2024-03-08T15:00:00.000Z'), 2, 'America/New_York')).toISOString()).toBe('2024-03-13T04:00:00.000Z');

      // On Tuesday noon UTC, with the workspace in Tokyo: the Friday question is due at 15:00 UTC,
      // so not yet late; the question of the Wednesday before was due on Friday and is.
      const late = [...routine('late', 90, 9, 7), message('late', 6, 0, ASKS, 'late-q')];
      const fresh = [
        ...routine('fresh', 90, 9, 7),
        { id: 'fresh-q', clientId: 'fresh', at: '2024-06-21T10:00:00.000Z', direction: 'inbound' as const, sentiment: 0, thread: 'fresh-q', signals: ASKS },
      ];
      const { store, snap } = await scoreOf({ late, fresh }, async (db) => {
        await updateSettings(db, WS, { timezone: 'Asia/Tokyo' });
      });
      expect(snap('late').components.inputs.unanswered).toBe(1);
      // A figure of 0 is not stored (docs/health-model.md): nothing waits on the fresh client.
      expect(snap('fresh').components.inputs).not.toHaveProperty('unanswered');
      await store.close();
    });

    it('silence is judged against the client’s own cadence', async () => {
      const { store, snap } = await scoreOf({
        // Wrote every week for months, nothing for the last six weeks.
        weekly: routine('weekly', 119, 42, 7),
        // Checks in once a month, answered within hours; last check-in three weeks ago.
        monthly: routine('monthly', 111, 21, 30, { sentiment: 0.1 }),
      });
      expect(snap('weekly').score).toBeLessThan(40);
      expect(snap('weekly').reason).toBe('gone_quiet');
      expect(snap('weekly').reason_text).toMatch(/no two-way contact for 42 days, where they usually write every 7 days/);
      expect(snap('monthly').score).toBeGreaterThanOrEqual(40);
      expect(storedSignals(snap('monthly').components)).toEqual([]);
      await store.close();
    });

    it('weeks of slow replies from us, or their chasers, put a client at risk', async () => {
      const { store, snap } = await scoreOf({
        // Answered within hours for months, then in about five days for the last four weeks.
        slow: [...routine('slow', 110, 35, 7), ...routine('slow', 30, 6, 6, { replyHours: 120 })],
        // Answered, but they had to chase twice in three weeks.
        chased: [
          ...routine('chased', 110, 3, 7),
          message('chased', 12, 0, ASKS | FOLLOW_UP, 'c1'),
          { id: 'c1-r', clientId: 'chased', at: at(12, 16), direction: 'outbound', sentiment: 0.1, thread: 'c1' },
          message('chased', 5, -0.1, ASKS | FOLLOW_UP, 'c2'),
          { id: 'c2-r', clientId: 'chased', at: at(5, 16), direction: 'outbound', sentiment: 0.1, thread: 'c2' },
        ],
      });
      expect(snap('slow').score).toBeLessThan(40);
      expect(snap('slow').reason).toBe('slow_replies');
      expect(snap('slow').reason_text).toMatch(/our replies took 5\.0 days on average over the last 4 weeks \(0\.1 days before\)/);
      expect(snap('chased').score).toBeLessThan(40);
      expect(snap('chased').reason_text).toMatch(/2 messages in the last 3 weeks chase us for an answer/);
      await store.close();
    });

    it('a tone that turns negative, or anger from several people at once, is a risk even when we answer', async () => {
      const { store, snap } = await scoreOf({
        souring: [...routine('souring', 110, 25, 7, { sentiment: 0.5 }), ...routine('souring', 20, 2, 6, { sentiment: -0.45 })],
        escalated: [
          ...routine('escalated', 110, 10, 7, { sentiment: 0.3 }),
          message('escalated', 6, -0.6, ASKS, 'e1', 'ops@escalated.test'),
          message('escalated', 4, -0.5, ASKS, 'e2', 'vp@escalated.test'),
          { id: 'e1-r', clientId: 'escalated', at: at(6, 13), direction: 'outbound', sentiment: 0.1, thread: 'e1' },
          { id: 'e2-r', clientId: 'escalated', at: at(4, 13), direction: 'outbound', sentiment: 0.1, thread: 'e2' },
        ],
      });
      expect(snap('souring').score).toBeLessThan(40);
      expect(['negative_tone', 'escalation']).toContain(snap('souring').reason);
      expect(snap('escalated').score).toBeLessThan(40);
      expect(snap('escalated').reason).toBe('escalation');
      expect(snap('escalated').reason_text).toMatch(/2 negative messages from 2 people at the client in the last 14 days/);
      await store.close();
    });

    it('a threat that was withdrawn, an incident long resolved and an old threat no longer hold', async () => {
      const { store, snap } = await scoreOf({
        // "We will cancel" ten days ago, then two warm messages once we fixed it.
        withdrawn: [
          ...routine('withdrawn', 110, 12, 7),
          message('withdrawn', 10, -0.5, ASKS | CHURN, 'w1'),
          { id: 'w1-r', clientId: 'withdrawn', at: at(10, 15), direction: 'outbound', sentiment: 0.2, thread: 'w1' },
          ...routine('withdrawn', 8, 1, 4, { sentiment: 0.6 }),
        ],
        // Angry two months ago (a threat among it), happy since.
        recovered: [
          ...routine('recovered', 115, 70, 7),
          message('recovered', 65, -0.7, ASKS | CHURN, 'r1'),
          message('recovered', 63, -0.8, ASKS, 'r1'),
          message('recovered', 61, -0.6, ASKS, 'r1', 'cfo@recovered.test'),
          { id: 'r1-r', clientId: 'recovered', at: at(61, 14), direction: 'outbound', sentiment: 0.2, thread: 'r1' },
          ...routine('recovered', 58, 1, 6, { sentiment: 0.5 }),
        ],
      });
      expect(snap('withdrawn').score).toBeGreaterThanOrEqual(60);
      expect(snap('recovered').score).toBeGreaterThanOrEqual(60);
      expect(storedSignals(snap('recovered').components)).toEqual([]);
      await store.close();
    });

    it('a client that said two months ago it will not renew, and has taken nothing back since, is still at risk', async () => {
      // A non-renewal notice comes 30-90 days before the renewal; business as usual after it is
      // not a change of mind. Only a threat older than a quarter, or one withdrawn, stops counting.
      const notice = (client: string, daysAgo: number): InteractionSpec[] => [
        ...routine(client, 119, daysAgo + 3, 7),
        message(client, daysAgo, -0.3, ASKS | CHURN, `${client}-n`),
        { id: `${client}-n-r`, clientId: client, at: at(daysAgo, 15), direction: 'outbound', sentiment: 0.2, thread: `${client}-n` },
        // Polite, neutral mail since, answered within hours: nothing says they changed their mind.
        ...routine(client, daysAgo - 4, 1, 7, { sentiment: 0 }),
      ];
      const { store, snap } = await scoreOf({ standing: notice('standing', 60), lapsed: notice('lapsed', 100) });
      const standing = snap('standing');
      expect(standing.score).toBeLessThan(40);
      expect(standing.reason).toBe('churn_intent');
      expect(standing.reason_text).toMatch(/1 message in the last 90 days says they will leave or not renew/);
      expect(snap('lapsed').score).toBeGreaterThanOrEqual(40);
      expect(storedSignals(snap('lapsed').components).map((s) => s.code)).not.toContain('churn_intent');
      await store.close();
    });

    it('a day scores the same in a full rebuild and in an incremental run', async () => {
      const story = [...routine('inc', 110, 20, 7), message('inc', 9, -0.6, ASKS | CHURN, 'i1'), message('inc', 3, -0.6, ASKS, 'i1')];
      const { store, db, snap } = await scoreOf({ inc: story });
      const full = snap('inc');
      await recomputeHealth(db, { workspaceId: WS, clientIds: ['inc'], fromDay: '2024-06-20', now: NOW });
      const [again] = await readSnapshots(db, { clientId: 'inc', date: '2024-06-25' });
      expect(again!.score).toBe(full.score);
      expect(again!.components).toEqual(full.components);
      expect(again!.reason_text).toBe(full.reason_text);
      await store.close();
    });

    it('the daily run scores today exactly as the full rebuild, even when a reply answers a question from before its window', async () => {
      // Every 3 days a question answered 50 hours later: for every start of a daily run, some
      // reply near the start of its 120-day window answers a question from before it.
      const story = routine('edge', 200, 1, 3, { replyHours: 50 });
      const { store, db, snap } = await scoreOf({ edge: story });
      const full = snap('edge');
      for (const daysAgo of [0, 1, 2]) {
        const day = new Date(NOW.getTime() - daysAgo * DAY_MS).toISOString().slice(0, 10);
        const [before] = await readSnapshots(db, { clientId: 'edge', date: day });
        await recomputeHealth(db, { workspaceId: WS, clientIds: ['edge'], fromDay: day, now: NOW });
        const [daily] = await readSnapshots(db, { clientId: 'edge', date: day });
        expect(daily!.components, day).toEqual(before!.components);
        expect(daily!.score, day).toBe(before!.score);
      }
      expect((await readSnapshots(db, { clientId: 'edge', date: '2024-06-25' }))[0]!.components).toEqual(full.components);
      await store.close();
    });
  });
}
