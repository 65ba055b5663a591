/**
 * In-process events for embedders: `engine.events.on('client.risk_entered', (e) => …)`. The same
 * catalogue as the webhooks, read from the outbox once committed, so a listener never hears of a
 * change that rolled back. Listeners hear events recorded after the engine was created, by this
 * process or any other using the same database, within `pollMs` (and at once after the engine's
 * own ingest, sync and rebuild). A listener that throws is logged and does not stop the others.
 * Delivery to a listener is at most once per process: what must not be missed belongs in a
 * webhook endpoint, which retries.
 */
import type { Db } from '../store/database.js';
import { toError } from '../errors.js';
import { silentLogger, type Logger } from '../util/logger.js';
import type { EngineEvent, EventType, AnyEngineEvent } from './catalogue.js';
import { outboxEnd, readOutbox, type OutboxCursor } from './outbox.js';

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

export class OutboxEmitter implements EngineEvents {
  readonly #db: Db;
  readonly #logger: Logger;
  readonly #pollMs: number;
  readonly #listeners = new Map<string, Set<AnyListener>>();
  #cursor: Promise<OutboxCursor> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<number> | undefined;
  #closed = false;

  constructor(db: Db, options: { logger?: Logger; pollMs?: number } = {}) {
    this.#db = db;
    this.#logger = options.logger ?? silentLogger;
    this.#pollMs = options.pollMs ?? 1000;
  }

  /** Marks where listening starts: events recorded from now on. Called when the engine is created. */
  begin(): Promise<void> {
    this.#cursor ??= outboxEnd(this.#db);
    return this.#cursor.then(() => undefined);
  }

  on<T extends EventType>(type: T, listener: EventListener<T>): () => void;
  on(type: '*', listener: AnyListener): () => void;
  on(type: string, listener: AnyListener): () => void {
    void this.begin();
    const set = this.#listeners.get(type) ?? new Set();
    set.add(listener);
    this.#listeners.set(type, set);
    this.#schedule();
    return () => this.off(type as EventType, listener);
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
    const run = async (): Promise<number> => {
      let n = 0;
      let cursor = await (this.#cursor ??= outboxEnd(this.#db));
      for (;;) {
        const { events, cursor: next } = await readOutbox(this.#db, cursor);
        cursor = next;
        this.#cursor = Promise.resolve(cursor);
        for (const e of events) n += await this.#emit(e);
        if (events.length < 500) return n;
      }
    };
    const p = (this.#flushing ?? Promise.resolve(0)).catch(() => 0).then(run);
    this.#flushing = p;
    return p;
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
