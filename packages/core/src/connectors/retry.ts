/**
 * Politeness shared by every connector: bounded retries with exponential backoff and full
 * jitter, `Retry-After` / rate-limit-reset honoured, and a park signal when the wait would be too
 * long (a daily quota). The official clients' own retries are switched off (gaxios `retry:false`,
 * HubSpot `numberOfApiCallRetries` unset) so that every retry happens here and is counted once.
 */
import { ChsError, isChsError } from '../errors.js';

export interface RetryPolicy {
  /** Retries after the first attempt. Default 5. */
  maxRetries: number;
  /** First backoff step. Default 500 ms. */
  baseDelayMs: number;
  /** Cap of one backoff wait (not of a server-requested wait). Default 30 s. */
  maxDelayMs: number;
  /** A server-requested wait longer than this parks the sync instead. Default 15 min. */
  maxWaitMs: number;
  /** Sleeps; tests inject one that records and returns at once. Default: a real, abortable timer. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1). Default Math.random. */
  random: () => number;
  /**
   * Told before every wait the provider asked for (Retry-After, a rate-limit reset), with when it
   * ends: a job shows it is waiting, not stuck (docs/jobs.md#live-progress). Default: nobody.
   */
  onWait?: (wait: { reason: string; until: Date }) => void;
}

/** A header's value as text: headers are strings (numbers in some clients' objects). */
function headerText(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** Why a signal aborted, as the Error it was aborted with (every abort here passes one). */
function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('aborted', { cause: reason });
}

function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(abortReason(signal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxWaitMs: 15 * 60_000,
  sleep: realSleep,
  random: Math.random,
});

export function retryPolicy(overrides?: Partial<RetryPolicy>): Readonly<RetryPolicy> {
  return Object.freeze({ ...DEFAULT_RETRY_POLICY, ...overrides });
}

/** What to do with a failed attempt. */
export type Verdict =
  /** Transient: retry, after `afterMs` when the server said how long (Retry-After, reset). */
  | { kind: 'retry'; afterMs?: number; reason: string }
  /** Permanent for this call: rethrow `error` as is. */
  | { kind: 'fatal'; error: Error }
  /** Quota spent until `resumeAt`: stop the sync. */
  | { kind: 'park'; resumeAt: Date; reason: string };

export interface RetryContext {
  policy: Readonly<RetryPolicy>;
  signal?: AbortSignal | undefined;
  /** "Now" for turning a wait into a resume time. */
  now: () => Date;
  /** Called before each wait, e.g. to log; never with secrets. */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
}

/** Full-jitter exponential backoff: uniform in [0, min(max, base·2^attempt)]. */
function backoffDelay(policy: Readonly<RetryPolicy>, attempt: number): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(cap * policy.random());
}

function parkError(provider: string, resumeAt: Date, reason: string): ChsError {
  return new ChsError('PROVIDER_RATE_LIMITED', `${provider} quota exhausted (${reason}); resume after ${resumeAt.toISOString()}`, {
    details: { provider, resumeAt: resumeAt.toISOString(), reason },
  });
}

/**
 * Runs `op` until it succeeds, a verdict is fatal, or the retries are spent (then the last error
 * is thrown, wrapped as PROVIDER_ERROR unless it is already a ChsError).
 */
export async function withRetry<T>(provider: string, op: (attempt: number) => Promise<T>, classify: (err: unknown) => Verdict, ctx: RetryContext): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    ctx.signal?.throwIfAborted();
    try {
      return await op(attempt);
    } catch (err) {
      if (ctx.signal?.aborted) throw err;
      const verdict = classify(err);
      if (verdict.kind === 'fatal') throw verdict.error;
      if (verdict.kind === 'park') throw parkError(provider, verdict.resumeAt, verdict.reason);
      if (verdict.afterMs !== undefined && verdict.afterMs > ctx.policy.maxWaitMs) {
        throw parkError(provider, new Date(ctx.now().getTime() + verdict.afterMs), verdict.reason);
      }
      if (attempt >= ctx.policy.maxRetries) {
        if (isChsError(err)) throw err;
        throw new ChsError('PROVIDER_ERROR', `${provider}: ${verdict.reason} (gave up after ${attempt + 1} attempts)`, {
          cause: err,
          details: { provider, attempts: attempt + 1, reason: verdict.reason },
        });
      }
      // A server-requested wait gets a little jitter on top so parallel workers do not stampede.
      const delayMs =
        verdict.afterMs !== undefined
          ? verdict.afterMs + Math.round(Math.min(1000, ctx.policy.baseDelayMs) * ctx.policy.random())
          : backoffDelay(ctx.policy, attempt);
      ctx.onRetry?.({ attempt: attempt + 1, delayMs, reason: verdict.reason });
      if (verdict.afterMs !== undefined && verdict.afterMs > 0)
        ctx.policy.onWait?.({ reason: `${provider}: ${verdict.reason}`, until: new Date(Date.now() + delayMs) });
      await ctx.policy.sleep(delayMs, ctx.signal);
    }
  }
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const t = Date.parse(v);
  if (Number.isNaN(t)) return undefined;
  return Math.max(0, t - now.getTime());
}

/** Reads a header from a plain object, a Headers, or anything with `get`, case-insensitively. */
export function headerValue(headers: unknown, name: string): string | undefined {
  if (headers === null || headers === undefined) return undefined;
  if (typeof (headers as { get?: unknown }).get === 'function') {
    const v = (headers as { get(n: string): string | null }).get(name);
    return v ?? undefined;
  }
  if (typeof headers === 'object') {
    const lower = name.toLowerCase();
    for (const [k, v] of Object.entries(headers as Record<string, unknown>)) {
      if (k.toLowerCase() === lower) return headerText(Array.isArray(v) ? (v as unknown[])[0] : v);
    }
  }
  return undefined;
}

/** Message of an unknown error, short and free of secrets (bodies are provider error text). */
export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message.split('\n')[0] ?? err.message;
  return String(err);
}

/** A provider's per-user quota: `units` per `windowMs` (Gmail: 15,000 units a minute). */
export interface QuotaLimit {
  units: number;
  /** Default 60,000 ms. */
  windowMs?: number;
}

export interface RateLimiterOptions extends QuotaLimit {
  /**
   * Share of the quota left unused, so that requests already in flight and a server window that
   * does not start when ours does never push a window over the limit. Default 0.02.
   */
  headroom?: number;
  /** Units that may be spent at once after an idle spell. Default: one second's worth of quota. */
  burst?: number;
  /** Monotonic milliseconds. Default `performance.now`. */
  now?: () => number;
  /** Default: a real, abortable timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * A client-side token bucket matched to a provider quota. Reactive politeness alone (wait for the
 * 429, honour Retry-After) lets a fast client spend a minute's quota in its first seconds and then
 * collect a 429 on every request in flight, window after window; spending at the quota's own rate
 * keeps the client at the ceiling without being refused. Takers are served in arrival order. A 429
 * that still comes (another client of the same account) is left to `withRetry`, which waits out
 * its Retry-After while holding its concurrency slot.
 */
export class RateLimiter {
  readonly #rate: number;
  readonly #capacity: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  #tokens: number;
  #last: number;
  #queue: Promise<void> = Promise.resolve();

  constructor(o: RateLimiterOptions) {
    if (!(o.units > 0)) throw new ChsError('INVALID_INPUT', `a quota needs units > 0, got ${o.units}`);
    const windowMs = o.windowMs ?? 60_000;
    const headroom = Math.min(0.5, Math.max(0, o.headroom ?? 0.02));
    this.#rate = (o.units * (1 - headroom)) / windowMs;
    this.#capacity = Math.max(1, o.burst ?? this.#rate * 1000);
    this.#now = o.now ?? (() => performance.now());
    this.#sleep = o.sleep ?? realSleep;
    this.#tokens = this.#capacity;
    this.#last = this.#now();
  }

  /** Units per minute this limiter spends at most, steadily. */
  get unitsPerMinute(): number {
    return this.#rate * 60_000;
  }

  /** Waits until `units` may be spent, then spends them. */
  take(units: number, signal?: AbortSignal): Promise<void> {
    const turn = this.#queue.then(() => this.#wait(units, signal));
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  #refill(now: number): void {
    if (now > this.#last) this.#tokens = Math.min(this.#capacity, this.#tokens + (now - this.#last) * this.#rate);
    this.#last = Math.max(this.#last, now);
  }

  async #wait(units: number, signal?: AbortSignal): Promise<void> {
    // A call dearer than the burst would never fit: it goes when the bucket is full, into debt.
    const need = Math.min(units, this.#capacity);
    for (;;) {
      signal?.throwIfAborted();
      this.#refill(this.#now());
      if (this.#tokens >= need) {
        this.#tokens -= units;
        return;
      }
      await this.#sleep(Math.max(1, Math.ceil((need - this.#tokens) / this.#rate)), signal);
    }
  }
}

/**
 * Client-side quota buckets, one per account and quota: every connector of one account built with
 * the same `RateLimiters` (a quick sync, a backfill and a large ingestion of one mailbox running
 * at once) draws on one bucket, as the provider counts them against one quota. The engine owns one
 * and hands it to every connector it builds; nothing is kept at module level, so two engines in a
 * process do not share buckets and no bucket outlives its engine.
 */
export class RateLimiters {
  readonly #buckets = new Map<string, RateLimiter>();

  /** The bucket of `account` (any stable key: provider, API root, address) for `quota`, made on first use. */
  get(account: string, quota: QuotaLimit): RateLimiter {
    const windowMs = quota.windowMs ?? 60_000;
    const key = `${account}\u0000${quota.units}/${windowMs}`;
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = new RateLimiter({ units: quota.units, windowMs });
      this.#buckets.set(key, bucket);
    }
    return bucket;
  }
}
