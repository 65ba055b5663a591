/**
 * The health model: pure functions from per-day aggregates of one client to a 0–100 score with
 * components, confidence and the explanation of its change. No I/O here: `recompute.ts` fetches
 * the day buckets with SQL aggregates and rolls the windows through these functions.
 * The formula is written out in docs/health-model.md; keep the two in step.
 */
import type { HealthWeights } from '../settings/settings.js';

export const HEALTH_COMPONENTS = ['sentiment', 'engagement', 'responsiveness', 'recency'] as const;
export type HealthComponent = (typeof HEALTH_COMPONENTS)[number];

export const REASON_CODES = [
  'sentiment_declining',
  'sentiment_improving',
  'no_recent_contact',
  'contact_resumed',
  'slower_replies',
  'faster_replies',
  'engagement_dropped',
  'engagement_rose',
  'stable',
  'no_data',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

/** Codes used to say why a client is low when its score did not move (topRisks). */
export const WEAKNESS_CODES = ['low_sentiment', 'low_engagement', 'slow_responses', 'no_recent_contact', 'no_data'] as const;
export type WeaknessCode = (typeof WEAKNESS_CODES)[number];

/** Score of a client with no interactions at all; its confidence is 0. */
export const DEFAULT_SCORE = 50;
/** Half-life of the weight of an interaction in the sentiment component, in days. */
export const SENTIMENT_HALF_LIFE_DAYS = 14;
/** Interactions older than this many days no longer count for sentiment. */
export const SENTIMENT_LOOKBACK_DAYS = 90;
/** Recent engagement window (days, ending on the scored day). */
export const ENGAGEMENT_RECENT_DAYS = 30;
/** Baseline window (days) just before the recent window. */
export const ENGAGEMENT_BASELINE_DAYS = 90;
/** Window (days) of reply events counted for responsiveness. */
export const RESPONSIVENESS_DAYS = 30;
/** Reply time (hours) that scores 50 in the our-reply-time part: 100·H/(H+h). */
export const REPLY_HALF_SCORE_HOURS = 24;
/** Recency is 100 up to this many days since the last two-way contact… */
export const RECENCY_FULL_DAYS = 7;
/** …then falls linearly to 0 over this many days (0 from day 67 on). */
export const RECENCY_FALL_DAYS = 60;
/** Interactions in 90 days that give full data confidence. */
export const CONFIDENCE_FULL_COUNT = 10;
/** A change smaller than this (score points) is `stable`. */
export const STABLE_BELOW = 1;
/** How many days of buckets before the first scored day the windows need. */
export const LOOKBACK_DAYS = ENGAGEMENT_RECENT_DAYS + ENGAGEMENT_BASELINE_DAYS;

/** Aggregates of one client's interactions on one UTC day. */
export interface DayBucket {
  /** All interactions. */
  n: number;
  /** Two-way contacts: inbound messages, meetings and calls. */
  contacts: number;
  /** Sum and count of sentiment scores ([-1, 1]) of what the client said (everything not outbound). */
  sentimentSum: number;
  sentimentCount: number;
  /** Outbound e-mails. */
  outboundEmails: number;
  /** Our replies (an outbound e-mail right after an inbound one in a thread) and their total delay, hours. */
  ourReplies: number;
  ourReplyHours: number;
  /** Their replies: an inbound e-mail right after an outbound one in a thread. */
  theirReplies: number;
  /** The day's most telling interactions (largest |sentiment| first), for evidence. */
  topIds: string[];
}

export function emptyBucket(): DayBucket {
  return { n: 0, contacts: 0, sentimentSum: 0, sentimentCount: 0, outboundEmails: 0, ourReplies: 0, ourReplyHours: 0, theirReplies: 0, topIds: [] };
}

export interface ComponentScore {
  /** 0–100. */
  value: number;
  /** Normalised weight (weights sum to 1). */
  weight: number;
  /** value × weight: the points this component adds to the score. */
  contribution: number;
}

export interface HealthInputs {
  /** Recency-weighted mean sentiment in [-1, 1]; null without sentiment in 90 days. */
  avgSentiment: number | null;
  recent30: number;
  /** Interactions of the prior 90 days, scaled to 30 days. */
  baseline30: number;
  /** Mean hours of our replies in 30 days; null without any. */
  ourReplyHours: number | null;
  /** Their replies / our outbound e-mails in 30 days; null without outbound. */
  theirReplyRate: number | null;
  /** Whole days since the last two-way contact; null when none in the lookback. */
  daysSinceContact: number | null;
  /** Interactions in the last 90 days. */
  n90: number;
}

export interface HealthResult {
  score: number;
  confidence: number;
  components: Record<HealthComponent, ComponentScore>;
  inputs: HealthInputs;
}

export interface Explanation {
  reason: ReasonCode;
  text: string;
  /** Change of each component's contribution (points); they sum to the score change. */
  changes: Record<HealthComponent, number>;
  /** The component that moved the score most in the direction of the change; null when stable. */
  driver: HealthComponent | null;
}

const round = (x: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};
export const round1 = (x: number): number => round(x, 1);
export const round2 = (x: number): number => round(x, 2);

export function normaliseWeights(w: HealthWeights): Record<HealthComponent, number> {
  const parts = HEALTH_COMPONENTS.map((c) => Math.max(0, Number(w[c]) || 0));
  const total = parts.reduce((a, b) => a + b, 0);
  const out = {} as Record<HealthComponent, number>;
  HEALTH_COMPONENTS.forEach((c, i) => {
    out[c] = total > 0 ? (parts[i] ?? 0) / total : 0.25;
  });
  return out;
}

/** Recency component from days since the last two-way contact. */
export function recencyValue(days: number | null): number {
  if (days === null) return 0;
  if (days <= RECENCY_FULL_DAYS) return 100;
  return Math.max(0, 100 - ((days - RECENCY_FULL_DAYS) * 100) / RECENCY_FALL_DAYS);
}

/** Our-reply-time part of responsiveness: 100 at 0 h, 50 at 24 h, 25 at 72 h. */
export function replyTimeValue(hours: number): number {
  return (100 * REPLY_HALF_SCORE_HOURS) / (REPLY_HALF_SCORE_HOURS + Math.max(0, hours));
}

/**
 * Scores day `i` of `buckets` (index 0 = the first fetched day) from that day's and earlier
 * buckets only. `weights` are normalised.
 */
/** Decay weight of the sentiment of k days ago, 0.5^(k / half-life): computed once, not per scored day. */
const SENTIMENT_DECAY: readonly number[] = Array.from({ length: SENTIMENT_LOOKBACK_DAYS }, (_, k) => 0.5 ** (k / SENTIMENT_HALF_LIFE_DAYS));

export function scoreDay(buckets: readonly DayBucket[], i: number, weights: Record<HealthComponent, number>): HealthResult {
  let wSum = 0;
  let wCount = 0;
  for (let k = 0; k < SENTIMENT_LOOKBACK_DAYS && i - k >= 0; k++) {
    const b = buckets[i - k];
    if (!b || b.sentimentCount === 0) continue;
    const w = SENTIMENT_DECAY[k] ?? 0;
    wSum += w * b.sentimentSum;
    wCount += w * b.sentimentCount;
  }
  const avgSentiment = wCount > 0 ? wSum / wCount : null;

  let recent30 = 0;
  let prior90 = 0;
  let n90 = 0;
  let outbound = 0;
  let ourReplies = 0;
  let ourHours = 0;
  let theirReplies = 0;
  let daysSinceContact: number | null = null;
  for (let k = 0; k < LOOKBACK_DAYS && i - k >= 0; k++) {
    const b = buckets[i - k];
    if (!b) continue;
    if (k < ENGAGEMENT_RECENT_DAYS) recent30 += b.n;
    else prior90 += b.n;
    if (k < 90) n90 += b.n;
    if (k < RESPONSIVENESS_DAYS) {
      outbound += b.outboundEmails;
      ourReplies += b.ourReplies;
      ourHours += b.ourReplyHours;
      theirReplies += b.theirReplies;
    }
    if (daysSinceContact === null && b.contacts > 0) daysSinceContact = k;
  }
  const baseline30 = (prior90 * ENGAGEMENT_RECENT_DAYS) / ENGAGEMENT_BASELINE_DAYS;
  const ourReplyHours = ourReplies > 0 ? ourHours / ourReplies : null;
  const theirReplyRate = outbound > 0 ? Math.min(1, theirReplies / outbound) : null;

  const responsivenessParts: number[] = [];
  if (ourReplyHours !== null) responsivenessParts.push(replyTimeValue(ourReplyHours));
  if (theirReplyRate !== null) responsivenessParts.push(100 * theirReplyRate);

  const values: Record<HealthComponent, number> = {
    sentiment: avgSentiment === null ? 50 : 50 * (avgSentiment + 1),
    engagement: (100 * Math.min(1, recent30 / Math.max(1, baseline30))),
    responsiveness: responsivenessParts.length ? responsivenessParts.reduce((a, b) => a + b, 0) / responsivenessParts.length : 50,
    recency: recencyValue(daysSinceContact),
  };
  return assemble(values, weights, {
    avgSentiment,
    recent30,
    baseline30,
    ourReplyHours,
    theirReplyRate,
    daysSinceContact,
    n90,
  });
}

function assemble(values: Record<HealthComponent, number>, weights: Record<HealthComponent, number>, inputs: HealthInputs): HealthResult {
  const components = {} as Record<HealthComponent, ComponentScore>;
  let score = 0;
  for (const c of HEALTH_COMPONENTS) {
    const contribution = values[c] * weights[c];
    score += contribution;
    components[c] = { value: round1(values[c]), weight: round(weights[c], 4), contribution: round2(contribution) };
  }
  const dataConfidence = Math.min(1, inputs.n90 / CONFIDENCE_FULL_COUNT);
  const d = inputs.daysSinceContact;
  const freshness = d === null ? 0 : d <= 30 ? 1 : Math.max(0, 1 - (d - 30) / 60);
  return { score: round1(score), confidence: round2(dataConfidence * freshness), components, inputs };
}

/** The documented default for a client without interactions. */
export function defaultResult(weights: Record<HealthComponent, number>): HealthResult {
  const values = { sentiment: 50, engagement: 50, responsiveness: 50, recency: 50 };
  const r = assemble(values, weights, { avgSentiment: null, recent30: 0, baseline30: 0, ourReplyHours: null, theirReplyRate: null, daysSinceContact: null, n90: 0 });
  return { ...r, score: DEFAULT_SCORE, confidence: 0 };
}

const MOVES: Record<HealthComponent, { down: ReasonCode; up: ReasonCode; downText: string; upText: string }> = {
  sentiment: { down: 'sentiment_declining', up: 'sentiment_improving', downText: 'the tone of recent interactions turned more negative', upText: 'the tone of recent interactions improved' },
  engagement: { down: 'engagement_dropped', up: 'engagement_rose', downText: 'interaction volume fell against its usual level', upText: 'interaction volume rose against its usual level' },
  responsiveness: { down: 'slower_replies', up: 'faster_replies', downText: 'replies became slower or rarer', upText: 'replies became faster or more frequent' },
  recency: { down: 'no_recent_contact', up: 'contact_resumed', downText: 'there has been no recent two-way contact', upText: 'two-way contact resumed' },
};

/** Components as stored in a snapshot (only contributions are needed to explain a change). */
export type StoredComponents = Partial<Record<HealthComponent, { contribution?: number; value?: number; weight?: number }>>;

/**
 * Explains a move from `prev` to `cur`: the score change is the sum of the contribution changes;
 * the driver is the component that moved most in the direction of the total.
 */
export function explainChange(prevScore: number | null, prev: StoredComponents | null, curScore: number, cur: StoredComponents): Explanation {
  const changes = {} as Record<HealthComponent, number>;
  for (const c of HEALTH_COMPONENTS) changes[c] = round2((cur[c]?.contribution ?? 0) - (prev?.[c]?.contribution ?? 0));
  if (prevScore === null || prev === null) {
    return { reason: 'stable', text: `First score: ${curScore.toFixed(1)}.`, changes, driver: null };
  }
  const delta = round1(curScore - prevScore);
  if (Math.abs(delta) < STABLE_BELOW) {
    return { reason: 'stable', text: `Score stable at ${curScore.toFixed(1)} (${signed(delta)} points).`, changes, driver: null };
  }
  let driver: HealthComponent = 'sentiment';
  let best = -Infinity;
  for (const c of HEALTH_COMPONENTS) {
    const moved = delta < 0 ? -changes[c] : changes[c];
    if (moved > best) {
      best = moved;
      driver = c;
    }
  }
  const m = MOVES[driver];
  const parts = HEALTH_COMPONENTS.filter((c) => changes[c] !== 0).map((c) => `${c} ${signed(changes[c])}`);
  const text =
    `Score ${delta < 0 ? 'fell' : 'rose'} ${Math.abs(delta).toFixed(1)} points (${prevScore.toFixed(1)} → ${curScore.toFixed(1)}), ` +
    `mostly because ${delta < 0 ? m.downText : m.upText} (${parts.join(', ')}).`;
  return { reason: delta < 0 ? m.down : m.up, text, changes, driver };
}

const WEAKNESS: Record<HealthComponent, { code: WeaknessCode; text: string }> = {
  sentiment: { code: 'low_sentiment', text: 'the tone of recent interactions is negative' },
  engagement: { code: 'low_engagement', text: 'interaction volume is low against its usual level' },
  responsiveness: { code: 'slow_responses', text: 'replies are slow or rare' },
  recency: { code: 'no_recent_contact', text: 'there has been no recent two-way contact' },
};

/** Why a score is low when it did not move: the component that loses the most points. */
export function explainWeakness(score: number, cur: StoredComponents | null): { reason: WeaknessCode; text: string } {
  if (!cur) return { reason: 'no_data', text: `No interactions yet: default score ${score.toFixed(1)}.` };
  let worst: HealthComponent = 'sentiment';
  let lost = -Infinity;
  for (const c of HEALTH_COMPONENTS) {
    const v = cur[c];
    if (!v || v.value === undefined || v.weight === undefined) continue;
    // Points lost against a perfect 100 on this component.
    const l = (100 - v.value) * v.weight;
    if (l > lost) {
      lost = l;
      worst = c;
    }
  }
  return { reason: WEAKNESS[worst].code, text: `Score ${score.toFixed(1)}: ${WEAKNESS[worst].text}.` };
}

function signed(x: number): string {
  return `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(1)}`;
}
