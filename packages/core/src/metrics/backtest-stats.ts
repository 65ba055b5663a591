/**
 * The statistics of the backtest (backtest.ts), on plain numbers: ROC AUC, the lift of the riskiest
 * decile, a one-variable logistic calibration (Platt scaling) fitted out of fold, its Brier score
 * and reliability table, the median.
 *
 * Written here rather than taken from a library: each is a few lines of textbook arithmetic on at
 * most a few thousand points (the outcomes of one workspace), with no matrix algebra beyond a 2×2
 * Newton step; the npm statistics packages reachable here either lack out-of-fold calibration or
 * bring a numeric stack of their own for it. Each is tested against values worked by hand.
 */
import { ChsError } from '../errors.js';

/** A scored outcome: `risk` higher = riskier (100 − score), `positive` = it churned. */
export interface Scored {
  risk: number;
  positive: boolean;
}

/**
 * Refuses a risk that is not a finite number: NaN sorts nowhere and equals nothing, so the rank
 * loops below would never pass it (rocAuc is public: a caller's NaN must fail, not hang).
 */
function finiteRisks(points: readonly Scored[]): void {
  const bad = points.findIndex((p) => !Number.isFinite(p.risk));
  if (bad >= 0) throw new ChsError('INVALID_INPUT', `risk must be a finite number, got ${String(points[bad]!.risk)} at position ${bad}`);
}

/**
 * ROC AUC: the chance a random positive has a higher risk than a random negative, ties counting
 * half (Mann-Whitney U over the ranks). null without a positive or without a negative. Throws
 * INVALID_INPUT on a risk that is not a finite number.
 */
export function rocAuc(points: readonly Scored[]): number | null {
  finiteRisks(points);
  const pos = points.filter((p) => p.positive).length;
  const neg = points.length - pos;
  if (pos === 0 || neg === 0) return null;
  const sorted = [...points].sort((a, b) => a.risk - b.risk);
  let rankSumPos = 0;
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j < sorted.length && sorted[j]!.risk === sorted[i]!.risk) j++;
    // Ranks i+1..j share their mean.
    const mean = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if (sorted[k]!.positive) rankSumPos += mean;
    i = j;
  }
  return (rankSumPos - (pos * (pos + 1)) / 2) / (pos * neg);
}

/** The ROC curve's points (false positive rate, true positive rate), from (0,0) to (1,1), one per distinct risk. Throws as rocAuc. */
export function rocCurve(points: readonly Scored[]): Array<{ fpr: number; tpr: number }> {
  finiteRisks(points);
  const pos = points.filter((p) => p.positive).length;
  const neg = points.length - pos;
  if (pos === 0 || neg === 0) return [];
  const sorted = [...points].sort((a, b) => b.risk - a.risk);
  const out = [{ fpr: 0, tpr: 0 }];
  let tp = 0;
  let fp = 0;
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j < sorted.length && sorted[j]!.risk === sorted[i]!.risk) {
      if (sorted[j]!.positive) tp++;
      else fp++;
      j++;
    }
    out.push({ fpr: fp / neg, tpr: tp / pos });
    i = j;
  }
  return out;
}

/**
 * The positive rate of the riskiest tenth (at least one point) over the positive rate of all.
 * Ties at the cut are taken in the order given. null without a positive.
 */
export function liftTopDecile(points: readonly Scored[]): number | null {
  const pos = points.filter((p) => p.positive).length;
  if (pos === 0) return null;
  const n = Math.max(1, Math.ceil(points.length / 10));
  const top = [...points].sort((a, b) => b.risk - a.risk).slice(0, n);
  return top.filter((p) => p.positive).length / n / (pos / points.length);
}

export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** A logistic model of one variable: p = 1 / (1 + e^-(a + b·x)). */
export interface Logistic {
  a: number;
  b: number;
}

export const logistic = (m: Logistic, x: number): number => 1 / (1 + Math.exp(-(m.a + m.b * x)));

/**
 * Fits p(x) by maximum likelihood (Newton's method), with a small ridge on b so that data one
 * threshold separates perfectly still gives finite weights. null when the points are all of one class.
 */
export function fitLogistic(xs: readonly number[], ys: readonly boolean[], ridge = 1e-3): Logistic | null {
  const n = xs.length;
  const pos = ys.filter(Boolean).length;
  if (pos === 0 || pos === n) return null;
  let a = Math.log(pos / (n - pos));
  let b = 0;
  for (let iter = 0; iter < 100; iter++) {
    // Gradient and Hessian of the penalised log-likelihood.
    let ga = 0;
    let gb = -ridge * b;
    let haa = 0;
    let hab = 0;
    let hbb = ridge;
    for (let i = 0; i < n; i++) {
      const p = logistic({ a, b }, xs[i]!);
      const r = (ys[i] ? 1 : 0) - p;
      const w = p * (1 - p);
      ga += r;
      gb += r * xs[i]!;
      haa += w;
      hab += w * xs[i]!;
      hbb += w * xs[i]! * xs[i]!;
    }
    const det = haa * hbb - hab * hab;
    if (!(det > 1e-12)) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a += da;
    b += db;
    if (Math.abs(da) + Math.abs(db) < 1e-9) break;
  }
  return Number.isFinite(a) && Number.isFinite(b) ? { a, b } : null;
}

/**
 * Churn probabilities from the risk, each fitted without its own point's fold (`folds` contiguous
 * folds in the order given: give them oldest first, and no outcome is calibrated on itself). A
 * fold whose training points are of one class gets their rate.
 */
export function outOfFoldProbabilities(points: readonly Scored[], folds = 5): number[] {
  const n = points.length;
  const k = Math.max(2, Math.min(folds, n));
  const out = new Array<number>(n).fill(0);
  // Risk on a 0-1 scale keeps Newton's steps well conditioned.
  const x = points.map((p) => p.risk / 100);
  for (let f = 0; f < k; f++) {
    const from = Math.floor((f * n) / k);
    const to = Math.floor(((f + 1) * n) / k);
    const trainX: number[] = [];
    const trainY: boolean[] = [];
    for (let i = 0; i < n; i++) {
      if (i >= from && i < to) continue;
      trainX.push(x[i]!);
      trainY.push(points[i]!.positive);
    }
    const model = fitLogistic(trainX, trainY);
    const rate = trainY.length === 0 ? 0.5 : trainY.filter(Boolean).length / trainY.length;
    for (let i = from; i < to; i++) out[i] = model ? logistic(model, x[i]!) : rate;
  }
  return out;
}

/** Mean squared difference between the probability and what happened (0 is perfect; 0.25 is a coin). null when empty. */
export function brierScore(probabilities: readonly number[], points: readonly Scored[]): number | null {
  if (points.length === 0) return null;
  let sum = 0;
  points.forEach((p, i) => (sum += (probabilities[i]! - (p.positive ? 1 : 0)) ** 2));
  return sum / points.length;
}

export interface ReliabilityBin {
  /** The bin's probabilities, [from, to) (the last one includes 1). */
  from: number;
  to: number;
  outcomes: number;
  /** Mean probability given in the bin; null when empty. */
  predicted: number | null;
  /** Share that churned; null when empty. */
  observed: number | null;
}

/** The reliability table: `bins` equal bins of probability, what was predicted in each and what happened. */
export function reliability(probabilities: readonly number[], points: readonly Scored[], bins = 5): ReliabilityBin[] {
  const out: ReliabilityBin[] = Array.from({ length: bins }, (_, i) => ({ from: i / bins, to: (i + 1) / bins, outcomes: 0, predicted: 0, observed: 0 }));
  points.forEach((p, i) => {
    const q = probabilities[i]!;
    const b = out[Math.min(bins - 1, Math.floor(q * bins))]!;
    b.outcomes++;
    b.predicted! += q;
    b.observed! += p.positive ? 1 : 0;
  });
  for (const b of out) {
    b.predicted = b.outcomes === 0 ? null : b.predicted! / b.outcomes;
    b.observed = b.outcomes === 0 ? null : b.observed! / b.outcomes;
  }
  return out;
}

/** A logistic model of several variables: p = 1 / (1 + e^-(intercept + Σ coefficients·x)). */
export interface MultiLogistic {
  intercept: number;
  coefficients: number[];
}

export const predictLogistic = (m: MultiLogistic, x: readonly number[]): number =>
  1 / (1 + Math.exp(-(m.intercept + m.coefficients.reduce((s, b, j) => s + b * x[j]!, 0))));

/**
 * Ridge (L2-regularised) logistic regression by Newton's method: maximises the log-likelihood
 * minus lambda/2 · Σ coefficient² (the intercept is not penalised). Newton on at most a dozen
 * variables reaches the optimum in a few steps, the same from any run: the weights a team is
 * offered do not depend on a learning rate or a number of epochs. null when the rows are all of one
 * class or the system is singular.
 */
export function fitRidgeLogistic(xs: readonly (readonly number[])[], ys: readonly boolean[], lambda: number): MultiLogistic | null {
  const n = xs.length;
  const pos = ys.filter(Boolean).length;
  if (n === 0 || pos === 0 || pos === n) return null;
  const k = xs[0]!.length;
  // beta[0] is the intercept.
  const beta = new Array<number>(k + 1).fill(0);
  beta[0] = Math.log(pos / (n - pos));
  for (let iter = 0; iter < 100; iter++) {
    const grad = new Array<number>(k + 1).fill(0);
    const hess = Array.from({ length: k + 1 }, () => new Array<number>(k + 1).fill(0));
    for (let i = 0; i < n; i++) {
      const row = [1, ...xs[i]!];
      const p = 1 / (1 + Math.exp(-row.reduce((s, x, j) => s + x * beta[j]!, 0)));
      const r = (ys[i] ? 1 : 0) - p;
      const w = p * (1 - p);
      for (let a = 0; a <= k; a++) {
        grad[a]! += r * row[a]!;
        for (let b = a; b <= k; b++) hess[a]![b]! += w * row[a]! * row[b]!;
      }
    }
    for (let a = 1; a <= k; a++) {
      grad[a]! -= lambda * beta[a]!;
      hess[a]![a]! += lambda;
    }
    for (let a = 0; a <= k; a++) for (let b = 0; b < a; b++) hess[a]![b] = hess[b]![a]!;
    const step = solve(hess, grad);
    if (!step) return null;
    let moved = 0;
    for (let a = 0; a <= k; a++) {
      beta[a]! += step[a]!;
      moved += Math.abs(step[a]!);
    }
    if (moved < 1e-10) break;
  }
  if (!beta.every(Number.isFinite)) return null;
  return { intercept: beta[0], coefficients: beta.slice(1) };
}

/** Solves A·x = b (A symmetric positive definite) by Gaussian elimination with partial pivoting; null when singular. */
function solve(a: readonly (readonly number[])[], b: readonly number[]): number[] | null {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r;
    if (!(Math.abs(m[pivot]![col]!) > 1e-12)) return null;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    for (let r = col + 1; r < n; r++) {
      const f = m[r]![col]! / m[col]![col]!;
      for (let c = col; c <= n; c++) m[r]![c]! -= f * m[col]![c]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = m[r]![n]!;
    for (let c = r + 1; c < n; c++) s -= m[r]![c]! * x[c]!;
    x[r] = s / m[r]![r]!;
  }
  return x;
}
