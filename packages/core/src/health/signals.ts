/**
 * Risk signals: what a CS lead reads in a client's history beyond the average tone — a stated
 * intent to leave, an escalation, mail we left waiting, a client gone quiet against its own
 * cadence, our slow replies, a tone that turned. Each is computed for one day from that day's and
 * earlier history (never more than LOOKBACK_DAYS back), holds while its condition does, and caps
 * the score while it holds. Pure: the history comes from history.ts. docs/health-model.md has the
 * rules with examples; keep the two in step.
 */
import { DAY_MS } from '../util/time.js';
import { CADENCE_DAYS, lastActiveAtOrBefore, type ClientHistory, type SignalEvent } from './model.js';

/** score/signals.ts SIGNAL_BITS, repeated as plain numbers so the model stays free of the scorer. */
const CHURN_BIT = 1;
const FOLLOW_UP_BIT = 2;

export const RISK_CODES = ['churn_intent', 'escalation', 'unanswered', 'gone_quiet', 'slow_replies', 'negative_tone'] as const;
export type RiskCode = (typeof RISK_CODES)[number];

/** The history one day's signals may read (days, the day itself included). */
const SIGNAL_LOOKBACK_DAYS = 120;

/**
 * Churn intent holds for this many days after the message that states it (a quarter: a notice not
 * to renew comes 30-90 days before the renewal, and quiet business after it is no change of mind;
 * 30 until 11-29, which let such a client read healthy for the last months before it left)…
 */
const CHURN_WINDOW_DAYS = 90;
/** …unless this many later messages from the client read positive (the threat was withdrawn). */
const CHURN_CLEARED_BY_POSITIVE = 2;
const CHURN_CAP = 30;
/** Cap when two or more messages state it. */
const CHURN_CAP_REPEATED = 25;

/** An escalation: this many negative messages from the client within the window… */
const ESCALATION_WINDOW_DAYS = 14;
const ESCALATION_MIN_NEGATIVE = 3;
/** …or two from at least this many different people. */
const ESCALATION_MIN_CONTACTS = 2;
const ESCALATION_CAP = 35;

/** Unanswered: caps for one, two, and three or more messages waiting past the service level. */
const UNANSWERED_CAPS: readonly [number, number, number] = [55, 45, 35];
/** A message waiting this many days takes the lowest cap on its own. */
const UNANSWERED_LONG_DAYS = 7;

/** Gone quiet: silent at least this many days… */
const GONE_QUIET_MIN_DAYS = 21;
/** …and at least this many times the client's usual gap between contacts… */
const GONE_QUIET_FACTOR = 3;
/** …where a usual gap needs this many contact days in the lookback. */
const CADENCE_MIN_CONTACT_DAYS = 4;
/**
 * Contact days at most this many days apart are one exchange: a thread answered over three days
 * is one conversation, not a client that writes every day. The usual gap is measured between
 * exchanges.
 */
const EXCHANGE_DAYS = 3;
const GONE_QUIET_CAP = 35;

/** Our slowness: the mean of our replies over the last 4 weeks above 3 days (≥ 2 replies)… */
const SLOW_WINDOW_DAYS = 28;
const SLOW_REPLY_HOURS = 72;
const SLOW_MIN_REPLIES = 2;
/** …or above 2 days and at least twice what it was in the 8 weeks before… */
const SLOW_TREND_HOURS = 48;
const SLOW_BEFORE_DAYS = 56;
/** …or this many chasers ("still waiting", "following up again") within 3 weeks. */
const FOLLOW_UP_WINDOW_DAYS = 21;
const FOLLOW_UP_MIN = 2;
const SLOW_CAP = 38;

/** Tone: the mean of what they said over 3 weeks at or below −0.25 (≥ 2 messages)… */
const TONE_WINDOW_DAYS = 21;
const TONE_MIN_MESSAGES = 2;
const TONE_NEGATIVE_AT = -0.25;
/** …and at least this much below the 90 days before (or, with nothing before, 3 messages). */
const TONE_DROP = 0.3;
const TONE_BEFORE_DAYS = 90;
const TONE_CAP = 38;

/** Evidence kept per signal. */
const MAX_IDS = 6;

export interface ActiveRisk {
  code: RiskCode;
  /** The highest score a client can have while this holds. */
  cap: number;
  /** A sentence in plain words, lower-case start ("2 messages in the last 90 days say …"). */
  text: string;
  /** The interactions that show it, most telling first. */
  interactionIds: string[];
}

/** The figures behind the signals, kept in each snapshot. */
export interface RiskInputs {
  churnMessages: number;
  negative14: number;
  negativeContacts14: number;
  unanswered: number;
  oldestWaitingDays: number | null;
  usualGapDays: number | null;
  ourReplyHours28: number | null;
  ourReplyHoursBefore: number | null;
  followUps21: number;
  tone21: number | null;
  toneBefore: number | null;
}

export interface RiskReading {
  /** Every signal that holds, lowest cap first (ties in RISK_CODES order). */
  active: ActiveRisk[];
  inputs: RiskInputs;
}

const plural = (n: number, one: string, many: string): string => (n === 1 ? one : many);
const fmtSentiment = (x: number): string => `${x > 0 ? '+' : x < 0 ? '−' : ''}${Math.abs(x).toFixed(2)}`;
const fmtDays = (hours: number): string => `${(hours / 24).toFixed(1)} days`;

const NO_EVENTS: readonly SignalEvent[] = [];

/** The events of days (i − SIGNAL_LOOKBACK_DAYS, i], newest first. */
function recentEvents(events: readonly SignalEvent[], i: number): readonly SignalEvent[] {
  if (events.length === 0) return NO_EVENTS;
  const out: SignalEvent[] = [];
  for (let k = events.length - 1; k >= 0; k--) {
    const e = events[k]!;
    if (e.day > i) continue;
    if (e.day <= i - SIGNAL_LOOKBACK_DAYS) break;
    out.push(e);
  }
  return out;
}

/**
 * Mean days between the client's exchanges (runs of contact days at most EXCHANGE_DAYS apart)
 * in (i − CADENCE_DAYS, upTo]; null with fewer than CADENCE_MIN_CONTACT_DAYS contact days or
 * fewer than two gaps. A client that writes weekly has a gap of 7; one that has a three-day
 * thread every two months, about 60.
 */
function usualGap(history: ClientHistory, i: number, upTo: number): number | null {
  const bound = i - CADENCE_DAYS;
  // Day after day of a silence the same contact days are read again: the answer only changes
  // when the oldest of them leaves the year, so the last one is kept per history.
  const memo = gapMemo.get(history);
  if (memo && memo.upTo === upTo && bound >= memo.bound && bound < memo.oldest) return memo.gap;
  const starts: number[] = [];
  let contactDays = 0;
  let prev = -1;
  const { active, buckets } = history;
  for (let p = lastActiveAtOrBefore(active, upTo); p >= 0; p--) {
    const k = active[p]!;
    if (k <= bound) break;
    if (buckets[k]!.contacts === 0) continue;
    contactDays += 1;
    // Newest first: a day more than EXCHANGE_DAYS before the previous one starts another exchange.
    if (prev < 0 || prev - k > EXCHANGE_DAYS) starts.push(k);
    else starts[starts.length - 1] = k;
    prev = k;
  }
  // The mean gap: conversations come at irregular times, and a median would call a client quiet
  // at about twice its average pause, which one client in eight reaches by chance on any day.
  const gap = contactDays < CADENCE_MIN_CONTACT_DAYS || starts.length < 3 ? null : (starts[0]! - starts[starts.length - 1]!) / (starts.length - 1);
  gapMemo.set(history, { upTo, bound, oldest: prev < 0 ? Infinity : prev, gap });
  return gap;
}

/** usualGap's last answer per history: valid while the window keeps the same contact days. */
const gapMemo = new WeakMap<ClientHistory, { upTo: number; bound: number; oldest: number; gap: number | null }>();

/**
 * The risk signals of day `i` of a client's history. `slaBusinessDays` only words the sentence:
 * each event's due time was computed with it when the history was read.
 */
export function detectRisks(history: ClientHistory, i: number, slaBusinessDays: number): RiskReading {
  const { buckets } = history;
  const dayStart = Date.parse(`${history.origin}T00:00:00Z`) + i * DAY_MS;
  const end = Math.min(dayStart + DAY_MS, history.asOf);
  const events = recentEvents(history.events, i);
  // Most client-days have no event in the lookback: no filtering, no arrays.
  const pick = (keep: (e: SignalEvent) => boolean): readonly SignalEvent[] => (events.length === 0 ? NO_EVENTS : events.filter(keep));
  const active: ActiveRisk[] = [];

  // Day-bucket sums over the windows the signals use.
  let lastMeeting = -1;
  let lastReply = -1;
  let lastContact = -1;
  let replies28 = 0;
  let hours28 = 0;
  let repliesBefore = 0;
  let hoursBefore = 0;
  let tone21Sum = 0;
  let tone21N = 0;
  let toneBeforeSum = 0;
  let toneBeforeN = 0;
  const withData = history.active;
  // The days with data in the lookback, newest first (the others add nothing).
  for (let p = lastActiveAtOrBefore(withData, i); p >= 0; p--) {
    const k = i - withData[p]!;
    if (k >= SIGNAL_LOOKBACK_DAYS) break;
    const b = buckets[i - k]!;
    if (lastMeeting < 0 && b.meetings > 0) lastMeeting = i - k;
    if (lastReply < 0 && b.ourReplies > 0) lastReply = i - k;
    if (lastContact < 0 && b.contacts > 0) lastContact = i - k;
    if (k < SLOW_WINDOW_DAYS) {
      replies28 += b.ourReplies;
      hours28 += b.ourReplyHours;
    } else if (k < SLOW_WINDOW_DAYS + SLOW_BEFORE_DAYS) {
      repliesBefore += b.ourReplies;
      hoursBefore += b.ourReplyHours;
    }
    if (k < TONE_WINDOW_DAYS) {
      tone21Sum += b.sentimentSum;
      tone21N += b.sentimentCount;
    } else if (k < TONE_WINDOW_DAYS + TONE_BEFORE_DAYS) {
      toneBeforeSum += b.sentimentSum;
      toneBeforeN += b.sentimentCount;
    }
  }

  // Churn intent: the latest statements within 90 days, unless warmly withdrawn since.
  const churn = pick((e) => (e.bits & CHURN_BIT) !== 0 && e.day > i - CHURN_WINDOW_DAYS);
  let churnMessages = 0;
  if (churn.length > 0) {
    const latest = churn[0]!;
    let positiveSince = 0;
    for (let d = latest.day + 1; d <= i; d++) positiveSince += buckets[d]?.positive ?? 0;
    if (positiveSince < CHURN_CLEARED_BY_POSITIVE) {
      churnMessages = churn.length;
      const n = churn.length;
      active.push({
        code: 'churn_intent',
        cap: n >= 2 ? CHURN_CAP_REPEATED : CHURN_CAP,
        text: `${n} ${plural(n, 'message', 'messages')} in the last ${CHURN_WINDOW_DAYS} days ${plural(n, 'says', 'say')} they will leave or not renew`,
        interactionIds: churn.slice(0, MAX_IDS).map((e) => e.id),
      });
    }
  }

  // Escalation: several negative messages in two weeks, or two from different people.
  const negatives = pick((e) => e.negative && e.day > i - ESCALATION_WINDOW_DAYS);
  const negativeContacts = negatives.length === 0 ? 0 : new Set(negatives.map((e) => e.from)).size;
  if (negatives.length >= ESCALATION_MIN_NEGATIVE || (negatives.length >= 2 && negativeContacts >= ESCALATION_MIN_CONTACTS)) {
    const n = negatives.length;
    active.push({
      code: 'escalation',
      cap: ESCALATION_CAP,
      text: `${n} negative messages from ${negativeContacts} ${plural(negativeContacts, 'person', 'people')} at the client in the last ${ESCALATION_WINDOW_DAYS} days`,
      interactionIds: negatives.slice(0, MAX_IDS).map((e) => e.id),
    });
  }

  // Unanswered: asks for an answer, past its due time, no e-mail of ours in the thread, no
  // meeting or call since, and no reply of ours to the client on a later day (the conversation
  // moved on in another thread: a question of months ago with weekly exchanges since is settled).
  const waiting = pick(
    (e) => e.dueAt !== null && e.dueAt <= end && !(e.answeredAt !== null && e.answeredAt <= end) && lastMeeting < e.day && lastReply <= e.day,
  );
  let oldestWaitingDays: number | null = null;
  if (waiting.length > 0) {
    const oldest = waiting[waiting.length - 1]!;
    oldestWaitingDays = Math.floor((end - oldest.at) / DAY_MS);
    const n = waiting.length;
    const cap = n >= 3 || oldestWaitingDays >= UNANSWERED_LONG_DAYS ? UNANSWERED_CAPS[2] : n === 2 ? UNANSWERED_CAPS[1] : UNANSWERED_CAPS[0];
    active.push({
      code: 'unanswered',
      cap,
      text: `${n} ${plural(n, 'message', 'messages')} from them ${plural(n, 'has', 'have')} waited more than ${slaBusinessDays} business ${plural(slaBusinessDays, 'day', 'days')} for our reply (the oldest ${oldestWaitingDays} days)`,
      interactionIds: [...waiting]
        .reverse()
        .slice(0, MAX_IDS)
        .map((e) => e.id),
    });
  }

  // Gone quiet: silent for three times their usual gap between contacts (and three weeks). Their
  // last contact may be older than the signals' window: it is looked for over a year.
  if (lastContact < 0) {
    for (let p = lastActiveAtOrBefore(withData, i); p >= 0; p--) {
      const d = withData[p]!;
      if (i - d >= CADENCE_DAYS) break;
      if (buckets[d]!.contacts > 0) {
        lastContact = d;
        break;
      }
    }
  }
  const daysSince = lastContact < 0 ? null : i - lastContact;
  const gap = daysSince !== null && daysSince > 7 ? usualGap(history, i, lastContact) : null;
  if (daysSince !== null && gap !== null && daysSince >= Math.max(GONE_QUIET_MIN_DAYS, GONE_QUIET_FACTOR * gap)) {
    active.push({
      code: 'gone_quiet',
      cap: GONE_QUIET_CAP,
      text: `no two-way contact for ${daysSince} days, where they usually write every ${Math.round(gap)} ${plural(Math.round(gap), 'day', 'days')}`,
      interactionIds: [...(buckets[lastContact]?.topIds ?? [])],
    });
  }

  // Our slowness: slow replies over four weeks, slower than before, or their chasers.
  const mean28 = replies28 > 0 ? hours28 / replies28 : null;
  const meanBefore = repliesBefore > 0 ? hoursBefore / repliesBefore : null;
  const chasers = pick((e) => (e.bits & FOLLOW_UP_BIT) !== 0 && e.day > i - FOLLOW_UP_WINDOW_DAYS);
  const slowMean =
    mean28 !== null &&
    replies28 >= SLOW_MIN_REPLIES &&
    (mean28 > SLOW_REPLY_HOURS || (meanBefore !== null && mean28 > SLOW_TREND_HOURS && mean28 >= 2 * meanBefore));
  if (slowMean || chasers.length >= FOLLOW_UP_MIN) {
    const parts: string[] = [];
    if (slowMean && mean28 !== null)
      parts.push(`our replies took ${fmtDays(mean28)} on average over the last 4 weeks${meanBefore !== null ? ` (${fmtDays(meanBefore)} before)` : ''}`);
    if (chasers.length >= FOLLOW_UP_MIN) parts.push(`${chasers.length} messages in the last 3 weeks chase us for an answer`);
    active.push({ code: 'slow_replies', cap: SLOW_CAP, text: parts.join('; '), interactionIds: chasers.slice(0, MAX_IDS).map((e) => e.id) });
  }

  // Tone: what they said over three weeks reads negative, and clearly worse than before.
  const tone21 = tone21N > 0 ? tone21Sum / tone21N : null;
  const toneBefore = toneBeforeN > 0 ? toneBeforeSum / toneBeforeN : null;
  if (
    tone21 !== null &&
    tone21N >= TONE_MIN_MESSAGES &&
    tone21 <= TONE_NEGATIVE_AT &&
    (toneBefore === null ? tone21N >= 3 : toneBefore - tone21 >= TONE_DROP)
  ) {
    active.push({
      code: 'negative_tone',
      cap: TONE_CAP,
      text: `the tone of their messages turned negative over the last 3 weeks (${fmtSentiment(tone21)}${toneBefore !== null ? `, against ${fmtSentiment(toneBefore)} before` : ''})`,
      interactionIds: events
        .filter((e) => e.negative && e.day > i - TONE_WINDOW_DAYS)
        .slice(0, MAX_IDS)
        .map((e) => e.id),
    });
  }

  active.sort((a, b) => a.cap - b.cap || RISK_CODES.indexOf(a.code) - RISK_CODES.indexOf(b.code));
  const round3 = (x: number | null): number | null => (x === null ? null : Math.round(x * 1000) / 1000);
  return {
    active,
    inputs: {
      churnMessages,
      negative14: negatives.length,
      negativeContacts14: negativeContacts,
      unanswered: waiting.length,
      oldestWaitingDays,
      usualGapDays: gap,
      ourReplyHours28: round3(mean28),
      ourReplyHoursBefore: round3(meanBefore),
      followUps21: chasers.length,
      tone21: round3(tone21),
      toneBefore: round3(toneBefore),
    },
  };
}
