/**
 * RedisRateLimitStore against the real local Redis: the same all-or-nothing contract as the
 * in-memory store, shared by two store instances (two runners), windows that reset on the clock,
 * and a fallback to per-process counting when Redis does not answer.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { windowsFor, type RateWindow } from './rate-limit.js';
import { RedisRateLimitStore } from './redis-rate-limit.js';
import { redisAvailable, TEST_REDIS_URL } from './redis-testing.js';

const hasRedis = await redisAvailable();
const open: RedisRateLimitStore[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

function store(prefix: string): RedisRateLimitStore {
  const s = new RedisRateLimitStore({ url: TEST_REDIS_URL, prefix });
  open.push(s);
  return s;
}
const freshPrefix = () => `chs:test:${randomBytes(6).toString('hex')}:`;
// 12:00:30.000 UTC on some day: the minute window runs 12:00:00 → 12:01:00.
const T = Date.UTC(2030, 0, 15, 12, 0, 30);

describe.runIf(hasRedis)('RedisRateLimitStore (real Redis)', () => {
  it('counts every window and refuses, counting nothing, once any window is full', async () => {
    const s = store(freshPrefix());
    const windows: RateWindow[] = [
      { key: 'k:minute', limit: 3, windowMs: 60_000 },
      { key: 'k:hour', limit: 5, windowMs: 3_600_000 },
    ];
    const counts: number[][] = [];
    for (let i = 0; i < 4; i++) {
      const r = await s.consume(windows, T + i);
      counts.push([r.allowed ? 1 : 0, ...r.states.map((x) => x.count)]);
    }
    // Three allowed (1,1 → 3,3), the fourth refused with the counts unchanged.
    expect(counts).toEqual([
      [1, 1, 1],
      [1, 2, 2],
      [1, 3, 3],
      [0, 3, 3],
    ]);
    const refused = await s.consume(windows, T + 10);
    expect(refused.states.map((x) => [x.key, x.remaining, x.resetAt])).toEqual([
      ['k:minute', 0, Date.UTC(2030, 0, 15, 12, 1, 0)],
      ['k:hour', 2, Date.UTC(2030, 0, 15, 13, 0, 0)],
    ]);
    // Next minute: the minute window is fresh; the hour still holds 3, so two more fit, then the hour is full.
    const nextMinute = T + 60_000;
    const later = [];
    for (let i = 0; i < 3; i++) later.push((await s.consume(windows, nextMinute + i)).allowed);
    expect(later).toEqual([true, true, false]);
    const last = await s.consume(windows, nextMinute + 5);
    expect(last.states.map((x) => x.count)).toEqual([2, 5]);
  });

  it('two stores on one Redis (two runners) share the counters: 150 requests, exactly 100 allowed', async () => {
    const prefix = freshPrefix();
    const a = store(prefix);
    const b = store(prefix);
    const windows = windowsFor(
      { keyId: 'key_1', workspaceId: 'acme.com' },
      { perKeyMinute: 100, perKeyHour: 1000, perWorkspaceMinute: 10_000, perWorkspaceDay: 10_000 },
    );
    // Interleaved and concurrent: the script's atomicity, not request order, keeps the count exact.
    const results = await Promise.all(Array.from({ length: 150 }, (_, i) => (i % 2 === 0 ? a : b).consume(windows, T + i)));
    expect(results.filter((r) => r.allowed)).toHaveLength(100);
    const minuteCounts = results
      .filter((r) => r.allowed)
      .map((r) => r.states[0]!.count)
      .sort((x, y) => x - y);
    expect(minuteCounts).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    // The refused 50 burned nothing in the hour or the day.
    const after = await a.consume(
      windowsFor({ keyId: 'key_1', workspaceId: 'acme.com' }, { perKeyMinute: 1000, perKeyHour: 1000, perWorkspaceMinute: 10_000, perWorkspaceDay: 10_000 }),
      T + 1000,
    );
    expect(after.states.map((x) => [x.key, x.count])).toEqual([
      ['key:key_1:minute', 101],
      ['key:key_1:hour', 101],
      ['ws:acme.com:minute', 101],
      ['ws:acme.com:day', 101],
    ]);
  });

  it('a counter expires shortly after its window ends', async () => {
    const prefix = freshPrefix();
    const s = store(prefix);
    const now = Date.now();
    await s.consume([{ key: 'e:minute', limit: 10, windowMs: 60_000 }], now);
    const start = Math.floor(now / 60_000) * 60_000;
    const r = new Redis(TEST_REDIS_URL);
    try {
      const pexpireAt = await r.pexpiretime(`${prefix}e:minute@${start}`);
      expect(pexpireAt).toBe(start + 60_000 + 5_000);
    } finally {
      r.disconnect();
    }
  });
});

describe('RedisRateLimitStore without Redis', () => {
  it('counts in this process instead of refusing requests, and connect() reports the failure', async () => {
    // Nothing listens on port 1.
    const s = new RedisRateLimitStore({ url: 'redis://127.0.0.1:1', commandTimeoutMs: 200 });
    open.push(s);
    await expect(s.connect()).rejects.toThrow();
    const w: RateWindow[] = [{ key: 'f:minute', limit: 2, windowMs: 60_000 }];
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push((await s.consume(w, T + i)).allowed);
    expect(seen).toEqual([true, true, false]);
  });
});
