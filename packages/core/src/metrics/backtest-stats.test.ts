/** The backtest's statistics (backtest-stats.ts) against values worked by hand. */
import { describe, expect, it } from 'vitest';
import {
  brierScore,
  fitLogistic,
  fitRidgeLogistic,
  liftTopDecile,
  logistic,
  median,
  outOfFoldProbabilities,
  predictLogistic,
  reliability,
  rocAuc,
  rocCurve,
  type Scored,
} from './backtest-stats.js';
import { ChsError } from '../errors.js';

const p = (risk: number, positive: boolean): Scored => ({ risk, positive });

describe('backtest statistics', () => {
  it('AUC: the share of (churn, kept) pairs the risk orders right, ties half', () => {
    // Pairs: 90>80 yes, 90>10 yes, 70>80 no, 70>10 yes: 3 of 4.
    expect(rocAuc([p(90, true), p(80, false), p(70, true), p(10, false)])).toBe(0.75);
    expect(rocAuc([p(50, true), p(50, false)])).toBe(0.5);
    expect(rocAuc([p(90, true), p(10, false)])).toBe(1);
    expect(rocAuc([p(10, true), p(90, false)])).toBe(0);
    expect(rocAuc([p(10, true)])).toBeNull();
    expect(rocCurve([p(90, true), p(80, false), p(70, true), p(10, false)])).toEqual([
      { fpr: 0, tpr: 0 },
      { fpr: 0, tpr: 0.5 },
      { fpr: 0.5, tpr: 0.5 },
      { fpr: 0.5, tpr: 1 },
      { fpr: 1, tpr: 1 },
    ]);
  });

  it('a risk that is not a number is refused with INVALID_INPUT, not looped on forever', () => {
    // rocAuc is public: a caller's score read as NaN (a missing field) must fail at once.
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
      const points = [p(90, true), p(bad, false), p(10, false)];
      expect(() => rocAuc(points)).toThrow(/position 1/);
      for (const f of [rocAuc, rocCurve]) {
        try {
          f(points);
          expect.unreachable(`${f.name} accepted a risk of ${bad}`);
        } catch (err) {
          expect(err).toBeInstanceOf(ChsError);
          expect((err as ChsError).code).toBe('INVALID_INPUT');
        }
      }
    }
  });

  it('lift: the riskiest tenth churns five times as often as all when it holds one of two churns in ten', () => {
    const points = [p(95, true), ...Array.from({ length: 8 }, (_, i) => p(50 - i, false)), p(10, true)];
    expect(liftTopDecile(points)).toBe(5);
    expect(liftTopDecile([p(1, false)])).toBeNull();
  });

  it('median of an odd and an even count', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });

  it('a logistic fit: riskier means likelier to churn, and the middle of mixed data near even odds', () => {
    const xs = [0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9];
    const ys = [false, false, true, false, true, false, true, true];
    const m = fitLogistic(xs, ys)!;
    expect(m.b).toBeGreaterThan(0);
    expect(logistic(m, 0.5)).toBeCloseTo(0.5, 1);
    expect(logistic(m, 0.9)).toBeGreaterThan(logistic(m, 0.1));
    // Perfectly separated data still gives finite weights (the ridge).
    const sep = fitLogistic([0.1, 0.2, 0.8, 0.9], [false, false, true, true])!;
    expect(Number.isFinite(sep.b)).toBe(true);
    expect(fitLogistic([0.1, 0.2], [true, true])).toBeNull();
  });

  it('out-of-fold probabilities: a point is never calibrated on itself, and riskier points get higher ones', () => {
    const points = Array.from({ length: 50 }, (_, i) => p(i * 2, i % 5 === 0 ? i < 25 === false : i > 30));
    const q = outOfFoldProbabilities(points);
    expect(q).toHaveLength(50);
    expect(q.every((x) => x > 0 && x < 1)).toBe(true);
    // Changing one point changes others' probabilities but never its own fold's fit of itself.
    const flipped = points.map((x, i) => (i === 3 ? { ...x, positive: !x.positive } : x));
    expect(outOfFoldProbabilities(flipped)[3]).toBe(q[3]);
  });

  it('Brier: 0 when sure and right, 0.25 for a coin, 1 when sure and wrong; reliability by bins', () => {
    const pts = [p(90, true), p(10, false)];
    expect(brierScore([1, 0], pts)).toBe(0);
    expect(brierScore([0.5, 0.5], pts)).toBe(0.25);
    expect(brierScore([0, 1], pts)).toBe(1);
    expect(brierScore([], [])).toBeNull();
    const bins = reliability([0.1, 0.15, 0.9, 1], [p(1, false), p(2, true), p(3, true), p(4, true)]);
    expect(bins.map((b) => b.outcomes)).toEqual([2, 0, 0, 0, 2]);
    expect(bins[0]).toMatchObject({ predicted: 0.125, observed: 0.5 });
    expect(bins[1]).toMatchObject({ predicted: null, observed: null });
    expect(bins[4]).toMatchObject({ predicted: 0.95, observed: 1 });
  });

  it('ridge logistic regression: the penalised likelihood at its peak, shrinking as the penalty grows', () => {
    // Two features; the first drives the outcome, the second is noise.
    const xs: number[][] = [];
    const ys: boolean[] = [];
    for (let i = 0; i < 40; i++) {
      const a = (i % 10) / 10;
      const b = ((i * 7) % 10) / 10;
      xs.push([a, b]);
      ys.push(a + (i % 3 === 0 ? 0.3 : 0) > 0.6);
    }
    const m = fitRidgeLogistic(xs, ys, 1)!;
    // At the optimum the gradient of log-likelihood − λ/2·|β|² is zero (the intercept unpenalised).
    const grad = [0, 0, 0];
    xs.forEach((x, i) => {
      const r = (ys[i] ? 1 : 0) - predictLogistic(m, x);
      grad[0]! += r;
      grad[1]! += r * x[0]!;
      grad[2]! += r * x[1]!;
    });
    grad[1]! -= m.coefficients[0]!;
    grad[2]! -= m.coefficients[1]!;
    for (const g of grad) expect(Math.abs(g)).toBeLessThan(1e-8);
    expect(m.coefficients[0]).toBeGreaterThan(2);
    expect(Math.abs(m.coefficients[1]!)).toBeLessThan(m.coefficients[0]! / 3);
    // A larger penalty shrinks the coefficients toward 0.
    const strong = fitRidgeLogistic(xs, ys, 50)!;
    expect(Math.abs(strong.coefficients[0]!)).toBeLessThan(Math.abs(m.coefficients[0]!));
    // With one feature and almost no penalty it is the one-variable fit.
    const one = fitRidgeLogistic(
      xs.map((x) => [x[0]!]),
      ys,
      1e-3,
    )!;
    const uni = fitLogistic(
      xs.map((x) => x[0]!),
      ys,
    )!;
    expect(one.intercept).toBeCloseTo(uni.a, 6);
    expect(one.coefficients[0]).toBeCloseTo(uni.b, 6);
    // Perfectly separated data still gives finite weights; one class gives none.
    expect(fitRidgeLogistic([[0.1], [0.2], [0.8], [0.9]], [false, false, true, true], 1)).not.toBeNull();
    expect(fitRidgeLogistic([[0.1], [0.2]], [true, true], 1)).toBeNull();
  });
});
