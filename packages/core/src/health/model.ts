/**
 * The health model: pure functions from one client's history (per-day aggregates and the few
 * messages that carry a risk signal) to a 0–100 score with components, risk signals, confidence
 * and the explanation of its change. No I/O here: `history.ts` fetches the history with SQL
 * aggregates, `score-client.ts` rolls the days through `scoreDay`.
 * The formula is written out in docs/health-model.md; keep the two in step.
 */
import type { HealthWeights } from '../settings/settings.js';
import { detectRisks, RISK_CODES, type ActiveRisk, type RiskCode, type RiskInputs } from './signals.js';
import { isRecord } from '../util/json.js';
import { ChsError } from '../errors.js';
import { round, round1, round2 } from '../util/numbers.js';

export const HEALTH_COMPONENTS = ['sentiment', 'engagement', 'responsiveness', 'recency'] as const;
export type HealthComponent = (typeof HEALTH_COMPONENTS)[number];

export const REASON_CODES = [
  ...RISK_CODES,
  'risk_eased',
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
export const WEAKNESS_CODES = [...RISK_CODES, 'low_sentiment', 'low_engagement', 'slow_responses', 'no_recent_contact', 'no_data', 'stable'] as const;
export type WeaknessCode = (typeof WEAKNESS_CODES)[number];

/** Score of a client with no interactions at all; its confidence is 0. */
export const DEFAULT_SCORE = 50;
/** Half-life of the weight of an interaction in the sentiment component, in days. */
const SENTIMENT_HALF_LIFE_DAYS = 14;
/** Interactions older than this many days no longer count for sentiment. */
const SENTIMENT_LOOKBACK_DAYS = 90;
/** Recent engagement window (days, ending on the scored day). */
const ENGAGEMENT_RECENT_DAYS = 30;
/** Baseline window (days) just before the recent window. */
const ENGAGEMENT_BASELINE_DAYS = 90;
/** Window (days) of reply events counted for responsiveness. */
const RESPONSIVENESS_DAYS = 30;
/** Recency is 100 up to max(this, 1.5 × the client's usual gap) days since the last two-way contact… */
const RECENCY_FULL_DAYS = 7;
/** …then falls linearly to 0 over max(this, 3 × the usual gap) days. */
const RECENCY_FALL_DAYS = 60;
/** Interactions in 90 days that give full data confidence. */
const CONFIDENCE_FULL_COUNT = 10;
/** A change smaller than this (score points) is `stable`. */
const STABLE_BELOW = 1;
/**
 * How many days of history the score of one day reads (the day itself included): every window
 * of the model fits in it, so a day's score is the same whether it is rebuilt alone or in a run.
 */
const LOOKBACK_DAYS = ENGAGEMENT_RECENT_DAYS + ENGAGEMENT_BASELINE_DAYS;
/**
 * How far back a client's rhythm (its usual gap between contacts) and its last contact are read:
 * a year, so a quiet client that writes every two months is judged against that, not against a
 * four-month window in which it wrote twice. Every rebuild reads this much history before its
 * first day, so a day scores the same in a full and an incremental run.
 */
export const CADENCE_DAYS = 365;
/** Days of history a rebuild reads before the first day it scores. */
export const HISTORY_DAYS = Math.max(LOOKBACK_DAYS, CADENCE_DAYS);

/** Aggregates of one client's interactions on one UTC day. */
export interface DayBucket {
  /** All interactions. */
  n: number;
  /** Two-way contacts: inbound messages, meetings and calls. */
  contacts: number;
  /** Meetings and calls (a conversation that also answers what they wrote). */
  meetings: number;
  /** Sum and count of sentiment scores ([-1, 1]) of what the client said (everything not outbound). */
  sentimentSum: number;
  sentimentCount: number;
  /** What the client said that reads positive / negative. */
  positive: number;
  negative: number;
  /**
   * Two-way exchange: the client's messages that are not negative, our replies to them, meetings
   * and calls. Our unanswered outreach and their complaints are not healthy engagement.
   */
  engaged: number;
  /** Outbound e-mails. */
  outboundEmails: number;
  /** Our replies (an outbound e-mail right after an inbound one in a thread) and their total delay, hours. */
  ourReplies: number;
  ourReplyHours: number;
  /** Σ of 24 / (24 + h) over our replies: each reply's promptness in (0, 1]. */
  ourReplyPromptness: number;
  /** Their replies: an inbound e-mail right after an outbound one in a thread. */
  theirReplies: number;
  /** The day's most telling interactions (largest |sentiment| first), for evidence. */
  topIds: string[];
}

/**
 * The bucket of every day without data, shared (a year of days × hundreds of clients would
 * otherwise be as many objects). Frozen: a day that gets data gets a bucket of its own.
 */
export const NO_DATA_BUCKET: DayBucket = Object.freeze({ ...emptyBucket(), topIds: Object.freeze([]) as unknown as string[] });

/** Buckets for `length` days without data (all the shared NO_DATA_BUCKET). */
export function noDataBuckets(length: number): DayBucket[] {
  return new Array<DayBucket>(length).fill(NO_DATA_BUCKET);
}

export function emptyBucket(): DayBucket {
  return {
    n: 0,
    contacts: 0,
    meetings: 0,
    sentimentSum: 0,
    sentimentCount: 0,
    positive: 0,
    negative: 0,
    engaged: 0,
    outboundEmails: 0,
    ourReplies: 0,
    ourReplyHours: 0,
    ourReplyPromptness: 0,
    theirReplies: 0,
    topIds: [],
  };
}

/**
 * One client message that may carry a risk signal: a churn intent, a follow-up, a negative tone,
 * or a request we may not have answered in time. Only these are read one by one; everything else
 * is in the day buckets.
 */
export interface SignalEvent {
  id: string;
  /** Epoch ms. */
  at: number;
  /** Index of its day in the buckets. */
  day: number;
  /** Sender address (to count distinct contacts). */
  from: string;
  /** score/signals.ts SIGNAL_BITS. */
  bits: number;
  negative: boolean;
  /** When our first later e-mail in its thread went out (epoch ms); null when none. */
  answeredAt: number | null;
  /** When a reply is due under the workspace's service level (epoch ms); null when it asks for none. */
  dueAt: number | null;
}

/** One client's history in a rebuild: buckets from `origin` (index 0) and its events by time. */
export interface ClientHistory {
  /** YYYY-MM-DD of buckets[0]. */
  origin: string;
  buckets: readonly DayBucket[];
  /** Sorted by `at`. */
  events: readonly SignalEvent[];
  /** The engine's "now" (epoch ms): today's snapshot counts what is overdue by then, not by midnight. */
  asOf: number;
  /**
   * Indices of the buckets with data (n > 0), ascending (`activeDays(buckets)`). The windows walk
   * only these: the same additions in the same order as a walk over every day (the others add
   * nothing), at a fraction of the cost for the usual client with mail on a few days a month.
   */
  active: readonly number[];
  /** Two-way contacts (their messages, meetings, calls) before `origin`, for "not enough data"; default 0. */
  knownBefore?: number;
}

/**
 * A client from whom we have heard fewer times than this in all its history (their messages,
 * meetings and calls: our own mail tells nothing of them) is one we barely know: without a risk
 * signal (a stated intent to leave, an escalation, a request left waiting) it scores at least the
 * neutral DEFAULT_SCORE with low confidence, as "not enough data", never as a risk for lack of mail.
 */
export const MIN_KNOWN_CONTACTS = 3;
/** The highest confidence of a client we barely know. */
const THIN_CONFIDENCE = 0.2;

/** The indices of the buckets with data, ascending (ClientHistory.active). */
export function activeDays(buckets: readonly DayBucket[]): number[] {
  const out: number[] = [];
  for (let k = 0; k < buckets.length; k++) if (buckets[k]!.n > 0) out.push(k);
  return out;
}

/** Position in `active` of the last day ≤ i, or −1 (binary search). */
export function lastActiveAtOrBefore(active: readonly number[], i: number): number {
  let lo = 0;
  let hi = active.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (active[mid]! <= i) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

export interface ModelOptions {
  weights: Record<HealthComponent, number>;
  /** The workspace's reply service level, business days (for the sentences). */
  replySlaBusinessDays: number;
  /** The learned model whose weights these are (health/models.ts); absent for the hand-written weights. */
  model?: number;
}

export interface ComponentScore {
  /** 0–100. */
  value: number;
  /** Normalised weight (weights sum to 1). */
  weight: number;
  /** value × weight: the points this component adds to the score. */
  contribution: number;
}

interface HealthInputs {
  /** Recency-weighted mean sentiment in [-1, 1]; null without sentiment in 90 days. */
  avgSentiment: number | null;
  /** Two-way exchanges (DayBucket.engaged) in the last 30 days. */
  recent30: number;
  /** Exchanges of the prior 90 days, scaled to 30 days. */
  baseline30: number;
  /** Mean hours of our replies in 30 days; null without any. */
  ourReplyHours: number | null;
  /** Their replies / our outreach e-mails (outbound that are not replies) in 30 days; null without outreach. */
  theirReplyRate: number | null;
  /** Whole days since the last two-way contact; null when none in the lookback. */
  daysSinceContact: number | null;
  /** Median days between the client's contact days (null when too few to say). */
  usualGapDays: number | null;
  /** Interactions in the last 90 days. */
  n90: number;
  /** Two-way contacts in all its history up to the day, counted up to MIN_KNOWN_CONTACTS. */
  known?: number;
}

/** The risk that holds the score down, as stored in a snapshot's components. */
interface StoredRisk {
  code: RiskCode;
  /** The cap it puts on the score. */
  cap: number;
  /** Score − the weighted components (≤ 0): the points the risk takes. */
  points: number;
  text: string;
  interactionIds: string[];
}

export interface HealthResult {
  score: number;
  confidence: number;
  components: Record<HealthComponent, ComponentScore>;
  /** Every risk signal that holds, most severe first. */
  risks: ActiveRisk[];
  /** The one that caps the score (the first of `risks`), with the points it takes; null when none. */
  risk: StoredRisk | null;
  inputs: HealthInputs;
  riskInputs: RiskInputs;
  /** Lifted to DEFAULT_SCORE for lack of data ("not enough data"): a client we barely know. */
  thin?: boolean;
}

type ChangeKey = HealthComponent | 'risk';

export interface Explanation {
  reason: ReasonCode;
  text: string;
  /** Change of each component's contribution and of the risk points; they sum to the score change. */
  changes: Record<ChangeKey, number>;
  /** What moved the score most in the direction of the change; null when stable. */
  driver: ChangeKey | null;
  /** The interactions that explain a risk, when a risk is the reason. */
  interactionIds?: string[];
}

export function normaliseWeights(w: HealthWeights): Record<HealthComponent, number> {
  const parts = HEALTH_COMPONENTS.map((c) => Math.max(0, Number(w[c]) || 0));
  const total = parts.reduce((a, b) => a + b, 0);
  const out = {} as Record<HealthComponent, number>;
  HEALTH_COMPONENTS.forEach((c, i) => {
    out[c] = total > 0 ? (parts[i] ?? 0) / total : 0.25;
  });
  return out;
}

/**
 * Recency from days since the last two-way contact, against the client's usual gap between
 * contacts: 100 up to max(7, 1.5·gap) days, then down to 0 over max(60, 3·gap) days. Without a
 * usual gap (fewer than 4 contact days in the lookback): 100 up to 7 days, 0 from day 67.
 */
function recencyValue(days: number | null, usualGap: number | null = null): number {
  if (days === null) return 0;
  const full = usualGap === null ? RECENCY_FULL_DAYS : Math.max(RECENCY_FULL_DAYS, 1.5 * usualGap);
  const fall = usualGap === null ? RECENCY_FALL_DAYS : Math.max(RECENCY_FALL_DAYS, 3 * usualGap);
  if (days <= full) return 100;
  return Math.max(0, 100 - ((days - full) * 100) / fall);
}

/** Decay weight of the sentiment of k days ago, 0.5^(k / half-life): computed once, not per scored day. */
const SENTIMENT_DECAY: readonly number[] = Array.from({ length: SENTIMENT_LOOKBACK_DAYS }, (_, k) => 0.5 ** (k / SENTIMENT_HALF_LIFE_DAYS));

/**
 * Scores day `i` of a client's history from that day's and earlier data only (at most
 * LOOKBACK_DAYS days back). `options.weights` are normalised.
 */
export function scoreDay(history: ClientHistory, i: number, options: ModelOptions): HealthResult {
  const { buckets, active } = history;
  const newest = lastActiveAtOrBefore(active, i);
  let wSum = 0;
  let wCount = 0;
  let recent30 = 0;
  let prior90 = 0;
  let n90 = 0;
  let outbound = 0;
  let ourReplies = 0;
  let ourHours = 0;
  let promptness = 0;
  let theirReplies = 0;
  let daysSinceContact: number | null = null;
  // The days with data in (i − LOOKBACK_DAYS, i], newest first.
  for (let p = newest; p >= 0; p--) {
    const k = i - active[p]!;
    if (k >= LOOKBACK_DAYS) break;
    const b = buckets[i - k]!;
    if (k < SENTIMENT_LOOKBACK_DAYS && b.sentimentCount !== 0) {
      const w = SENTIMENT_DECAY[k] ?? 0;
      wSum += w * b.sentimentSum;
      wCount += w * b.sentimentCount;
    }
    if (k < ENGAGEMENT_RECENT_DAYS) recent30 += b.engaged;
    else prior90 += b.engaged;
    if (k < 90) n90 += b.n;
    if (k < RESPONSIVENESS_DAYS) {
      outbound += b.outboundEmails;
      ourReplies += b.ourReplies;
      ourHours += b.ourReplyHours;
      promptness += b.ourReplyPromptness;
      theirReplies += b.theirReplies;
    }
    if (daysSinceContact === null && b.contacts > 0) daysSinceContact = k;
  }
  // A client silent for longer than the windows: how long, up to a year (recency and freshness).
  if (daysSinceContact === null) {
    for (let p = newest; p >= 0; p--) {
      const k = i - active[p]!;
      if (k >= CADENCE_DAYS) break;
      if (buckets[active[p]!]!.contacts > 0) {
        daysSinceContact = k;
        break;
      }
    }
  }
  const avgSentiment = wCount > 0 ? wSum / wCount : null;
  const risk = detectRisks(history, i, options.replySlaBusinessDays);
  const baseline30 = (prior90 * ENGAGEMENT_RECENT_DAYS) / ENGAGEMENT_BASELINE_DAYS;
  const ourReplyHours = ourReplies > 0 ? ourHours / ourReplies : null;
  const outreach = Math.max(0, outbound - ourReplies);
  const theirReplyRate = outreach > 0 ? Math.min(1, theirReplies / outreach) : null;

  // Our part: the mean promptness over our replies and the messages still waiting past the
  // service level (each counts 0). Their part: how often they answer our outreach.
  const waiting = risk.inputs.unanswered;
  const responsivenessParts: number[] = [];
  if (ourReplies + waiting > 0) responsivenessParts.push((100 * promptness) / (ourReplies + waiting));
  if (theirReplyRate !== null) responsivenessParts.push(100 * theirReplyRate);

  const values: Record<HealthComponent, number> = {
    sentiment: avgSentiment === null ? 50 : 50 * (avgSentiment + 1),
    engagement: 100 * Math.min(1, recent30 / Math.max(1, baseline30)),
    responsiveness: responsivenessParts.length ? responsivenessParts.reduce((a, b) => a + b, 0) / responsivenessParts.length : 50,
    recency: recencyValue(daysSinceContact, risk.inputs.usualGapDays),
  };
  // All history up to the day, counted only as far as the "barely known" bar.
  let known = history.knownBefore ?? 0;
  for (let p = 0; p < active.length && active[p]! <= i && known < MIN_KNOWN_CONTACTS; p++) known += buckets[active[p]!]!.contacts;
  const result = assemble(values, options.weights, risk.active, risk.inputs, {
    avgSentiment,
    recent30,
    baseline30,
    ourReplyHours,
    theirReplyRate,
    daysSinceContact,
    usualGapDays: risk.inputs.usualGapDays,
    n90,
    known,
  });
  // Too little data is not risk: a client we barely know scores at least neutral, with low
  // confidence, until it says or shows something (a risk signal); it may still score well.
  if (known < MIN_KNOWN_CONTACTS && result.risks.length === 0) {
    const confidence = Math.min(result.confidence, THIN_CONFIDENCE);
    return result.score < DEFAULT_SCORE ? { ...result, score: DEFAULT_SCORE, confidence, thin: true } : { ...result, confidence };
  }
  return result;
}

/**
 * The score a stored day would have had under other weights: the same components and risk signals
 * (the weights change neither), weighed anew, capped by the risk that holds, and lifted to the
 * neutral score for a client we barely know, as scoreDay does. The learner (metrics/learn.ts)
 * judges candidate weights on stored history with it, without a rebuild. `weights` sum to 1.
 */
export function scoreWithWeights(c: StoredComponents, weights: Record<HealthComponent, number>): number {
  let weighted = 0;
  for (const k of HEALTH_COMPONENTS) weighted += (c[k]?.value ?? 50) * weights[k];
  if (c.risk) return round1(Math.min(weighted, c.risk.cap));
  const known = c.inputs?.known;
  if (known !== undefined && known < MIN_KNOWN_CONTACTS) return round1(Math.max(weighted, DEFAULT_SCORE));
  return round1(weighted);
}

/** Whether a result was lifted to the neutral score for lack of data (a client we barely know). */
export function isThin(r: HealthResult): boolean {
  return r.thin === true;
}

function assemble(
  values: Record<HealthComponent, number>,
  weights: Record<HealthComponent, number>,
  risks: ActiveRisk[],
  riskInputs: RiskInputs,
  inputs: HealthInputs,
): HealthResult {
  const components = {} as Record<HealthComponent, ComponentScore>;
  let weighted = 0;
  for (const c of HEALTH_COMPONENTS) {
    const contribution = values[c] * weights[c];
    weighted += contribution;
    components[c] = { value: round1(values[c]), weight: round(weights[c], 4), contribution: round2(contribution) };
  }
  // A risk signal caps the score while it holds: a client who says they will leave is at risk
  // however warm the rest of its mail, and however much it writes.
  const top = risks[0];
  const score = round1(top ? Math.min(weighted, top.cap) : weighted);
  // The risk is kept whether or not its cap binds (a client already below it is still one that
  // says it will leave); `points` is what the cap takes, 0 when it does not bind.
  const risk: StoredRisk | null = top
    ? {
        code: top.code,
        cap: top.cap,
        points: top.cap < weighted ? round2(score - sumContributions(components)) : 0,
        text: top.text,
        interactionIds: top.interactionIds,
      }
    : null;
  const dataConfidence = Math.min(1, inputs.n90 / CONFIDENCE_FULL_COUNT);
  const d = inputs.daysSinceContact;
  const freshness = d === null ? 0 : d <= 30 ? 1 : Math.max(0, 1 - (d - 30) / 60);
  return { score, confidence: round2(dataConfidence * freshness), components, risks, risk, inputs, riskInputs };
}

function sumContributions(c: Record<HealthComponent, ComponentScore>): number {
  return HEALTH_COMPONENTS.reduce((s, k) => s + c[k].contribution, 0);
}

/** The documented default for a client without interactions. */
export function defaultResult(weights: Record<HealthComponent, number>): HealthResult {
  const values = { sentiment: 50, engagement: 50, responsiveness: 50, recency: 50 };
  const inputs: HealthInputs = {
    avgSentiment: null,
    recent30: 0,
    baseline30: 0,
    ourReplyHours: null,
    theirReplyRate: null,
    daysSinceContact: null,
    usualGapDays: null,
    n90: 0,
  };
  const r = assemble(values, weights, [], emptyRiskInputs(), inputs);
  return { ...r, score: DEFAULT_SCORE, confidence: 0 };
}

function emptyRiskInputs(): RiskInputs {
  return {
    churnMessages: 0,
    negative14: 0,
    negativeContacts14: 0,
    unanswered: 0,
    oldestWaitingDays: null,
    usualGapDays: null,
    ourReplyHours28: null,
    ourReplyHoursBefore: null,
    followUps21: 0,
    tone21: null,
    toneBefore: null,
  };
}

const MOVES: Record<HealthComponent, { down: ReasonCode; up: ReasonCode; downText: string; upText: string }> = {
  sentiment: {
    down: 'sentiment_declining',
    up: 'sentiment_improving',
    downText: 'the tone of recent interactions turned more negative',
    upText: 'the tone of recent interactions improved',
  },
  engagement: {
    down: 'engagement_dropped',
    up: 'engagement_rose',
    downText: 'two-way exchange fell against its usual level',
    upText: 'two-way exchange rose against its usual level',
  },
  responsiveness: {
    down: 'slower_replies',
    up: 'faster_replies',
    downText: 'replies became slower or rarer',
    upText: 'replies became faster or more frequent',
  },
  recency: { down: 'no_recent_contact', up: 'contact_resumed', downText: 'there has been no recent two-way contact', upText: 'two-way contact resumed' },
};

/** Components as stored in a snapshot (contributions explain a change; `risk` the cap). */
export type StoredComponents = Partial<Record<HealthComponent, { contribution?: number; value?: number; weight?: number }>> & {
  risk?: StoredRisk | null;
  /** The raw figures (`HealthInputs`); `daysSinceContact` is read back to say how long, `known` to tell a client we barely know. */
  inputs?: { daysSinceContact?: number | null; known?: number };
  /** The learned model that scored the day (health/models.ts); absent: the hand-written weights. */
  model?: number;
};

const CHANGE_KEYS: readonly ChangeKey[] = [...HEALTH_COMPONENTS, 'risk'];

const isNumberOrAbsent = (x: unknown) => x === undefined || typeof x === 'number';

function isStoredRisk(x: unknown): x is StoredRisk {
  return (
    isRecord(x) &&
    (RISK_CODES as readonly unknown[]).includes(x.code) &&
    typeof x.cap === 'number' &&
    typeof x.points === 'number' &&
    typeof x.text === 'string' &&
    Array.isArray(x.interactionIds) &&
    x.interactionIds.every((id) => typeof id === 'string')
  );
}

/** The guard of a snapshot's stored components (health_snapshots.components_json). */
function isStoredComponents(v: unknown): v is StoredComponents {
  if (!isRecord(v)) return false;
  const part = (x: unknown) => x === undefined || (isRecord(x) && isNumberOrAbsent(x.contribution) && isNumberOrAbsent(x.value) && isNumberOrAbsent(x.weight));
  return HEALTH_COMPONENTS.every((c) => part(v[c])) && (v.risk === undefined || v.risk === null || isStoredRisk(v.risk)) && isNumberOrAbsent(v.model);
}

/** A snapshot's stored components, checked. */
export function readStoredComponents(value: unknown): StoredComponents {
  if (!isStoredComponents(value)) throw new ChsError('INTERNAL', "a health snapshot's components do not have the expected shape");
  return value;
}

/**
 * Explains a move from `prev` to `cur`: the score change is the sum of the contribution changes
 * and of the change of the points a risk takes; the driver is what moved most in the direction
 * of the total. A risk that holds is the reason even on a day the score did not move: it is why
 * the score is where it is.
 */
export function explainChange(prevScore: number | null, prev: StoredComponents | null, curScore: number, cur: StoredComponents): Explanation {
  const changes = {} as Record<ChangeKey, number>;
  for (const c of HEALTH_COMPONENTS) changes[c] = round2((cur[c]?.contribution ?? 0) - (prev?.[c]?.contribution ?? 0));
  changes.risk = round2((cur.risk?.points ?? 0) - (prev?.risk?.points ?? 0));
  const risk = cur.risk ?? null;
  if (prevScore === null || prev === null) {
    if (risk)
      return { reason: risk.code, text: `First score: ${curScore.toFixed(1)}: ${risk.text}.`, changes, driver: 'risk', interactionIds: risk.interactionIds };
    return { reason: 'stable', text: `First score: ${curScore.toFixed(1)}.`, changes, driver: null };
  }
  const delta = round1(curScore - prevScore);
  if (Math.abs(delta) < STABLE_BELOW) {
    if (risk)
      return {
        reason: risk.code,
        text: `Score ${curScore.toFixed(1)} (${signed(delta)} points): ${risk.text}.`,
        changes,
        driver: null,
        interactionIds: risk.interactionIds,
      };
    return { reason: 'stable', text: `Score stable at ${curScore.toFixed(1)} (${signed(delta)} points).`, changes, driver: null };
  }
  let driver: ChangeKey = 'sentiment';
  let best = -Infinity;
  for (const c of CHANGE_KEYS) {
    const moved = delta < 0 ? -changes[c] : changes[c];
    if (moved > best) {
      best = moved;
      driver = c;
    }
  }
  const head = `Score ${delta < 0 ? 'fell' : 'rose'} ${Math.abs(delta).toFixed(1)} points (${prevScore.toFixed(1)} → ${curScore.toFixed(1)})`;
  if (delta < 0 && risk) {
    // A fall while a risk holds: the risk is the news, whatever the components did the same day.
    return { reason: risk.code, text: `${head}: ${risk.text}.`, changes, driver: 'risk', interactionIds: risk.interactionIds };
  }
  if (driver === 'risk' && risk) {
    // One risk gave way to a milder one that still holds: that one is where the client stands.
    const eased = prev.risk ? `${RISK_LABEL[prev.risk.code]} eased` : 'a risk eased';
    return { reason: risk.code, text: `${head}: ${eased}, but ${risk.text}.`, changes, driver, interactionIds: risk.interactionIds };
  }
  if (driver === 'risk') {
    const eased = prev.risk;
    const what = eased ? RISK_LABEL[eased.code] : 'a risk signal';
    return { reason: 'risk_eased', text: `${head}, mostly because ${what} no longer holds as it did.`, changes, driver };
  }
  const m = MOVES[driver];
  const parts = CHANGE_KEYS.filter((c) => changes[c] !== 0).map((c) => `${c} ${signed(changes[c])}`);
  const tail = risk ? ` It is still held down: ${risk.text}.` : '';
  return {
    reason: delta < 0 ? m.down : m.up,
    text: `${head}, mostly because ${delta < 0 ? m.downText : m.upText} (${parts.join(', ')}).${tail}`,
    changes,
    driver,
    ...(risk ? { interactionIds: risk.interactionIds } : {}),
  };
}

/** Plain words for each risk, as "X no longer holds". */
const RISK_LABEL: Record<RiskCode, string> = {
  churn_intent: 'their stated intent to leave',
  escalation: 'the escalation',
  unanswered: 'the wait for our reply',
  gone_quiet: 'their silence',
  slow_replies: 'our slow replies',
  negative_tone: 'their negative tone',
};

const WEAKNESS: Record<HealthComponent, { code: WeaknessCode; text: string }> = {
  sentiment: { code: 'low_sentiment', text: 'the tone of recent interactions is negative' },
  engagement: { code: 'low_engagement', text: 'two-way exchange is low against its usual level' },
  responsiveness: { code: 'slow_responses', text: 'replies are slow or rare' },
  recency: { code: 'no_recent_contact', text: 'there has been no recent two-way contact' },
};

/**
 * The order in which components are weighed as "the" weakness when they cost the same points:
 * silence first (a client nobody has heard from is the plainest fact), tone last.
 */
const WEAKNESS_ORDER: readonly HealthComponent[] = ['recency', 'engagement', 'responsiveness', 'sentiment'];

/** The sentence for a weak component, with the figure a reader checks first when there is one. */
function weaknessText(c: HealthComponent, cur: StoredComponents): string {
  if (c !== 'recency') return WEAKNESS[c].text;
  const d = cur.inputs?.daysSinceContact;
  if (typeof d === 'number') return `there has been no two-way contact for ${d} days`;
  return cur.recency?.value === 0 ? `there has been no two-way contact in the last ${LOOKBACK_DAYS} days` : WEAKNESS.recency.text;
}

/**
 * Why a score is low when it did not move: the risk that caps it, else the component that
 * loses the most points. A sentiment of 50 or more is neutral (or no words at all), never "a
 * negative tone": only a component below its neutral point can be called one.
 */
export function explainWeakness(score: number, cur: StoredComponents | null): { reason: WeaknessCode; text: string; interactionIds?: string[] } {
  if (!cur) return { reason: 'no_data', text: `No interactions yet: default score ${score.toFixed(1)}.` };
  if (cur.risk) return { reason: cur.risk.code, text: `Score ${score.toFixed(1)}: ${cur.risk.text}.`, interactionIds: cur.risk.interactionIds };
  let worst: HealthComponent | null = null;
  let lost = 0;
  for (const c of WEAKNESS_ORDER) {
    const v = cur[c];
    if (!v || v.value === undefined || v.weight === undefined) continue;
    if (c === 'sentiment' && v.value >= 50) continue;
    // Points lost against a perfect 100 on this component.
    const l = (100 - v.value) * v.weight;
    if (l > lost) {
      lost = l;
      worst = c;
    }
  }
  // Nothing below its best but a tone that is not negative: nothing to name.
  if (worst === null) return { reason: 'stable', text: `Score ${score.toFixed(1)}: no risk signal holds and nothing weighs it down.` };
  return { reason: WEAKNESS[worst].code, text: `Score ${score.toFixed(1)}: ${weaknessText(worst, cur)}.` };
}

/** A risk signal as kept in a snapshot's components. */
export interface StoredSignal {
  code: string;
  text: string;
  interactionIds: string[];
}

function isStoredSignal(x: unknown): x is StoredSignal {
  if (typeof x !== 'object' || x === null) return false;
  const o = x as Record<string, unknown>;
  return typeof o.code === 'string' && typeof o.text === 'string' && Array.isArray(o.interactionIds) && o.interactionIds.every((id) => typeof id === 'string');
}

/**
 * Every signal that holds in a snapshot's parsed components, most severe first: `risk` (the one
 * that caps the score) and then `signals` (the others). Entries of another shape are left out.
 */
export function storedSignals(components: unknown): StoredSignal[] {
  if (typeof components !== 'object' || components === null) return [];
  const { risk, signals } = components as { risk?: unknown; signals?: unknown };
  const all = [...(risk === null || risk === undefined ? [] : [risk]), ...(Array.isArray(signals) ? (signals as unknown[]) : [])];
  return all.filter(isStoredSignal).map((x) => ({ code: x.code, text: x.text, interactionIds: x.interactionIds }));
}

/**
 * Why a client's score is where it is now, for lists such as topRisks, renewals and digests: a
 * risk signal that holds (a stated intent to leave, mail left waiting…), whatever else moved;
 * otherwise the move since `prev` when it moved, else the weakest component.
 */
export function explainStanding(
  score: number,
  cur: StoredComponents | null,
  prev: { score: number; components: StoredComponents } | null,
): { code: string; text: string } {
  if (cur && prev && !cur.risk && Math.abs(score - prev.score) >= STABLE_BELOW) {
    const ex = explainChange(prev.score, prev.components, score, cur);
    return { code: ex.reason, text: ex.text };
  }
  const w = explainWeakness(score, cur);
  return { code: w.reason, text: w.text };
}

function signed(x: number): string {
  return `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(1)}`;
}
