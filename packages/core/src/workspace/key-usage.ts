/**
 * `lastUsedAt` of API keys without a database write per request.
 *
 * Each authenticated request calls `touch()` (a Map set); `flush()` writes the latest time of
 * every touched key in one transaction, every `intervalMs` and on `stop()`. Writes only move
 * `last_used_at` forward, so several runners flushing the same key in any order agree. The
 * owning user's `last_login_at` follows the same way. What a crash loses is at most one
 * interval of `lastUsedAt` precision, never a key's validity (that is checked on every request).
 */
import type { Db } from '../store/database.js';
import type { Logger } from '../util/logger.js';
import { silentLogger } from '../util/logger.js';

export interface KeyUsageTrackerOptions {
  /** Milliseconds between automatic flushes once started. Default 30000. */
  intervalMs?: number;
  /** Default: silent. */
  logger?: Logger;
}

interface Pending {
  /** Epoch ms (made ISO text only when read or written: touch runs on every request). */
  at: number;
  userId: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export class KeyUsageTracker {
  readonly #db: Db;
  readonly #intervalMs: number;
  readonly #logger: Logger;
  #pending = new Map<string, Pending>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<number> | undefined;

  constructor(db: Db, options: KeyUsageTrackerOptions = {}) {
    this.#db = db;
    this.#intervalMs = options.intervalMs ?? 30_000;
    this.#logger = options.logger ?? silentLogger;
  }

  /** Records a use of a key (wall-clock time). No I/O. */
  touch(key: { id: string; userId: string }, at: Date | number = Date.now()): void {
    const ms = typeof at === 'number' ? at : at.getTime();
    const prev = this.#pending.get(key.id);
    if (!prev) this.#pending.set(key.id, { at: ms, userId: key.userId });
    else if (prev.at < ms) prev.at = ms;
  }

  /** The last use recorded here and not yet flushed, if any: listings merge it over the stored value. */
  pendingLastUsed(keyId: string): string | undefined {
    const p = this.#pending.get(keyId);
    return p ? iso(p.at) : undefined;
  }

  /** The latest unflushed use of any key of a user. */
  pendingUserLastUsed(userId: string): string | undefined {
    let latest: number | undefined;
    for (const p of this.#pending.values()) if (p.userId === userId && (latest === undefined || p.at > latest)) latest = p.at;
    return latest === undefined ? undefined : iso(latest);
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Writes every pending use; resolves to how many keys were written. Concurrent calls share one flush. */
  flush(): Promise<number> {
    this.#flushing ??= this.#flushOnce().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  async #flushOnce(): Promise<number> {
    if (this.#pending.size === 0) return 0;
    const batch = this.#pending;
    this.#pending = new Map();
    const users = new Map<string, number>();
    for (const p of batch.values()) {
      const prev = users.get(p.userId);
      if (prev === undefined || prev < p.at) users.set(p.userId, p.at);
    }
    try {
      await this.#db.transaction().execute(async (trx) => {
        for (const [id, p] of batch) {
          await trx
            .updateTable('api_keys')
            .set({ last_used_at: iso(p.at) })
            .where('id', '=', id)
            .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', iso(p.at))]))
            .execute();
        }
        for (const [userId, at] of users) {
          await trx
            .updateTable('users')
            .set({ last_login_at: iso(at) })
            .where('id', '=', userId)
            .where((eb) => eb.or([eb('last_login_at', 'is', null), eb('last_login_at', '<', iso(at))]))
            .execute();
        }
      });
      return batch.size;
    } catch (err) {
      // Keep what could not be written for the next flush, unless a newer use replaced it.
      for (const [id, p] of batch) {
        const now = this.#pending.get(id);
        if (!now || now.at < p.at) this.#pending.set(id, p);
      }
      this.#logger.warn({ err: err instanceof Error ? err.message : String(err), keys: batch.size }, 'could not record API key usage; will retry');
      return 0;
    }
  }

  /** Starts periodic flushing (the timer does not keep the process alive). */
  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      void this.flush();
    }, this.#intervalMs);
    this.#timer.unref();
  }

  /** Stops the timer and flushes what is pending. */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }
}
