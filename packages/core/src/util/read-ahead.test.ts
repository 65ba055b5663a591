import { describe, expect, it } from 'vitest';
import { readAhead } from './read-ahead.js';

const tick = () => new Promise<void>((r) => setTimeout(r, 5));

describe('readAhead', () => {
  it('produces the next item while the consumer works on the current one, in order', async () => {
    const log: string[] = [];
    async function* pages() {
      try {
        for (let i = 1; i <= 3; i++) {
          log.push(`fetch ${i}`);
          await tick();
          log.push(`fetched ${i}`);
          yield i;
        }
      } finally {
        log.push('source closed');
      }
    }
    const seen: number[] = [];
    for await (const p of readAhead(pages())) {
      log.push(`use ${p}`);
      await tick();
      await tick();
      log.push(`used ${p}`);
      seen.push(p);
    }
    expect(seen).toEqual([1, 2, 3]);
    // Page 2 is fetched during the use of page 1, page 3 during the use of page 2.
    expect(log.indexOf('fetched 2')).toBeLessThan(log.indexOf('used 1'));
    expect(log.indexOf('fetched 3')).toBeLessThan(log.indexOf('used 2'));
    expect(log.indexOf('fetch 2')).toBeGreaterThan(log.indexOf('fetched 1'));
    // The end of the source is also read ahead, while page 3 is in use.
    expect(log.filter((l) => l === 'source closed')).toHaveLength(1);
    expect(log.indexOf('source closed')).toBeGreaterThan(log.indexOf('fetched 3'));
  });

  it('surfaces an error of the item read ahead when the consumer reaches it', async () => {
    async function* failing() {
      yield 'a';
      await tick();
      throw new Error('page 2 failed');
    }
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const x of readAhead(failing())) {
          await tick();
          await tick();
          seen.push(x);
        }
      })(),
    ).rejects.toThrow('page 2 failed');
    expect(seen).toEqual(['a']);
  });

  it('closes the source when the consumer stops early, after the item in flight settles', async () => {
    const log: string[] = [];
    async function* endless() {
      try {
        for (let i = 0; ; i++) {
          await tick();
          log.push(`made ${i}`);
          yield i;
        }
      } finally {
        log.push('closed');
      }
    }
    for await (const x of readAhead(endless())) if (x === 1) break;
    expect(log).toEqual(['made 0', 'made 1', 'made 2', 'closed']);
  });
});
