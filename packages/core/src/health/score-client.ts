/**
 * Scores one client's days from its history: a snapshot row per day from its first rebuilt day
 * to today, each with its components, risk signals, confidence, the reason it moved and the
 * interactions that show why.
 */
import {
  MIN_KNOWN_CONTACTS,
  explainChange,
  isThin,
  scoreDay,
  type ClientHistory,
  type HealthResult,
  type ModelOptions,
  type StoredComponents,
} from './model.js';

/** A client-day as the rebuild makes it; health/write.ts stores it in compact form. */
export interface SnapshotRow {
  workspace_id: string;
  client_id: string;
  date: string;
  score: number;
  confidence: number;
  /** The components, risks and raw figures (docs/health-model.md lists the keys). */
  components: StoredComponents & { signals?: unknown[]; inputs?: Record<string, number | null> };
  reason: string | null;
  reason_text: string | null;
  /** The move explained: `{from, to, changes, driver, day, interactionIds}`. */
  evidence: Record<string, unknown> | null;
}

export interface ClientDays {
  workspaceId: string;
  clientId: string;
  history: ClientHistory;
  /** Day labels of the history's buckets. */
  days: readonly string[];
  /** Index of the client's first day with data, and of the first day to write. */
  firstIdx: number;
  startIdx: number;
}

/** The snapshot rows of days startIdx..end and the last day's result. */
export function scoreClientDays(c: ClientDays, options: ModelOptions): { rows: SnapshotRow[]; last: HealthResult | null } {
  const { history, days } = c;
  const buckets = history.buckets;
  const endIdx = buckets.length - 1;
  let prev: HealthResult | null = c.startIdx - 1 >= c.firstIdx ? scoreDay(history, c.startIdx - 1, options) : null;
  let lastActive = -1;
  for (let k = c.startIdx; k >= 0; k--) {
    if ((buckets[k]?.n ?? 0) > 0) {
      lastActive = k;
      break;
    }
  }
  const rows: SnapshotRow[] = [];
  let current: HealthResult | null = null;
  let prevStored: StoredComponents | null = prev ? storedOf(prev) : null;
  for (let i = c.startIdx; i <= endIdx; i++) {
    if ((buckets[i]?.n ?? 0) > 0) lastActive = i;
    current = scoreDay(history, i, options);
    // One object per day: the components and risk as stored, which also explain tomorrow's move.
    const stored = storedOf(current, options.model);
    const ex = explainChange(prev?.score ?? null, prevStored, current.score, stored);
    if (isThin(current)) {
      const n = current.inputs.known ?? 0;
      ex.reason = 'no_data';
      ex.text = `Not enough data: ${n === 0 ? 'nothing' : n === 1 ? 'one message' : `${n} messages`} from them so far; scored neutral (${current.score.toFixed(1)}) until there are ${MIN_KNOWN_CONTACTS} or a risk shows.`;
    }
    // A risk names its own evidence (the messages that show it); otherwise the latest day's most
    // telling interactions.
    const evidenceIds = ex.interactionIds ?? (lastActive >= 0 ? (buckets[lastActive]?.topIds ?? []) : []);
    rows.push({
      workspace_id: c.workspaceId,
      client_id: c.clientId,
      date: days[i]!,
      score: current.score,
      confidence: current.confidence,
      components: stored,
      reason: ex.reason,
      reason_text: ex.text,
      evidence: {
        from: prev?.score ?? null,
        to: current.score,
        changes: ex.changes,
        driver: ex.driver,
        day: lastActive >= 0 ? (days[lastActive] ?? null) : null,
        interactionIds: evidenceIds,
      },
    });
    prev = current;
    prevStored = stored;
  }
  return { rows, last: current };
}

/** A day's result as a snapshot keeps it (components_json); docs/health-model.md lists the keys. */
function storedOf(r: HealthResult, model?: number): StoredComponents & { signals?: unknown[]; inputs: Record<string, number | null> } {
  const c = r.components;
  return {
    sentiment: c.sentiment,
    engagement: c.engagement,
    responsiveness: c.responsiveness,
    recency: c.recency,
    risk: r.risk,
    // The other signals that hold besides `risk` (the most severe), so none is written twice;
    // absent when none does (most days).
    ...(r.risks.length > 1 ? { signals: r.risks.slice(1).map((x) => ({ code: x.code, cap: x.cap, text: x.text, interactionIds: x.interactionIds })) } : {}),
    inputs: roundInputs(r),
    // Only a learned model is named: the hand-written weights' days are as they always were.
    ...(model === undefined ? {} : { model }),
  };
}

const r3 = (v: number | null): number | null => (v === null ? null : Math.round(v * 1000) / 1000);

function roundInputs(r: HealthResult): Record<string, number | null> {
  const x = r.inputs;
  const out: Record<string, number | null> = {
    avgSentiment: r3(x.avgSentiment),
    recent30: x.recent30,
    baseline30: r3(x.baseline30),
    ourReplyHours: r3(x.ourReplyHours),
    theirReplyRate: r3(x.theirReplyRate),
    daysSinceContact: x.daysSinceContact,
    n90: x.n90,
  };
  if (x.known !== undefined && x.known < MIN_KNOWN_CONTACTS) out.known = x.known;
  // The risk figures only where they say something: most days they are all 0 or null, and this
  // document is written once per client and day.
  const k = r.riskInputs;
  if (k.churnMessages !== 0) out.churnMessages = k.churnMessages;
  if (k.negative14 !== 0) out.negative14 = k.negative14;
  if (k.negativeContacts14 !== 0) out.negativeContacts14 = k.negativeContacts14;
  if (k.unanswered !== 0) out.unanswered = k.unanswered;
  if (k.oldestWaitingDays !== null && k.oldestWaitingDays !== 0) out.oldestWaitingDays = k.oldestWaitingDays;
  if (k.usualGapDays !== null && k.usualGapDays !== 0) out.usualGapDays = k.usualGapDays;
  if (k.ourReplyHours28 !== null && k.ourReplyHours28 !== 0) out.ourReplyHours28 = k.ourReplyHours28;
  if (k.ourReplyHoursBefore !== null && k.ourReplyHoursBefore !== 0) out.ourReplyHoursBefore = k.ourReplyHoursBefore;
  if (k.followUps21 !== 0) out.followUps21 = k.followUps21;
  if (k.tone21 !== null && k.tone21 !== 0) out.tone21 = k.tone21;
  if (k.toneBefore !== null && k.toneBefore !== 0) out.toneBefore = k.toneBefore;
  return out;
}
