/** `x` rounded to `digits` decimals (half away from zero for positives, as Math.round). */
export function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** One decimal: scores, points, hours and rates as the API shows them. */
export const round1 = (x: number): number => round(x, 1);
/** Two decimals: ratios and confidences. */
export const round2 = (x: number): number => round(x, 2);
