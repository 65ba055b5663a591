/**
 * In-process events for embedders: `engine.events.on('client.risk_entered', (e) => …)`. The same
 * catalogue as the webhooks, read from the outbox once committed, so a listener never hears of a
 * change that rolled back. Listeners hear events recorded after the engine was created, by this
 * process or any other using the same database, within `pollMs` (and at once after the engine's
 * own ingest, sync and rebuild). A listener that throws is logged and does not stop the others.
 * Order: by seq, except that an event whose transaction took its seq before a later one's and
 * committed after it (PostgreSQL) is heard when it commits: a gap in the seqs read is looked for
 * again for `gapWaitMs` (a rolled-back transaction leaves a gap that never fills).
 * Delivery to a listener is at most once per process: what must not be missed belongs in a
 * webhook endpoint, which retries.
 */
import type { Db } from '../store/database.js';
import { toError } from '../errors.js';
import { silentLogger, type Logger } from '../util/logger.js';
import type { EngineEvent, EventType, AnyEngineEvent } from './catalogue.js';
import { outboxEnd, readOutbox, readOutboxSeqs, type OutboxRow } from './outbox.js';

export type EventListener<T extends EventType> = (event: EngineEvent<T>) => void | Promise<void>;
type AnyListener = (event: AnyEngineEvent) => void | Promise<void>;

export interface EngineEvents {
  /** Calls `listener` for every event of `type` (or of every type with `'*'`). Returns a function that removes it. */
  on<T extends EventType>(type: T, listener: EventListener<T>): () => void;
  on(type: '*', listener: AnyListener): () => void;
  off<T extends EventType>(type: T | '*', listener: EventListener<T> | AnyListener): void;
  /** Reads the outbox now and calls the listeners of what it finds. */
  flush(): Promise<number>;
}

/** How long a gap in the seqs read is looked for again before it is taken as a rollback. */
const GAP_WAIT_MS = 60_000;
/** Gaps tracked at most (a burst of rollbacks must not grow memory without bound). */
const MAX_GAPS = 10_000;
const PAGE = 500;

export class OutboxEmitter implements EngineEvents {
  readonly #db: Db;
  readonly #logger: Logger;
  readonly #pollMs: number;
  readonly #gapWaitMs: number;
  readonly #listeners = new Map<string, Set<AnyListener>>();
  /** The highest seq read (at first: the end of the outbox when listening began). */
  #high: Promise<number> | undefined;
  /** Seqs below the highest read and not seen yet → when the gap was first seen (ms). */
  readonly #gaps = new Map<number, number>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<number> | undefined;
  #closed = false;

  constructor(db: Db, options: { logger?: Logger; pollMs?: number; gapWaitMs?: number } = {}) {
    this.#db = db;
    this.#logger = options.logger ?? silentLogger;
    this.#pollMs = options.pollMs ?? 1000;
    this.#gapWaitMs = options.gapWaitMs ?? GAP_WAIT_MS;
  }

  /** Marks where listening starts: events recorded from now on. Called when the engine is created. */
  async begin(): Promise<void> {
    this.#high ??= outboxEnd(this.#db);
    await this.#high;
  }

  on<T extends EventType>(type: T, listener: EventListener<T>): () => void;
  on(type: '*', listener: AnyListener): () => void;
  on(type: string, listener: AnyListener): () => void {
    void this.begin();
    const set = this.#listeners.get(type) ?? new Set();
    set.add(listener);
    this.#listeners.set(type, set);
    this.#schedule();
    return () => this.off(type, listener);
  }

  off(type: string, listener: unknown): void {
    const set = this.#listeners.get(type);
    set?.delete(listener as AnyListener);
    if (set && set.size === 0) this.#listeners.delete(type);
    if (this.#listeners.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #schedule(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setInterval(() => {
      this.flush().catch((err: unknown) => this.#logger.error({ err: toError(err).message }, 'engine events: could not read the outbox'));
    }, this.#pollMs);
    this.#timer.unref();
  }

  flush(): Promise<number> {
    if (this.#listeners.size === 0 || this.#closed) return Promise.resolve(0);
    // One read at a time, in order.
    const p = (this.#flushing ?? Promise.resolve(0)).catch(() => 0).then(() => this.#read());
    this.#flushing = p;
    return p;
  }

  async #read(): Promise<number> {
    let n = 0;
    let high = await (this.#high ??= outboxEnd(this.#db));
    const now = Date.now();
    for (;;) {
      const rows = await readOutbox(this.#db, high, PAGE);
      for (const r of rows) {
        for (let s = high + 1; s < r.seq && this.#gaps.size < MAX_GAPS; s++) this.#gaps.set(s, now);
        high = r.seq;
        this.#high = Promise.resolve(high);
        n += await this.#emitRow(r);
      }
      if (rows.length < PAGE) break;
    }
    if (this.#gaps.size > 0) {
      for (const r of await readOutboxSeqs(this.#db, [...this.#gaps.keys()])) {
        this.#gaps.delete(r.seq);
        n += await this.#emitRow(r);
      }
      for (const [seq, since] of this.#gaps) if (now - since > this.#gapWaitMs) this.#gaps.delete(seq);
    }
    return n;
  }

  #emitRow(r: OutboxRow): Promise<number> {
    return r.event ? this.#emit(r.event) : Promise.resolve(0);
  }

  async #emit(e: AnyEngineEvent): Promise<number> {
    let n = 0;
    for (const l of [...(this.#listeners.get(e.type) ?? []), ...(this.#listeners.get('*') ?? [])]) {
      try {
        await l(e);
        n += 1;
      } catch (err) {
        this.#logger.error({ eventId: e.id, type: e.type, err: toError(err).message }, 'an engine event listener threw');
      }
    }
    return n;
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#listeners.clear();
  }
}
