/**
 * The client-side quota bucket on a fake clock: the rate it spends at, the burst, arrival order,
 * and that a fixed server window of the quota's length is never overrun.
 */
import { describe, expect, it } from 'vitest';
import { RateLimiter, RateLimiters } from './retry.js';

/** A fake monotonic clock whose sleep moves time forward at once. */
function fakeTime() {
  let t = 0;
  const slept: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      slept.push(ms);
      t += ms;
    },
    advance: (ms: number) => {
      t += ms;
    },
    slept,
  };
}

describe('RateLimiter', () => {
  it('spends a burst at once, then at the quota rate less the headroom', async () => {
    // 6,000 units a minute with 0 headroom = 100 units/s; burst 10 units.
    const c = fakeTime();
    const l = new RateLimiter({ units: 6000, windowMs: 60_000, headroom: 0, burst: 10, now: c.now, sleep: c.sleep });
    await l.take(5);
    await l.take(5);
    expect(c.now()).toBe(0);
    await l.take(5); // 5 units at 0.1 unit/ms: 50 ms
    expect(c.now()).toBe(50);
    for (let i = 0; i < 20; i++) await l.take(5);
    // 100 more units at 100 units/s.
    expect(c.now()).toBe(1050);
    expect(l.unitsPerMinute).toBe(6000);
  });

  it('the default headroom keeps 2% of the quota unused and the burst is a second of quota', () => {
    const l = new RateLimiter({ units: 15_000 });
    expect(l.unitsPerMinute).toBeCloseTo(14_700, 6);
  });

  it('serves takers in arrival order', async () => {
    const c = fakeTime();
    const l = new RateLimiter({ units: 60, windowMs: 60_000, headroom: 0, burst: 1, now: c.now, sleep: c.sleep });
    const order: number[] = [];
    await Promise.all([1, 2, 3, 4].map((i) => l.take(1).then(() => order.push(i))));
    expect(order).toEqual([1, 2, 3, 4]);
    // One unit a second, the first from the full bucket.
    expect(c.now()).toBe(3000);
  });

  it('a call dearer than the burst waits for a full bucket and goes into debt', async () => {
    const c = fakeTime();
    const l = new RateLimiter({ units: 600, windowMs: 60_000, headroom: 0, burst: 2, now: c.now, sleep: c.sleep });
    await l.take(5); // full bucket (2): goes, tokens −3
    await l.take(1); // needs 4 more units at 10/s
    expect(c.now()).toBe(400);
  });

  it('never puts more than the quota into any fixed window of the quota length, whatever its phase', async () => {
    const c = fakeTime();
    const units = 1500;
    const l = new RateLimiter({ units, windowMs: 60_000, now: c.now, sleep: c.sleep });
    const grants: number[] = [];
    for (let i = 0; i < 1200; i++) {
      await l.take(5);
      grants.push(c.now());
    }
    const end = c.now();
    for (let phase = 0; phase < 60_000; phase += 997) {
      for (let start = phase; start < end; start += 60_000) {
        const inWindow = grants.filter((t) => t >= start && t < start + 60_000).length * 5;
        expect(inWindow).toBeLessThanOrEqual(units);
      }
    }
    // And it still spends ~98% of the quota: 6,000 units over the run.
    expect((1200 * 5) / (end / 60_000)).toBeGreaterThan(0.97 * units);
  });

  it('rejects a quota of no units and stops waiting when aborted', async () => {
    expect(() => new RateLimiter({ units: 0 })).toThrow(/units > 0/);
    const l = new RateLimiter({ units: 1, windowMs: 60_000, burst: 1 });
    await l.take(1);
    const ac = new AbortController();
    const p = l.take(1, ac.signal);
    ac.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
    // The queue goes on after an aborted taker.
    const ac2 = new AbortController();
    const q = l.take(1, ac2.signal);
    ac2.abort(new Error('stop2'));
    await expect(q).rejects.toThrow('stop2');
  });
});

describe('RateLimiters', () => {
  it('gives one bucket per account and quota, and nothing to another owner', () => {
    const engine = new RateLimiters();
    const quota = { units: 15_000, windowMs: 60_000 };
    const a = engine.get('google https://gmail.googleapis.com/ rep@acme.test', quota);
    expect(engine.get('google https://gmail.googleapis.com/ rep@acme.test', { units: 15_000 })).toBe(a);
    expect(engine.get('google https://gmail.googleapis.com/ csm@acme.test', quota)).not.toBe(a);
    expect(engine.get('google https://gmail.googleapis.com/ rep@acme.test', { units: 6_000 })).not.toBe(a);
    // A second engine in the same process has buckets of its own.
    expect(new RateLimiters().get('google https://gmail.googleapis.com/ rep@acme.test', quota)).not.toBe(a);
  });
});
