/**
 * Reads the history the model needs for a batch of clients, from one grouped SQL query over the
 * batch's rows: per client and UTC day, the day's aggregates (volume, contacts, tone, replies
 * each way, the three most telling interactions); and, one row each, the few client messages
 * that may carry a risk signal (churn intent, a chaser, a negative tone, or a request whose
 * answer was not sent within two days). The database returns one row per client-day plus those,
 * never every interaction.
 */
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { addDays, businessDueAt, daysBetween, utcDay } from '../util/time.js';
import { emptyBucket, type DayBucket, type SignalEvent } from './model.js';
import { chunks, hoursBetween } from './sql.js';

/** Bits of score/signals.ts SIGNAL_BITS that make a message an event on their own. */
const CHURN_OR_FOLLOW_UP = 1 | 2;
const NEEDS_REPLY = 4;
/**
 * A request answered within this many hours can never be past a service level of at least one
 * business day, so it is left in the day aggregates (most are).
 */
const ANSWERED_IN_TIME_HOURS = 24;
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
      arr = Array.from({ length: days.length }, emptyBucket);
      buckets.set(clientId, arr);
    }
    return { b: arr[i]!, i };
  };

  // One pass over the batch's rows. Window functions over each e-mail thread give the reply
  // events (a message whose predecessor went the other way) and, for a client message, when our
  // next e-mail in the thread went out. Rows that are not threaded e-mails share one null
  // partition key and those values are dropped.
  const threadKey = sql`case when type = 'email' then thread_id end`;
  const threaded = sql`type = 'email' and thread_id is not null`;
  const thread = sql`partition by client_id, ${threadKey} order by occurred_at, id`;
  const rowsInWindow = db
    .selectFrom('interactions')
    .select([
      'client_id',
      'id',
      'occurred_at',
      'direction',
      'type',
      'sentiment_score',
      'sentiment_label',
      'from_email',
      'signals',
      sql<string>`substr(occurred_at, 1, 10)`.as('day'),
      sql<string | null>`case when ${threaded} then lag(direction) over (${thread}) end`.as('prev_dir'),
      sql<string | null>`lag(occurred_at) over (${thread})`.as('prev_at'),
      // A client's e-mail in a thread can be answered in it: when did our next e-mail go out?
      sql<number>`case when ${threaded} and direction = 'inbound' then 1 else 0 end`.as('awaits'),
      sql<string | null>`case when ${threaded} and direction = 'inbound' then min(case when direction = 'outbound' then occurred_at end) over (${thread} rows between 1 following and unbounded following) end`.as('answered_at'),
    ])
    .$if(req.evidenceInQuery, (qb) => qb.select(evidenceRank.as('rn')))
    // Client ids are unique across workspaces: filtering on them alone keeps the planner on
    // interactions_client_time instead of scanning the workspace's time range.
    .where('client_id', 'in', req.clientIds)
    .where('occurred_at', '>=', fetchStart)
    .where('occurred_at', '<', endExclusive);

  const fromClient = sql`t.direction <> 'outbound'`;
  const ourReply = sql`t.direction = 'outbound' and t.prev_dir = 'inbound'`;
  const replyHours = hoursBetween(db, sql.ref('t.prev_at'), sql.ref('t.occurred_at'));
  const answerHours = hoursBetween(db, sql.ref('t.occurred_at'), sql.ref('t.answered_at'));
  const meeting = sql`t.type in ('meeting', 'call')`;
  const negative = sql`t.sentiment_label = 'negative'`;
  // A client message is an event of its own when it may carry a signal; every other row falls in
  // its day's group (event_id null).
  const eventId = sql<string | null>`case when t.direction = 'inbound' and (
      (t.signals & ${sql.lit(CHURN_OR_FOLLOW_UP)}) <> 0 or t.sentiment_label = 'negative'
      or (t.awaits = 1 and (t.signals & ${sql.lit(NEEDS_REPLY)}) <> 0 and (t.answered_at is null or ${answerHours} > ${sql.lit(ANSWERED_IN_TIME_HOURS)}))
    ) then t.id end`;
  const top = (k: number) => sql<string | null>`max(case when t.rn = ${sql.lit(k)} then t.id end)`;
  const grouped = db
    .selectFrom(rowsInWindow.as('t'))
    .select([
      't.client_id',
      't.day',
      eventId.as('event_id'),
      sql<number>`count(*)`.as('n'),
      sql<number>`sum(case when t.direction = 'inbound' or ${meeting} then 1 else 0 end)`.as('contacts'),
      sql<number>`sum(case when ${meeting} then 1 else 0 end)`.as('meetings'),
      sql<number>`sum(case when ${fromClient} then t.sentiment_score else 0 end)`.as('s_sum'),
      sql<number>`sum(case when ${fromClient} then 1 else 0 end)`.as('s_n'),
      sql<number>`sum(case when ${fromClient} and t.sentiment_label = 'positive' then 1 else 0 end)`.as('pos'),
      sql<number>`sum(case when ${fromClient} and ${negative} then 1 else 0 end)`.as('neg'),
      sql<number>`sum(case when ${meeting} then 1 when t.direction = 'inbound' and not (${negative}) then 1 when ${ourReply} then 1 else 0 end)`.as('engaged'),
      sql<number>`sum(case when t.direction = 'outbound' and t.type = 'email' then 1 else 0 end)`.as('out_emails'),
      sql<number>`sum(case when ${ourReply} then 1 else 0 end)`.as('ours'),
      sql<number>`sum(case when ${ourReply} then ${replyHours} else 0 end)`.as('our_hours'),
      sql<number>`sum(case when ${ourReply} then 24.0 / (24.0 + (case when ${replyHours} > 0 then ${replyHours} else 0 end)) else 0 end)`.as('our_prompt'),
      sql<number>`sum(case when t.direction = 'inbound' and t.prev_dir = 'outbound' then 1 else 0 end)`.as('theirs'),
      // One row in an event's group: these are its own values.
      sql<string>`max(t.occurred_at)`.as('at'),
      sql<string>`max(t.from_email)`.as('from_email'),
      sql<number>`max(t.signals)`.as('bits'),
      sql<string | null>`max(t.answered_at)`.as('answered_at'),
      sql<number>`max(t.awaits)`.as('awaits'),
    ])
    .$if(req.evidenceInQuery, (qb) => qb.select([top(1).as('top1'), top(2).as('top2'), top(3).as('top3')]))
    .groupBy(['t.client_id', 't.day', eventId]);
  const rows = await grouped.execute();

  // Evidence slots per client-day: an event's group holds its own rank, the day's group the rest.
  const slots = new Map<DayBucket, (string | null)[]>();
  for (const a of rows) {
    const at = bucket(a.client_id, a.day);
    if (!at) continue;
    const b = at.b;
    b.n += Number(a.n);
    b.contacts += Number(a.contacts);
    b.meetings += Number(a.meetings);
    b.sentimentSum += Number(a.s_sum);
    b.sentimentCount += Number(a.s_n);
    b.positive += Number(a.pos);
    b.negative += Number(a.neg);
    b.engaged += Number(a.engaged);
    b.outboundEmails += Number(a.out_emails);
    b.ourReplies += Number(a.ours);
    b.ourReplyHours += Number(a.our_hours);
    b.ourReplyPromptness += Number(a.our_prompt);
    b.theirReplies += Number(a.theirs);
    if (req.evidenceInQuery) {
      let s = slots.get(b);
      if (!s) slots.set(b, (s = [null, null, null]));
      const tops = [a.top1, a.top2, a.top3];
      for (let k = 0; k < 3; k++) if (tops[k] !== null && tops[k] !== undefined) s[k] = tops[k] ?? null;
    }
    if (a.event_id !== null && a.event_id !== undefined) {
      const atMs = Date.parse(a.at);
      const bits = Number(a.bits);
      // A complaint, a threat or a chaser asks for an answer too; only a threaded e-mail can get one.
      const needsReply = Number(a.awaits) === 1 && ((bits & NEEDS_REPLY) !== 0 || Number(a.neg) > 0 || (bits & CHURN_OR_FOLLOW_UP) !== 0);
      const list = events.get(a.client_id) ?? [];
      list.push({
        id: a.event_id,
        at: atMs,
        day: at.i,
        from: a.from_email.toLowerCase(),
        bits,
        negative: Number(a.neg) > 0,
        answeredAt: a.answered_at ? Date.parse(a.answered_at) : null,
        dueAt: needsReply ? businessDueAt(atMs, req.replySlaBusinessDays, req.timeZone) : null,
      });
      events.set(a.client_id, list);
    }
  }
  for (const [b, s] of slots) for (const id of s) if (id !== null) b.topIds.push(id);
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
