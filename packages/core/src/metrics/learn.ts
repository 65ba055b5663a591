/**
 * Learned weights (issue 27): a ridge logistic regression of "churned" on what the score knew N
 * days before each renewal — its four components and the risk signals that held — read from the
 * stored history only, as the backtest reads it. The components' coefficients become weights
 * (a component whose higher value went with fewer churns weighs more), kept within
 * [MIN_WEIGHT, MAX_WEIGHT] so that no part of the score is dropped or rules it alone; the risk
 * signals keep capping the score as written (the regression weighs them so that the components'
 * weights are not credited with what a signal said).
 *
 * Cross-validation by time: the renewals, oldest first, in FOLDS blocks; each later block is scored
 * by weights fitted on the blocks before it only, and by the hand-written weights; the two AUCs
 * over every held-out block decide. The model is offered only when its AUC there is higher (by
 * MIN_AUC_GAIN), and
 * saved either way (health/models.ts) so the team sees what was tried. It is fitted on all the
 * renewals for use, with a churn probability calibrated on its score (and the hand-written
 * weights' on theirs, for the summary's probability while no learned model is applied).
 */
import type { Db } from '../store/database.js';
import { ChsError } from '../errors.js';
import { getSettings } from '../settings/settings.js';
import { listWorkspaceOutcomes } from '../clients/outcomes.js';
import { readComponentsOn } from '../health/snapshots.js';
import { HEALTH_COMPONENTS, normaliseWeights, scoreWithWeights, storedSignals, type HealthComponent, type StoredComponents } from '../health/model.js';
import { RISK_CODES } from '../health/signals.js';
import { saveHealthModel, type Calibration, type HealthModelFit, type HealthModelView } from '../health/models.js';
import { fitLogistic, fitRidgeLogistic, rocAuc, type Scored } from './backtest-stats.js';
import { DEFAULT_BACKTEST_DAYS, dayBefore } from './backtest.js';

/** The fewest renewals (with a score N days before) and churns among them a fit needs. */
export const MIN_LEARN_OUTCOMES = 30;
export const MIN_LEARN_CHURNS = 8;
/** Bounds of each learned weight (the weights sum to 1). */
export const MIN_WEIGHT = 0.05;
export const MAX_WEIGHT = 0.6;
/** Blocks of renewals, oldest first, of the cross-validation by time. */
const FOLDS = 5;
/**
 * How much higher than the hand-written weights' the learned weights' held-out AUC must be for
 * them to be offered: on a few hundred renewals a smaller gain is noise, not a better model.
 */
export const MIN_AUC_GAIN = 0.01;
/** Ridge penalty: with features on a 0-1 scale, it keeps a dozen coefficients sane on a few dozen renewals. */
const LAMBDA = 1;

export interface LearnOptions {
  /** Days before each renewal the score is read (1-365). Default 60, as the backtest's. */
  days?: number;
  now?: Date;
}

export interface LearnResult {
  /** The stored model: `offered` when it beat the hand-written weights on the later renewals, else `rejected`. */
  model: HealthModelView;
  /** What it says, in words. */
  summary: string;
}

interface Row {
  churned: boolean;
  components: StoredComponents;
  features: number[];
}

const FEATURES = [...HEALTH_COMPONENTS, ...RISK_CODES] as const;

const r4 = (x: number): number => Math.round(x * 10_000) / 10_000;

export async function learnHealthModel(db: Db, workspaceId: string, options: LearnOptions = {}): Promise<LearnResult> {
  const days = options.days ?? DEFAULT_BACKTEST_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > 365) throw new ChsError('INVALID_INPUT', `days must be an integer from 1 to 365, got ${days}`);
  const now = options.now ?? new Date();
  const baseline = normaliseWeights((await getSettings(db, workspaceId)).healthWeights);
  const outcomes = await listWorkspaceOutcomes(db, workspaceId);

  // What each client's score knew `days` before each renewal (oldest renewal first).
  const rows: Row[] = [];
  const dates: string[] = [];
  const known = await readComponentsOn(
    db,
    outcomes.map((o) => ({ clientId: o.clientId, date: dayBefore(o.date, days) })),
  );
  for (const o of outcomes) {
    const c = known.get(`${o.clientId} ${dayBefore(o.date, days)}`);
    if (!c) continue;
    rows.push({ churned: o.outcome === 'churned', components: c, features: featuresOf(c) });
    dates.push(o.date);
  }
  const churned = rows.filter((r) => r.churned).length;
  if (rows.length < MIN_LEARN_OUTCOMES || churned < MIN_LEARN_CHURNS)
    throw new ChsError(
      'CONFLICT',
      `learning weights needs at least ${MIN_LEARN_OUTCOMES} renewal outcomes with a score ${days} days before them, ${MIN_LEARN_CHURNS} of them churns; ` +
        `this workspace has ${rows.length} with ${churned} churn(s): record more outcomes (chs outcomes import)`,
    );

  // Cross-validation by time: block f is scored by weights fitted on blocks 0..f-1.
  const heldLearned: Scored[] = [];
  const heldDefault: Scored[] = [];
  let folds = 0;
  for (let f = 1; f < FOLDS; f++) {
    const from = Math.floor((f * rows.length) / FOLDS);
    const to = Math.floor(((f + 1) * rows.length) / FOLDS);
    const fit = fitWeights(rows.slice(0, from));
    if (!fit) continue;
    folds++;
    for (const r of rows.slice(from, to)) {
      heldLearned.push({ risk: 100 - scoreWithWeights(r.components, fit.weights), positive: r.churned });
      heldDefault.push({ risk: 100 - scoreWithWeights(r.components, baseline), positive: r.churned });
    }
  }
  const all = fitWeights(rows);
  if (!all) throw new ChsError('CONFLICT', 'the renewal outcomes could not be fitted (they do not vary enough): record more outcomes');
  const aucLearned = rocAuc(heldLearned);
  const aucDefault = rocAuc(heldDefault);
  const fit: HealthModelFit = {
    horizonDays: days,
    outcomes: rows.length,
    churned,
    from: dates[0]!,
    to: dates.at(-1)!,
    weights: all.weights,
    intercept: r4(all.intercept),
    coefficients: Object.fromEntries(FEATURES.map((name, j) => [name, r4(all.coefficients[j]!)])),
    lambda: LAMBDA,
    heldOut: {
      outcomes: heldLearned.length,
      churned: heldLearned.filter((p) => p.positive).length,
      folds,
      aucLearned: aucLearned === null ? null : r4(aucLearned),
      aucDefault: aucDefault === null ? null : r4(aucDefault),
    },
    calibration: calibrate(rows, all.weights),
    baseline: { weights: baseline, calibration: calibrate(rows, baseline) },
  };
  const earned = aucLearned !== null && aucDefault !== null && aucLearned >= aucDefault + MIN_AUC_GAIN;
  const model = await saveHealthModel(db, workspaceId, fit, earned ? 'offered' : 'rejected', now);
  return { model, summary: sentence(model) };
}

/** The features of a stored day: each component on a 0-1 scale, then 1 for each risk signal that held. */
function featuresOf(c: StoredComponents): number[] {
  const held = new Set(storedSignals(c).map((s) => s.code));
  return [...HEALTH_COMPONENTS.map((k) => (c[k]?.value ?? 50) / 100), ...RISK_CODES.map((code) => (held.has(code) ? 1 : 0))];
}

/** The ridge fit of some renewals and the weights its components' coefficients give; null when they are of one class. */
function fitWeights(rows: readonly Row[]): { weights: Record<HealthComponent, number>; intercept: number; coefficients: number[] } | null {
  const m = fitRidgeLogistic(
    rows.map((r) => r.features),
    rows.map((r) => r.churned),
    LAMBDA,
  );
  if (!m) return null;
  // A higher component that goes with fewer churns has a negative coefficient: its weight is how negative.
  return { weights: boundedWeights(HEALTH_COMPONENTS.map((_, j) => -m.coefficients[j]!)), intercept: m.intercept, coefficients: m.coefficients };
}

/**
 * Raw importances (any sign; the negative ones count as 0) as weights summing to 1, each within
 * [MIN_WEIGHT, MAX_WEIGHT]: shares in proportion to the importances, then the share furthest out
 * of bounds is set to its bound and the others share what is left, until none is out.
 */
export function boundedWeights(raw: readonly number[]): Record<HealthComponent, number> {
  const n = raw.length;
  const w = raw.map((x) => Math.max(0, x));
  const fixed = new Array<number | null>(n).fill(null);
  const shares = new Array<number>(n).fill(0);
  for (let pass = 0; pass <= n; pass++) {
    const free = w.map((_, i) => i).filter((i) => fixed[i] === null);
    const left = 1 - fixed.reduce<number>((sum, x) => sum + (x ?? 0), 0);
    const total = free.reduce((sum, i) => sum + w[i]!, 0);
    let worst = -1;
    let by = 0;
    for (const i of free) {
      shares[i] = total > 0 ? (left * w[i]!) / total : left / free.length;
      const out = Math.max(shares[i] - MAX_WEIGHT, MIN_WEIGHT - shares[i]);
      if (out > by + 1e-12) {
        by = out;
        worst = i;
      }
    }
    if (worst < 0) break;
    fixed[worst] = shares[worst]! > MAX_WEIGHT ? MAX_WEIGHT : MIN_WEIGHT;
  }
  const out = {} as Record<HealthComponent, number>;
  HEALTH_COMPONENTS.forEach((c, i) => (out[c] = r4(fixed[i] ?? shares[i]!)));
  return out;
}

/** The churn probability of a score under some weights, fitted on every renewal (null when they are of one class). */
function calibrate(rows: readonly Row[], weights: Record<HealthComponent, number>): Calibration | null {
  const m = fitLogistic(
    rows.map((r) => (100 - scoreWithWeights(r.components, weights)) / 100),
    rows.map((r) => r.churned),
  );
  return m ? { a: r4(m.a), b: r4(m.b) } : null;
}

function sentence(m: HealthModelView): string {
  const h = m.heldOut;
  const auc = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));
  const w = HEALTH_COMPONENTS.map((c) => `${c} ${Math.round(m.weights[c] * 100)} %`).join(', ');
  const base = `Learned from ${m.outcomes} renewals (${m.churned} churned) between ${m.from} and ${m.to}, ${m.horizonDays} days before each: ${w}.`;
  const test = `On the ${h.outcomes} later renewals it was tested on (fitted on the earlier ones only), its AUC is ${auc(h.aucLearned)} against ${auc(h.aucDefault)} for the hand-written weights.`;
  return m.status === 'offered'
    ? `${base} ${test} Offered as model ${m.version}: apply it with chs health model apply --model ${m.version}.`
    : `${base} ${test} Not offered (model ${m.version}, kept for the record): it does not beat the hand-written weights by ${MIN_AUC_GAIN} or more.`;
}
