/**
 * A running attempt's live counters (docs/jobs.md#live-progress): what it has read from its source
 * and the source's total, written about once a second outside the batch transactions, so a job
 * that reads for minutes before its first batch is stored still moves in `/ingest/status`. The
 * stored counts stay where they were (recordJobProgress, with the data). A change worth seeing at
 * once — the total learned, a wait on the provider begun, the rebuild begun — is written at once.
 * A write that fails is logged and left: live counters never fail a job.
 */
import type { Db } from '../store/database.js';
import { toError } from '../errors.js';
import type { Logger } from '../util/logger.js';
import { recordJobLive, type JobLive } from './repository.js';

/** Live counters are written this often (ms), and at once on a change worth seeing. */
export const LIVE_EVERY_MS = 1000;
/**
 * Live counters older than this (ms) are an attempt that died (a crash, a SIGKILL): what it read
 * and did not store will be read again, so a status shows the stored count instead.
 */
export const LIVE_STALE_MS = 5000;

export interface LiveUpdate {
  /** Items read, over every attempt (what the attempt started from plus what it read). */
  read: number;
  total?: number | undefined;
  waiting?: { reason: string; until: Date } | undefined;
}

export class LiveProgress {
  readonly #db: Db;
  readonly #jobId: string;
  readonly #owner: string;
  readonly #logger: Logger;
  readonly #everyMs: number;
  readonly #base: Omit<JobLive, 'phase' | 'waiting' | 'at'>;
  #phase: JobLive['phase'] = 'reading';
  #read: number;
  #total: number | undefined;
  #waiting: JobLive['waiting'];
  #dirty = true;
  #writing: Promise<void> | undefined;
  #lastWrite = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(o: { db: Db; jobId: string; owner: string; logger: Logger; readAtStart: number; total?: number | undefined; everyMs?: number }) {
    this.#db = o.db;
    this.#jobId = o.jobId;
    this.#owner = o.owner;
    this.#logger = o.logger;
    this.#everyMs = o.everyMs ?? LIVE_EVERY_MS;
    this.#read = o.readAtStart;
    this.#total = o.total;
    this.#base = { attemptStartedAt: new Date().toISOString(), readAtStart: o.readAtStart };
  }

  /**
   * Writes the attempt's start at once (a restarted job shows its stored totals, not 0), then
   * every `everyMs` whether it changed or not: a write that is fresh says the attempt is alive
   * (a status reader trusts the read counter only while it is, LIVE_STALE_MS).
   */
  start(): Promise<void> {
    this.#timer = setInterval(() => void this.#flush(true), this.#everyMs);
    this.#timer.unref();
    return this.#flush(true);
  }

  update(u: LiveUpdate): void {
    const learned = u.total !== undefined && this.#total === undefined;
    const waiting = u.waiting && u.waiting.until.getTime() > Date.now() ? { reason: u.waiting.reason, until: u.waiting.until.toISOString() } : undefined;
    const waitChanged = waiting?.until !== this.#waiting?.until;
    if (u.read > this.#read) this.#read = u.read;
    if (u.total !== undefined) this.#total = Math.max(u.total, this.#total ?? 0);
    this.#waiting = waiting;
    this.#dirty = true;
    if (learned || waitChanged || Date.now() - this.#lastWrite >= this.#everyMs) void this.#flush(learned || waitChanged);
  }

  /** The read is over: the job rebuilds health now (written at once). */
  rebuilding(): Promise<void> {
    this.#phase = 'rebuilding';
    this.#waiting = undefined;
    this.#dirty = true;
    return this.#flush(true);
  }

  /** Stops the timer and waits for a write in flight. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#writing;
  }

  async #flush(force: boolean): Promise<void> {
    if (!this.#dirty && !force) return;
    if (this.#writing) {
      // One write at a time; what changed meanwhile goes in the next one.
      await this.#writing;
      if (!this.#dirty) return;
    }
    this.#dirty = false;
    this.#lastWrite = Date.now();
    const at = new Date(this.#lastWrite).toISOString();
    const live: JobLive = { ...this.#base, phase: this.#phase, ...(this.#waiting ? { waiting: this.#waiting } : {}), at };
    this.#writing = recordJobLive(this.#db, this.#jobId, this.#owner, {
      itemsRead: this.#read,
      ...(this.#total !== undefined ? { totalItems: this.#total } : {}),
      live,
    }).then(
      () => undefined,
      (err: unknown) => this.#logger.warn({ jobId: this.#jobId, err: toError(err).message }, 'could not record live progress'),
    );
    try {
      await this.#writing;
    } finally {
      this.#writing = undefined;
    }
  }
}
