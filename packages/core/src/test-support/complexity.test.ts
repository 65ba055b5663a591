/**
 * The complexity helper every "4× the input takes < 10× the time" test relies on: it must keep
 * telling a quadratic pass from a linear one, retries included.
 */
import { describe, expect, it } from 'vitest';
import { growthRatio, growthRatioAsync } from './complexity.js';

/** Scans the rest of the string from every position: n²/2 character reads. */
const quadratic = (s: string): number => {
  let found = 0;
  for (let i = 0; i < s.length; i++) found += s.indexOf('z', i);
  return found;
};
/** One pass. */
const linear = (s: string): number => {
  let sum = 0;
  for (let i = 0; i < s.length; i++) sum += s.charCodeAt(i);
  return sum;
};

describe('growthRatio', () => {
  it('gives a quadratic pass over 10 (a retry cannot bring it under) and a linear one under', () => {
    expect(growthRatio((n) => 'a'.repeat(n), quadratic, 20_000)).toBeGreaterThan(10);
    expect(growthRatio((n) => 'a'.repeat(n), linear, 2_000_000)).toBeLessThan(10);
  });

  it('measures async work the same way', async () => {
    const later =
      (f: (s: string) => number) =>
      async (s: string): Promise<number> => {
        await Promise.resolve();
        return f(s);
      };
    expect(await growthRatioAsync((n) => 'a'.repeat(n), later(quadratic), 20_000)).toBeGreaterThan(10);
    expect(await growthRatioAsync((n) => 'a'.repeat(n), later(linear), 2_000_000)).toBeLessThan(10);
  });
});
