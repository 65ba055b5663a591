/**
 * The backtest (issue 27): did the health score see the churns coming? For each recorded renewal
 * outcome (clients/outcomes.ts), the score the client had N days before it, read from the stored
 * daily history only: the snapshot of that very day, which the rebuild computed from what was
 * known by then (nothing after the cut-off is read). Against what happened: ROC AUC, precision and
 * recall of "at risk" (score under the workspace's threshold), the lift of the riskiest tenth, a
 * calibrated churn probability's Brier score and reliability, and how long before each churn the
 * client had been red without a break (`chs health backtest`, `GET /metrics/backtest`).
 *
 * Only `churned` counts as a churn; a downgrade is counted apart and taken as kept.
 */
import type { Db } from '../store/database.js';
import { getSettings } from '../settings/settings.js';
import { addDays } from '../util/time.js';
import { chunks } from '../util/lists.js';
import { ChsError } from '../errors.js';
import { listWorkspaceOutcomes, type Outcome } from '../clients/outcomes.js';
import { readComponentsOn } from '../health/snapshots.js';
import { storedSignals } from '../health/model.js';
import {
  brierScore,
  liftTopDecile,
  median,
  outOfFoldProbabilities,
  reliability,
  rocAuc,
  rocCurve,
  type ReliabilityBin,
  type Scored,
} from './backtest-stats.js';

/** Horizons (days before the outcome) always reported, besides the one asked. */
export const BACKTEST_HORIZONS = [30, 60, 90] as const;
export const DEFAULT_BACKTEST_DAYS = 60;
/** The lead time the report counts churns against ("red at least 45 days before"). */
export const LEAD_TIME_GOAL_DAYS = 45;
/** How far back from a churn its red run is followed. */
const LEAD_LOOKBACK_DAYS = 730;

export interface BacktestOptions {
  /** Days before each outcome its score is read (1-365). Default DEFAULT_BACKTEST_DAYS. */
  days?: number;
  /** Score below which a client is at risk. Default: the workspace setting. */
  riskThreshold?: number;
}

export interface BacktestHorizon {
  days: number;
  /** Outcomes with a stored score N days before them. */
  outcomes: number;
  churned: number;
  downgraded: number;
  renewed: number;
  /** Outcomes without a score then (the client was not tracked yet, or its history was pruned). */
  withoutHistory: number;
  /** Chance a churning client scored lower than a kept one N days before; null without both. */
  auc: number | null;
  /** The outcomes flagged at risk N days before. */
  flagged: number;
  /** Of those flagged, the share that churned; null when none was. */
  precision: number | null;
  /** Of the churns, the share flagged; null without a churn. */
  recall: number | null;
  /** Churn rate of the riskiest tenth over the churn rate of all; null without a churn. */
  liftTopDecile: number | null;
  /** Of the churn probability calibrated on the score (out of fold, oldest first): 0 perfect, 0.25 a coin; null when empty. */
  brier: number | null;
  reliability: ReliabilityBin[];
  roc: Array<{ fpr: number; tpr: number }>;
}

export interface BacktestChurn {
  clientId: string;
  date: string;
  /** Its score N days before (the requested horizon); null without one. */
  scoreBefore: number | null;
  /** The risk signals that held then (a stated intent to leave, an escalation…), most severe first; empty without a score then. */
  signalsBefore: string[];
  /** Days it had been at risk without a break before the churn (0 when it was not at risk the day before). */
  leadTimeDays: number;
}

export interface BacktestReport extends BacktestHorizon {
  threshold: number;
  /** Median of the churns' lead times; null without a churn. */
  leadTimeDaysMedian: number | null;
  /** Churns whose client had been at risk at least LEAD_TIME_GOAL_DAYS days before. */
  churnsRedAtLeast45Days: number;
  churns: BacktestChurn[];
  /** The same figures 30, 60 and 90 days before (and at `days`), shortest first. */
  horizons: BacktestHorizon[];
  /** What it says, in words. */
  summary: string;
}

/** The day `days` before a YYYY-MM-DD day. */
export const dayBefore = (date: string, days: number): string =>
  addDays(new Date(`${date}T00:00:00Z`), -days)
    .toISOString()
    .slice(0, 10);
const round = (x: number | null, places = 3): number | null => (x === null ? null : Math.round(x * 10 ** places) / 10 ** places);

export async function runBacktest(db: Db, workspaceId: string, options: BacktestOptions = {}): Promise<BacktestReport> {
  const days = options.days ?? DEFAULT_BACKTEST_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > 365) throw new ChsError('INVALID_INPUT', `days must be an integer from 1 to 365, got ${days}`);
  const threshold = options.riskThreshold ?? (await getSettings(db, workspaceId)).riskThreshold;
  const outcomes = await listWorkspaceOutcomes(db, workspaceId);
  const horizons = [...new Set([...BACKTEST_HORIZONS, days])].sort((a, b) => a - b);

  // Each outcome's client's daily scores, from the earliest day any horizon or red run reads to the
  // day before its last outcome: nothing on or after an outcome's day is used for it.
  const scores = new Map<string, Map<string, number>>();
  const byClient = new Map<string, string[]>();
  for (const o of outcomes) {
    const dates = byClient.get(o.clientId);
    if (dates) dates.push(o.date);
    else byClient.set(o.clientId, [o.date]);
  }
  for (const part of chunks([...byClient.keys()], 200)) {
    const dates = part.flatMap((c) => byClient.get(c)!);
    const first = dayBefore(
      dates.reduce((m, d) => (d < m ? d : m)),
      Math.max(LEAD_LOOKBACK_DAYS, ...horizons),
    );
    const last = dates.reduce((m, d) => (d > m ? d : m));
    const rows = await db
      .selectFrom('health_snapshots')
      .select(['client_id', 'date', 'score'])
      .where('client_id', 'in', part)
      .where('date', '>=', first)
      .where('date', '<', last)
      .execute();
    for (const r of rows) {
      let m = scores.get(r.client_id);
      if (!m) scores.set(r.client_id, (m = new Map<string, number>()));
      m.set(r.date, Number(r.score));
    }
  }
  const scoreOn = (clientId: string, date: string): number | null => scores.get(clientId)?.get(date) ?? null;
  // Days a client had been at risk without a break before `date` (0 when not the day before).
  const redRun = (clientId: string, date: string): number => {
    let lead = 0;
    for (let d = 1; d <= LEAD_LOOKBACK_DAYS; d++) {
      const s = scoreOn(clientId, dayBefore(date, d));
      if (s === null || s >= threshold) break;
      lead = d;
    }
    return lead;
  };

  const horizon = (n: number): BacktestHorizon => {
    const points: Scored[] = [];
    const kinds: Outcome[] = [];
    let withoutHistory = 0;
    // listWorkspaceOutcomes gives them oldest first: the calibration's folds are by time.
    for (const o of outcomes) {
      const s = scoreOn(o.clientId, dayBefore(o.date, n));
      if (s === null) {
        withoutHistory++;
        continue;
      }
      points.push({ risk: 100 - s, positive: o.outcome === 'churned' });
      kinds.push(o.outcome);
    }
    const churned = points.filter((p) => p.positive).length;
    const flaggedPoints = points.filter((p) => 100 - p.risk < threshold);
    const probabilities = outOfFoldProbabilities(points);
    return {
      days: n,
      outcomes: points.length,
      churned,
      downgraded: kinds.filter((k) => k === 'downgraded').length,
      renewed: kinds.filter((k) => k === 'renewed').length,
      withoutHistory,
      auc: round(rocAuc(points)),
      flagged: flaggedPoints.length,
      precision: flaggedPoints.length === 0 ? null : round(flaggedPoints.filter((p) => p.positive).length / flaggedPoints.length),
      recall: churned === 0 ? null : round(flaggedPoints.filter((p) => p.positive).length / churned),
      liftTopDecile: round(liftTopDecile(points), 2),
      brier: round(brierScore(probabilities, points), 4),
      reliability: reliability(probabilities, points).map((b) => ({ ...b, predicted: round(b.predicted), observed: round(b.observed) })),
      roc: rocCurve(points).map((p) => ({ fpr: round(p.fpr)!, tpr: round(p.tpr)! })),
    };
  };

  const all = horizons.map(horizon);
  const asked = all.find((h) => h.days === days)!;
  const churned = outcomes.filter((o) => o.outcome === 'churned');
  const atCutoff = await readComponentsOn(
    db,
    churned.map((o) => ({ clientId: o.clientId, date: dayBefore(o.date, days) })),
  );
  const churns: BacktestChurn[] = churned.map((o) => ({
    clientId: o.clientId,
    date: o.date,
    scoreBefore: scoreOn(o.clientId, dayBefore(o.date, days)),
    signalsBefore: storedSignals(atCutoff.get(`${o.clientId} ${dayBefore(o.date, days)}`) ?? null).map((x) => x.code),
    leadTimeDays: redRun(o.clientId, o.date),
  }));
  const leadTimes = churns.map((c) => c.leadTimeDays);
  const early = leadTimes.filter((d) => d >= LEAD_TIME_GOAL_DAYS).length;
  return {
    ...asked,
    threshold,
    leadTimeDaysMedian: median(leadTimes),
    churnsRedAtLeast45Days: early,
    churns,
    horizons: all,
    summary: sentence(asked, churns.length, early),
  };
}

function sentence(h: BacktestHorizon, churns: number, early: number): string {
  if (h.outcomes + h.withoutHistory === 0)
    return 'No renewal outcomes recorded yet: import them (chs outcomes import) to see how well the score predicted churn.';
  const parts = [
    churns === 0
      ? `None of the ${h.outcomes + h.withoutHistory} recorded renewals churned.`
      : churns === 1
        ? `The one client that churned ${early === 1 ? 'was' : 'was not'} at risk (red) at least ${LEAD_TIME_GOAL_DAYS} days before without a break.`
        : `Of the ${churns} clients that churned, ${early} ${early === 1 ? 'was' : 'were'} at risk (red) at least ${LEAD_TIME_GOAL_DAYS} days before without a break.`,
  ];
  if (h.auc !== null)
    parts.push(
      `${h.days} days before a renewal, a client that went on to churn scored lower than one that stayed ${Math.round(h.auc * 100)} % of the time (AUC ${h.auc.toFixed(2)}).`,
    );
  if (h.recall !== null && h.precision !== null)
    parts.push(`Flagged at risk then: ${Math.round(h.recall * 100)} % of the churns, and ${Math.round(h.precision * 100)} % of the flagged churned.`);
  if (h.withoutHistory > 0) parts.push(`${h.withoutHistory} outcome(s) had no score ${h.days} days before and are left out.`);
  return parts.join(' ');
}
