/**
 * Rate-limit counters in Redis, shared by every runner that points at the same server
 * (CHS_REDIS_URL), so the per-key and per-workspace limits hold whichever runner answers.
 *
 * Same contract as MemoryRateLimitStore: fixed windows aligned to the clock, all-or-nothing. One
 * Lua script reads every window's counter, and only when none is full increments them all; Redis
 * runs a script atomically, so two runners counting the same key at the same instant cannot both
 * take the last slot. Each counter expires (PEXPIREAT) a little after its window ends, so Redis
 * holds only live windows.
 *
 * Why Redis and not the database: a counter bump per request is a write per request; on
 * PostgreSQL that is a row lock, WAL and vacuum load on the one component every runner already
 * depends on for everything else. Redis does it in memory in microseconds, and losing it loses
 * only counters.
 *
 * If Redis stops answering while serving, requests are not refused for it (fail open): counting
 * falls back to this process's memory, so every limit still holds per runner (N runners allow at
 * most N times the limit), and a warning is logged, at most once a minute. Failing closed would
 * turn the loss of a store of counters, which holds no data, into a full outage of the API. After a
 * failure Redis is left alone for `retryAfterMs` (requests count in memory at once instead of each
 * waiting for a command timeout on a Redis that hangs), then tried again; when it answers, counting
 * is shared again and that is logged once.
 */
import { Redis } from 'ioredis';
import { silentLogger, type Logger } from '@chs/core';
import { MemoryRateLimitStore, type RateLimitResult, type RateLimitStore, type RateWindow } from './rate-limit.js';

/**
 * KEYS[i]: one window's counter. ARGV[2i-1]: its limit; ARGV[2i]: when it expires (epoch ms).
 * Returns {allowed (0/1), count_1, …, count_n}: counts after the increment when allowed, as read
 * when refused.
 */
const CONSUME_SCRIPT = `
local n = #KEYS
local counts = {}
local allowed = 1
for i = 1, n do
  local c = tonumber(redis.call('GET', KEYS[i]) or '0')
  counts[i] = c
  if c >= tonumber(ARGV[2 * i - 1]) then allowed = 0 end
end
if allowed == 1 then
  for i = 1, n do
    counts[i] = redis.call('INCR', KEYS[i])
    if counts[i] == 1 then redis.call('PEXPIREAT', KEYS[i], ARGV[2 * i]) end
  end
end
local out = {allowed}
for i = 1, n do out[i + 1] = counts[i] end
return out
`;

/** Counters outlive their window by this much, so a runner whose clock lags a little still finds them. */
const EXPIRY_SLACK_MS = 5_000;

export interface RedisRateLimitStoreOptions {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://` for TLS). */
  url: string;
  /** Prefix of every counter's key, so several services can share one Redis. Default `chs:rl:`. */
  prefix?: string;
  /** How long a command may take before this request is counted in memory instead. Default 1000 ms. */
  commandTimeoutMs?: number;
  /** After a failure, how long requests count in memory without asking Redis. Default 5000 ms. */
  retryAfterMs?: number;
  /** Default: a logger that drops everything. */
  logger?: Logger;
}

type ConsumeReply = [number, ...number[]];

/** The script, declared as a custom ioredis command (EVALSHA, EVAL on a fresh server). */
interface RedisWithConsume extends Redis {
  chsRateConsume(numKeys: number, ...args: Array<string | number>): Promise<ConsumeReply>;
}

export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: RedisWithConsume;
  readonly #prefix: string;
  readonly #logger: Logger;
  readonly #fallback = new MemoryRateLimitStore();
  readonly #retryAfterMs: number;
  #lastWarning = 0;
  /** Wall-clock ms before which Redis is not asked (it failed recently). */
  #skipUntil = 0;
  /** Counting in memory since a failure, until Redis answers again. */
  #degraded = false;
  #connecting: Promise<void> | undefined;
  #everReady = false;
  readonly #commandTimeoutMs: number;

  constructor(options: RedisRateLimitStoreOptions) {
    this.#prefix = options.prefix ?? 'chs:rl:';
    this.#logger = options.logger ?? silentLogger;
    this.#retryAfterMs = options.retryAfterMs ?? 5000;
    this.#commandTimeoutMs = options.commandTimeoutMs ?? 1000;
    const redis = new Redis(options.url, {
      lazyConnect: true,
      // Fail a command fast rather than hold a request while Redis is away (we fall back instead).
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      commandTimeout: this.#commandTimeoutMs,
      connectTimeout: 2000,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    // Connection errors are reported through failed commands; an unhandled 'error' event would crash.
    redis.on('error', () => undefined);
    redis.on('ready', () => {
      this.#everReady = true;
    });
    redis.defineCommand('chsRateConsume', { lua: CONSUME_SCRIPT });
    this.#redis = redis as RedisWithConsume;
  }

  /** Connects and checks that Redis answers; `chs serve` calls it at start-up to fail fast on a bad URL. */
  async connect(): Promise<void> {
    await this.#connected();
    await this.#redis.ping();
  }

  /** Redis answers now (readiness); rejects after the command timeout when it does not. */
  async ping(): Promise<void> {
    await this.#connected();
    await this.#redis.ping();
  }

  /**
   * The first connection, shared by every request that arrives before it is up, and waited for at
   * most one command timeout (a server that accepts and never answers must not hold requests).
   * Once it has been up, a reconnection is not waited for: the command fails at once (no offline
   * queue) and the request counts in memory.
   */
  #connected(): Promise<void> {
    if (this.#redis.status === 'ready') return Promise.resolve();
    if (this.#redis.status === 'wait') this.#connecting = this.#redis.connect();
    if (this.#everReady || !this.#connecting) return Promise.resolve();
    const first = this.#connecting;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Redis did not become ready within ${this.#commandTimeoutMs} ms`)), this.#commandTimeoutMs);
      first.then(resolve, reject).finally(() => clearTimeout(timer));
    });
  }

  async consume(windows: RateWindow[], nowMs: number): Promise<RateLimitResult> {
    if (windows.length === 0) return { allowed: true, states: [] };
    const current = windows.map((w) => {
      const start = Math.floor(nowMs / w.windowMs) * w.windowMs;
      return { w, id: `${this.#prefix}${w.key}@${start}`, resetAt: start + w.windowMs };
    });
    const args: Array<string | number> = [...current.map((c) => c.id)];
    for (const c of current) args.push(c.w.limit, c.resetAt + EXPIRY_SLACK_MS);
    if (Date.now() < this.#skipUntil) return this.#fallback.consume(windows, nowMs);
    let reply: ConsumeReply;
    try {
      await this.#connected();
      reply = await this.#redis.chsRateConsume(current.length, ...args);
    } catch (err) {
      this.#skipUntil = Date.now() + this.#retryAfterMs;
      this.#degraded = true;
      this.#warn(err);
      return this.#fallback.consume(windows, nowMs);
    }
    if (this.#degraded) {
      this.#degraded = false;
      this.#logger.info({}, 'Redis answers again; rate limits are shared by every runner again');
    }
    const allowed = reply[0] === 1;
    return {
      allowed,
      states: current.map((c, i) => {
        const count = Number(reply[i + 1] ?? 0);
        return { key: c.w.key, limit: c.w.limit, count, remaining: Math.max(0, c.w.limit - count), resetAt: c.resetAt };
      }),
    };
  }

  async close(): Promise<void> {
    if (this.#redis.status === 'wait' || this.#redis.status === 'end') {
      this.#redis.disconnect();
      return;
    }
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }

  #warn(err: unknown): void {
    const now = Date.now();
    if (now - this.#lastWarning < 60_000) return;
    this.#lastWarning = now;
    this.#logger.warn({ err: (err as Error).message }, 'Redis did not answer; rate limits are counted per runner until it does');
  }
}
