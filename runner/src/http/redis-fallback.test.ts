/**
 * Issue 16, faults: Redis goes away while the API serves with CHS_REDIS_URL set. The shared Redis
 * is never touched: the runner talks to it through a local TCP proxy (redis-testing.ts) that the
 * test closes, makes hang, and opens again; counters use a prefix of their own.
 *
 * The choice is fail open: requests keep being served, counted in the runner's memory (so every
 * limit still holds per runner), with a logged warning; counting is shared again once Redis answers.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { Logger } from '@chs/core';
import { RedisRateLimitStore } from './redis-rate-limit.js';
import { RedisProxy, redisAvailable, TEST_REDIS_URL } from './redis-testing.js';
import { startTestApp, type TestApp } from './testing.js';

const hasRedis = await redisAvailable();

interface Line {
  level: 'warn' | 'info';
  msg: string;
}

function capturingLogger(lines: Line[]): Logger {
  return {
    debug: () => undefined,
    error: () => undefined,
    info: (_o, msg) => lines.push({ level: 'info', msg: msg ?? '' }),
    warn: (_o, msg) => lines.push({ level: 'warn', msg: msg ?? '' }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Fixed windows follow the clock's minute: start well clear of its end so one test stays in one minute. */
async function clearOfMinuteEnd(): Promise<void> {
  const into = Date.now() % 60_000;
  if (into > 45_000) await sleep(60_100 - into);
}

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

describe.runIf(hasRedis)('rate limits when Redis goes away (CHS_REDIS_URL set)', () => {
  async function setup(perKeyMinute: number): Promise<{ t: TestApp; proxy: RedisProxy; lines: Line[]; redisCount: () => Promise<number> }> {
    const proxy = new RedisProxy();
    await proxy.start();
    cleanup.push(() => proxy.stop());
    const lines: Line[] = [];
    const prefix = `chs:test:fallback:${randomBytes(6).toString('hex')}:`;
    const store = new RedisRateLimitStore({
      url: `redis://127.0.0.1:${proxy.port}`,
      prefix,
      commandTimeoutMs: 300,
      retryAfterMs: 200,
      logger: capturingLogger(lines),
    });
    await store.connect();
    const t = await startTestApp({
      rateLimitStore: store,
      config: { rateLimits: { perKeyMinute, perKeyHour: 1000, perWorkspaceMinute: 1000, perWorkspaceDay: 10_000 } },
    });
    cleanup.push(() => t.close());
    const direct = new Redis(TEST_REDIS_URL);
    cleanup.push(async () => {
      const keys = await direct.keys(`${prefix}*`);
      if (keys.length > 0) await direct.del(...keys);
      direct.disconnect();
    });
    const redisCount = async () => {
      const start = Math.floor(Date.now() / 60_000) * 60_000;
      return Number((await direct.get(`${prefix}key:${t.apiKeyId}:minute@${start}`)) ?? 0);
    };
    return { t, proxy, lines, redisCount };
  }

  it('keeps serving with a logged fallback to per-runner counting, still limited, and shares counting again when Redis is back', async () => {
    await clearOfMinuteEnd();
    const { t, proxy, lines, redisCount } = await setup(6);
    const get = () => t.request(`/api/settings?workspaceId=${t.workspaceId}`);

    expect((await get()).status).toBe(200);
    expect(await redisCount()).toBe(1);

    await proxy.stop();
    const during: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await get();
      during.push(res.status);
      expect(res.headers.get('x-ratelimit-limit')).not.toBeNull();
      expect(res.headers.get('x-ratelimit-remaining')).not.toBeNull();
    }
    // Served from the runner's own counters, which still enforce the limit (6 a minute here).
    expect(during).toEqual([200, 200, 200, 200, 200, 200, 429]);
    expect(await redisCount()).toBe(1);
    const warnings = lines.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toBe('Redis did not answer; rate limits are counted per runner until it does');

    await proxy.start();
    // ioredis reconnects on its own (backoff up to 2 s); requests are counted in Redis again after it.
    let back = false;
    for (let i = 0; i < 60 && !back; i++) {
      await sleep(100);
      const res = await get();
      back = res.status === 200 && (await redisCount()) > 1;
    }
    expect(back).toBe(true);
    expect(lines.filter((l) => l.level === 'info').map((l) => l.msg)).toEqual(['Redis answers again; rate limits are shared by every runner again']);
  });

  it('a Redis that hangs costs at most one command timeout now and then, not one per request', async () => {
    await clearOfMinuteEnd();
    const { t, proxy, lines } = await setup(1000);
    const get = () => t.request(`/api/settings?workspaceId=${t.workspaceId}`);
    expect((await get()).status).toBe(200);

    proxy.blackhole();
    const started = Date.now();
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await get()).status);
    const elapsed = Date.now() - started;
    expect(statuses.every((s) => s === 200)).toBe(true);
    // Waiting out the 300 ms timeout on every request would take 9 s; after a failure Redis is left
    // alone for 200 ms, so only a few requests wait. A generous budget, far from either figure.
    expect(elapsed).toBeLessThan(6000);
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(1);
  });
});
