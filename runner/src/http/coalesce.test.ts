import { describe, expect, it } from 'vitest';
import { Coalescer } from './coalesce.js';

describe('Coalescer (single flight)', () => {
  it('identical requests arriving together share one computation; later ones compute again', async () => {
    const c = new Coalescer();
    let runs = 0;
    const compute = async () => {
      runs += 1;
      return { run: runs };
    };
    const together = await Promise.all([c.run('a', compute), c.run('a', compute), c.run('a', compute)]);
    expect(runs).toBe(1);
    expect(together.map((r) => r.run)).toEqual([1, 1, 1]);
    expect(c.size).toBe(0);
    // Nothing is kept: the next request computes afresh.
    expect((await c.run('a', compute)).run).toBe(2);
  });

  it('keeps different keys apart', async () => {
    const c = new Coalescer();
    const seen: string[] = [];
    const [x, y] = await Promise.all([
      c.run('x', async () => {
        seen.push('x');
        return 'X';
      }),
      c.run('y', async () => {
        seen.push('y');
        return 'Y';
      }),
    ]);
    expect([x, y]).toEqual(['X', 'Y']);
    expect(seen.sort()).toEqual(['x', 'y']);
  });

  it('a failure reaches every request that joined it and is not remembered', async () => {
    const c = new Coalescer();
    let runs = 0;
    const failing = async () => {
      runs += 1;
      throw new Error(`failed ${runs}`);
    };
    const results = await Promise.allSettled([c.run('k', failing), c.run('k', failing)]);
    expect(results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'ok'))).toEqual(['failed 1', 'failed 1']);
    await expect(c.run('k', failing)).rejects.toThrow('failed 2');
    expect(c.size).toBe(0);
  });

  it('a request arriving once a computation has started does not join it', async () => {
    const c = new Coalescer();
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow = async () => {
      runs += 1;
      const mine = runs;
      await gate;
      return mine;
    };
    const first = c.run('k', slow);
    const joined = c.run('k', slow); // same turn: joins
    await new Promise<void>((r) => setImmediate(r));
    await new Promise<void>((r) => setImmediate(r));
    expect(runs).toBe(1); // started, waiting on the gate
    const late = c.run('k', slow); // after the start: a computation of its own
    await new Promise<void>((r) => setImmediate(r));
    await new Promise<void>((r) => setImmediate(r));
    expect(runs).toBe(2);
    release();
    expect(await Promise.all([first, joined, late])).toEqual([1, 1, 2]);
  });
});
