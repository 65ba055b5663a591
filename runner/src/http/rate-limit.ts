/**
 * Rate limits: per key 100/minute AND 1,000/hour, per workspace 10,000/day (docs/api.md) and
 * 300/minute (all its keys together, so minting keys does not multiply the budget), all
 * configurable; requests without a valid key count per client IP against the per-key minute
 * and hour limits.
 *
 * Why not @fastify/rate-limit: one registration enforces one window on one key; enforcing three
 * windows on two keys at once means three registrations whose `X-RateLimit-*` headers overwrite
 * one another, while the design asks for the headers of the window nearest exhaustion, one 429
 * whose Retry-After waits for every exhausted window, and nothing counted for a refused request
 * (a client stopped by the minute limit must not burn its hour or day). So: fixed windows aligned
 * to the clock (minute, hour, UTC day) behind a small all-or-nothing store interface. The store
 * here is in memory (one process); several runners share RedisRateLimitStore (redis-rate-limit.ts,
 * chosen by `chs serve` when CHS_REDIS_URL is set), passed in AppDeps.rateLimitStore.
 */
import type { RateLimitConfig } from '../config.js';
import { DAY_MS } from '@chs/core';

export interface RateWindow {
  /** Bucket identity, e.g. `key:<id>:minute`. */
  key: string;
  limit: number;
  windowMs: number;
}

interface WindowState {
  key: string;
  limit: number;
  /** Requests counted in the current window, this one included when it was allowed. */
  count: number;
  remaining: number;
  /** Epoch ms when the window resets. */
  resetAt: number;
}

export interface RateLimitResult {
  allowed: boolean;
  states: WindowState[];
}

/**
 * Counters for fixed windows. `consume` is all-or-nothing: if any window is full, nothing is
 * counted and `allowed` is false; otherwise every window is incremented.
 */
export interface RateLimitStore {
  consume(windows: RateWindow[], nowMs: number): Promise<RateLimitResult>;
  close?(): Promise<void>;
  /** A shared store's server answers (`GET /api/ready`); rejects when it does not. In-process stores have none. */
  ping?(): Promise<void>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  #counts = new Map<string, { count: number; resetAt: number }>();
  #lastSweep = 0;

  async consume(windows: RateWindow[], nowMs: number): Promise<RateLimitResult> {
    this.#sweep(nowMs);
    const current = windows.map((w) => {
      const start = Math.floor(nowMs / w.windowMs) * w.windowMs;
      const resetAt = start + w.windowMs;
      const id = `${w.key}@${start}`;
      const entry = this.#counts.get(id);
      return { w, id, resetAt, count: entry?.count ?? 0 };
    });
    const allowed = current.every((c) => c.count < c.w.limit);
    if (allowed) {
      for (const c of current) {
        c.count += 1;
        this.#counts.set(c.id, { count: c.count, resetAt: c.resetAt });
      }
    }
    return {
      allowed,
      states: current.map((c) => ({ key: c.w.key, limit: c.w.limit, count: c.count, remaining: Math.max(0, c.w.limit - c.count), resetAt: c.resetAt })),
    };
  }

  /** Drops finished windows at most once a minute, so memory follows the active keys. */
  #sweep(nowMs: number): void {
    if (nowMs - this.#lastSweep < 60_000) return;
    this.#lastSweep = nowMs;
    for (const [id, e] of this.#counts) if (e.resetAt <= nowMs) this.#counts.delete(id);
  }

  get size(): number {
    return this.#counts.size;
  }
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** The windows a request is counted in. */
export function windowsFor(caller: { keyId: string; workspaceId: string } | { ip: string }, limits: RateLimitConfig): RateWindow[] {
  if ('ip' in caller) {
    return [
      { key: `ip:${caller.ip}:minute`, limit: limits.perKeyMinute, windowMs: MINUTE },
      { key: `ip:${caller.ip}:hour`, limit: limits.perKeyHour, windowMs: HOUR },
    ];
  }
  return [
    { key: `key:${caller.keyId}:minute`, limit: limits.perKeyMinute, windowMs: MINUTE },
    { key: `key:${caller.keyId}:hour`, limit: limits.perKeyHour, windowMs: HOUR },
    // All keys of the workspace together: a new key brings no new minute budget.
    { key: `ws:${caller.workspaceId}:minute`, limit: limits.perWorkspaceMinute, windowMs: MINUTE },
    { key: `ws:${caller.workspaceId}:day`, limit: limits.perWorkspaceDay, windowMs: DAY_MS },
  ];
}

/**
 * The window the headers describe. Allowed: the one with the fewest requests left (ties: the
 * later reset, the more conservative). Refused: among the full windows, the one resetting last —
 * the request cannot succeed before then.
 */
function reportedWindow(result: RateLimitResult): WindowState {
  const candidates = result.allowed ? result.states : result.states.filter((s) => s.remaining === 0);
  const pool = candidates.length > 0 ? candidates : result.states;
  let best = pool[0];
  if (!best) throw new Error('no rate-limit window');
  for (const s of pool) {
    if (!result.allowed) {
      if (s.resetAt > best.resetAt) best = s;
    } else if (s.remaining < best.remaining || (s.remaining === best.remaining && s.resetAt > best.resetAt)) {
      best = s;
    }
  }
  return best;
}

/** The three `X-RateLimit-*` headers, plus `Retry-After` when refused. */
export function rateLimitHeaders(result: RateLimitResult, nowMs: number): Record<string, string> {
  const w = reportedWindow(result);
  const headers: Record<string, string> = {
    'x-ratelimit-limit': String(w.limit),
    'x-ratelimit-remaining': String(w.remaining),
    'x-ratelimit-reset': String(Math.ceil(w.resetAt / 1000)),
  };
  if (!result.allowed) headers['retry-after'] = String(Math.max(1, Math.ceil((w.resetAt - nowMs) / 1000)));
  return headers;
}
