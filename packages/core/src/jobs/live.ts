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
/** After a stored batch the read counter is written if the last write is older than this (ms). */
const BATCH_MS = 200;

export interface LiveUpdate {
  /** Items read, over every attempt (what the attempt started from plus what it read). */
  read: number;
  /** Clients the stored batches touched so far (the health rebuild's size). */
  clients?: number;
  /** A batch was just stored: the read counter is written soon (BATCH_MS), so it is not seen behind the stored count. */
  stored?: boolean;
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
  #clients: number | undefined;
  #rebuild: JobLive['rebuild'];
  #dirty = true;
  #writing: Promise<void> | undefined;
  #lastWrite = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(o: {
    db: Db;
    jobId: string;
    owner: string;
    logger: Logger;
    readAtStart: number;
    total?: number | undefined;
    /** `rows`: the read counter counts provider rows, not the stored items (JobLive.readUnit). Default: items. */
    readUnit?: JobLive['readUnit'];
    everyMs?: number;
  }) {
    this.#db = o.db;
    this.#jobId = o.jobId;
    this.#owner = o.owner;
    this.#logger = o.logger;
    this.#everyMs = o.everyMs ?? LIVE_EVERY_MS;
    this.#read = o.readAtStart;
    this.#total = o.total;
    this.#base = { attemptStartedAt: new Date().toISOString(), readAtStart: o.readAtStart, ...(o.readUnit === 'rows' ? { readUnit: 'rows' as const } : {}) };
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
    const learned = (u.total !== undefined && this.#total === undefined) || (u.read > this.#read && this.#read === this.#base.readAtStart);
    const waiting = u.waiting && u.waiting.until.getTime() > Date.now() ? { reason: u.waiting.reason, until: u.waiting.until.toISOString() } : undefined;
    const waitChanged = waiting?.until !== this.#waiting?.until;
    if (u.read > this.#read) this.#read = u.read;
    if (u.clients !== undefined) this.#clients = u.clients;
    if (u.total !== undefined) this.#total = Math.max(u.total, this.#total ?? 0);
    this.#waiting = waiting;
    this.#dirty = true;
    const since = Date.now() - this.#lastWrite;
    if (learned || waitChanged || since >= this.#everyMs || (u.stored && since >= BATCH_MS)) void this.#flush(learned || waitChanged);
  }

  /** The read is over: the job rebuilds the health of `clients` clients now (written at once). */
  rebuilding(clients: number): Promise<void> {
    this.#phase = 'rebuilding';
    this.#waiting = undefined;
    this.#clients = clients;
    this.#rebuild = { startedAt: new Date().toISOString(), clients };
    this.#dirty = true;
    return this.#flush(true);
  }

  /** The rebuild took `ms`: kept in the job's live state, where the next job's estimate finds it (written at once). */
  rebuilt(ms: number): Promise<void> {
    if (this.#rebuild) this.#rebuild = { ...this.#rebuild, ms: Math.round(ms) };
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
    const live: JobLive = {
      ...this.#base,
      phase: this.#phase,
      ...(this.#waiting ? { waiting: this.#waiting } : {}),
      ...(this.#clients !== undefined ? { clients: this.#clients } : {}),
      ...(this.#rebuild ? { rebuild: this.#rebuild } : {}),
      at,
    };
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
