/**
 * Reads the history the model needs for a batch of clients, in two queries: one grouped pass
 * over the batch's rows gives, per client and UTC day, the day's aggregates (volume, contacts,
 * tone, replies each way, the three most telling interactions); a second reads, one row each,
 * the client messages that may carry a risk signal (churn intent, a chaser, a negative tone, or a
 * request not answered within a day). The database returns one row per client-day plus those,
 * never every interaction.
 */
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { addDays, businessDueAt, daysBetween, utcDay } from '../util/time.js';
import { NO_DATA_BUCKET, emptyBucket, noDataBuckets, type DayBucket, type SignalEvent } from './model.js';
import { hoursBetween } from '../store/sql.js';
import { chunks } from '../util/lists.js';

/** Bits of score/signals.ts SIGNAL_BITS that make a message an event on their own. */
const CHURN_OR_FOLLOW_UP = 1 | 2;
const NEEDS_REPLY = 4;
/**
 * A request answered within this many hours can never be past a service level of at least one
 * business day, so it is left in the day aggregates (most are).
 */
const ANSWERED_IN_TIME_HOURS = 24;
/**
 * A message answers the previous one in its thread only when that one is at most this many days
 * older (an e-mail after a month of silence in a thread starts a new exchange). The rows read for
 * the windows start this much before the first fetched day, so every answer finds what it
 * answers whichever day a rebuild starts from: a day scores the same in a full and an
 * incremental run.
 */
const REPLY_WINDOW_DAYS = 30;
const REPLY_WINDOW_HOURS = REPLY_WINDOW_DAYS * 24;
/** Top interactions per client-day kept as evidence. */
const EVIDENCE_PER_DAY = 3;
/** (client, day) pairs per evidence query: three parameters each. */
const EVIDENCE_PAIR_CHUNK = 500;

const evidenceRank = sql<number>`row_number() over (partition by client_id, substr(occurred_at, 1, 10) order by abs(sentiment_score) desc, occurred_at desc, id)`;

export interface HistoryRequest {
  clientIds: string[];
  /** First fetched day (buckets[0]). */
  fetchStart: string;
  /** Last fetched day. */
  today: string;
  /** Rank evidence in the main query (long rebuilds) or only for the days named afterwards. */
  evidenceInQuery: boolean;
  /** The workspace's reply service level and zone, to date each request's due time. */
  replySlaBusinessDays: number;
  timeZone: string;
}

export interface BatchHistory {
  /** Day labels from fetchStart to today. */
  days: string[];
  /** Per client with data: one bucket per day. */
  buckets: Map<string, DayBucket[]>;
  /** Per client: its events by time. */
  events: Map<string, SignalEvent[]>;
}

export async function fetchHistory(db: Db, req: HistoryRequest): Promise<BatchHistory> {
  const { fetchStart, today } = req;
  const endExclusive = utcDay(addDays(new Date(`${today}T00:00:00Z`), 1));
  const days = Array.from({ length: daysBetween(fetchStart, today) + 1 }, (_, i) => utcDay(addDays(new Date(`${fetchStart}T00:00:00Z`), i)));
  const dayIndex = new Map(days.map((d, i) => [d, i]));
  const buckets = new Map<string, DayBucket[]>();
  const events = new Map<string, SignalEvent[]>();
  const bucket = (clientId: string, day: string): { b: DayBucket; i: number } | undefined => {
    const i = dayIndex.get(day);
    if (i === undefined) return undefined;
    let arr = buckets.get(clientId);
    if (!arr) {
      arr = noDataBuckets(days.length);
      buckets.set(clientId, arr);
    }
    let b = arr[i]!;
    if (b === NO_DATA_BUCKET) arr[i] = b = emptyBucket();
    return { b, i };
  };

  // The day aggregates, from one pass over the batch's rows. Window functions over each e-mail
  // thread tell our replies (an outbound e-mail whose predecessor is inbound, with its delay) and
  // theirs; rows that are not threaded e-mails share one null partition key and are no reply.
  // The inner query reduces each row to small numbers, so the grouping sorts narrow rows.
  const readFrom = utcDay(addDays(new Date(`${fetchStart}T00:00:00Z`), -REPLY_WINDOW_DAYS));
  const threadKey = sql`case when type = 'email' then thread_id end`;
  const threaded = sql`type = 'email' and thread_id is not null`;
  const thread = sql`partition by client_id, ${threadKey} order by occurred_at, id`;
  const meeting = sql`type in ('meeting', 'call')`;
  const sinceLag = hoursBetween(db, sql`lag(occurred_at) over (${thread})`, sql.ref('occurred_at'));
  const rowsInWindow = db
    .selectFrom('interactions')
    .select([
      'client_id',
      'id',
      'sentiment_score',
      sql<string>`substr(occurred_at, 1, 10)`.as('day'),
      sql<number>`case when direction = 'inbound' or ${meeting} then 1 else 0 end`.as('contact'),
      sql<number>`case when ${meeting} then 1 else 0 end`.as('meeting'),
      sql<number>`case when direction <> 'outbound' then 1 else 0 end`.as('said'),
      sql<number>`case when direction = 'inbound' then 1 else 0 end`.as('inbound'),
      sql<number>`case when direction = 'outbound' and type = 'email' then 1 else 0 end`.as('out_email'),
      sql<number>`case sentiment_label when 'negative' then -1 when 'positive' then 1 else 0 end`.as('pol'),
      sql<
        number | null
      >`case when ${threaded} and direction = 'outbound' and lag(direction) over (${thread}) = 'inbound' and ${sinceLag} <= ${REPLY_WINDOW_HOURS} then ${sinceLag} end`.as(
        'reply_h',
      ),
      sql<number>`case when ${threaded} and direction = 'inbound' and lag(direction) over (${thread}) = 'outbound' and ${sinceLag} <= ${REPLY_WINDOW_HOURS} then 1 else 0 end`.as(
        'theirs',
      ),
    ])
    .$if(req.evidenceInQuery, (qb) => qb.select(evidenceRank.as('rn')))
    // Client ids are unique across workspaces: filtering on them alone keeps the planner on
    // interactions_client_time instead of scanning the workspace's time range.
    .where('client_id', 'in', req.clientIds)
    .where('occurred_at', '>=', readFrom)
    .where('occurred_at', '<', endExclusive);

  const said = sql`t.said = 1`;
  const top = (k: number) => sql<string | null>`max(case when t.rn = ${sql.lit(k)} then t.id end)`;
  const rows = await db
    .selectFrom(rowsInWindow.as('t'))
    .select([
      't.client_id',
      't.day',
      sql<number>`count(*)`.as('n'),
      sql<number>`sum(t.contact)`.as('contacts'),
      sql<number>`sum(t.meeting)`.as('meetings'),
      sql<number>`sum(case when ${said} then t.sentiment_score else 0 end)`.as('s_sum'),
      sql<number>`sum(t.said)`.as('s_n'),
      sql<number>`sum(case when ${said} and t.pol = 1 then 1 else 0 end)`.as('pos'),
      sql<number>`sum(case when ${said} and t.pol = -1 then 1 else 0 end)`.as('neg'),
      sql<number>`sum(case when t.meeting = 1 or (t.inbound = 1 and t.pol <> -1) or t.reply_h is not null then 1 else 0 end)`.as('engaged'),
      sql<number>`sum(t.out_email)`.as('out_emails'),
      sql<number>`sum(case when t.reply_h is not null then 1 else 0 end)`.as('ours'),
      sql<number>`sum(coalesce(t.reply_h, 0))`.as('our_hours'),
      sql<number>`sum(case when t.reply_h > 0 then 24.0 / (24.0 + t.reply_h) when t.reply_h is not null then 1 else 0 end)`.as('our_prompt'),
      sql<number>`sum(t.theirs)`.as('theirs'),
    ])
    .$if(req.evidenceInQuery, (qb) => qb.select([top(1).as('top1'), top(2).as('top2'), top(3).as('top3')]))
    // The rows before fetchStart were read only for what they answer.
    .where('t.day', '>=', fetchStart)
    .groupBy(['t.client_id', 't.day'])
    .execute();
  for (const a of rows) {
    const at = bucket(a.client_id, a.day);
    if (!at) continue;
    const b = at.b;
    b.n = Number(a.n);
    b.contacts = Number(a.contacts);
    b.meetings = Number(a.meetings);
    b.sentimentSum = Number(a.s_sum);
    b.sentimentCount = Number(a.s_n);
    b.positive = Number(a.pos);
    b.negative = Number(a.neg);
    b.engaged = Number(a.engaged);
    b.outboundEmails = Number(a.out_emails);
    b.ourReplies = Number(a.ours);
    b.ourReplyHours = Number(a.our_hours);
    b.ourReplyPromptness = Number(a.our_prompt);
    b.theirReplies = Number(a.theirs);
    for (const id of [a.top1, a.top2, a.top3]) if (id !== null && id !== undefined) b.topIds.push(id);
  }

  // The client messages that may carry a signal, one row each, with when our next e-mail in
  // their thread went out (a window over each thread; only the candidates come back).
  const withAnswers = db
    .selectFrom('interactions')
    .select([
      'client_id',
      'id',
      'occurred_at',
      'direction',
      'from_email',
      'signals',
      'sentiment_label',
      'addressed',
      sql<number>`case when ${threaded} then 1 else 0 end`.as('threaded'),
      sql<
        string | null
      >`case when ${threaded} then min(case when direction = 'outbound' then occurred_at end) over (${thread} rows between 1 following and unbounded following) end`.as(
        'answered_at',
      ),
    ])
    .where('client_id', 'in', req.clientIds)
    .where('occurred_at', '>=', fetchStart)
    .where('occurred_at', '<', endExclusive);
  const candidates = await db
    .selectFrom(withAnswers.as('c'))
    .select(['c.client_id', 'c.id', 'c.occurred_at', 'c.from_email', 'c.signals', 'c.sentiment_label', 'c.addressed', 'c.threaded', 'c.answered_at'])
    .where('c.direction', '=', 'inbound')
    .where((eb) => eb.or([eb('c.signals', '<>', 0), eb('c.sentiment_label', '=', 'negative')]))
    .execute();
  for (const c of candidates) {
    const atMs = Date.parse(c.occurred_at);
    const bits = Number(c.signals);
    const negative = c.sentiment_label === 'negative';
    const answeredAt = c.answered_at ? Date.parse(c.answered_at) : null;
    const threadedMail = Number(c.threaded) === 1;
    // What waits for our reply: a question or a request (a complaint or a problem report reads as
    // one, score/signals.ts), a threat or a chaser, written to us directly: a circular we were
    // copied on, or one of a long list of recipients, waits for nobody's reply; a gloomy FYI
    // ("see below, this is a mess") asks nothing. Only a threaded e-mail can get an answer.
    const asks = threadedMail && Number(c.addressed) === 1 && ((bits & NEEDS_REPLY) !== 0 || (bits & CHURN_OR_FOLLOW_UP) !== 0);
    const late = answeredAt === null || answeredAt - atMs > ANSWERED_IN_TIME_HOURS * 3_600_000;
    // A request answered within a day is settled: it stays in the day aggregates only.
    if ((bits & CHURN_OR_FOLLOW_UP) === 0 && !negative && !(asks && late)) continue;
    const day = dayIndex.get(c.occurred_at.slice(0, 10));
    if (day === undefined) continue;
    const list = events.get(c.client_id) ?? [];
    list.push({
      id: c.id,
      at: atMs,
      day,
      from: c.from_email.toLowerCase(),
      bits,
      negative,
      answeredAt,
      dueAt: asks ? businessDueAt(atMs, req.replySlaBusinessDays, req.timeZone) : null,
    });
    events.set(c.client_id, list);
  }
  for (const list of events.values()) list.sort((x, y) => x.at - y.at || (x.id < y.id ? -1 : 1));
  return { days, buckets, events };
}

/**
 * The day's top interactions (largest |sentiment| first) for the given client-days, when the
 * main query did not rank them (short runs need a day or two per client). Each day is read
 * whole, so the ranking is the main query's.
 */
export async function fetchEvidence(db: Db, history: BatchHistory, fetchStart: string, pairs: { clientId: string; day: string }[]): Promise<void> {
  for (const part of chunks(pairs, EVIDENCE_PAIR_CHUNK)) {
    const ranked = db
      .selectFrom('interactions')
      .select(['client_id', 'id', sql<string>`substr(occurred_at, 1, 10)`.as('day'), evidenceRank.as('rn')])
      .where((eb) =>
        eb.or(
          part.map((p) =>
            eb.and([
              eb('client_id', '=', p.clientId),
              eb('occurred_at', '>=', p.day),
              eb('occurred_at', '<', utcDay(addDays(new Date(`${p.day}T00:00:00Z`), 1))),
            ]),
          ),
        ),
      );
    const top = await db
      .selectFrom(ranked.as('r'))
      .select(['r.client_id', 'r.id', 'r.day'])
      .where('r.rn', '<=', EVIDENCE_PER_DAY)
      .orderBy('r.client_id')
      .orderBy('r.day')
      .orderBy('r.rn')
      .execute();
    for (const t of top) {
      const i = daysBetween(fetchStart, t.day);
      history.buckets.get(t.client_id)?.[i]?.topIds.push(t.id);
    }
  }
}
