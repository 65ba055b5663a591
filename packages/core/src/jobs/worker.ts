/**
 * Job workers: claim with a lease, heartbeat while running, release on every path, and a
 * sweeper that returns jobs of dead workers to the queue. A failure is stored state, not a
 * thrown exception; listeners cannot kill a worker (events go through `safeEmit`).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from '../store/database.js';
import { isChsError, toError } from '../errors.js';
import type { Logger } from '../util/logger.js';
import { silentLogger } from '../util/logger.js';
import { claimNextJob, getJob, heartbeatJob, sweepExpiredLeases, transitionJob, type Job } from './repository.js';
import type { JobKind } from './states.js';

export interface JobContext {
  /** This worker's lease owner id (pass it to recordJobProgress). */
  owner: string;
  /** Aborted when the runner shuts down or the job lost its lease / was cancelled. */
  signal: AbortSignal;
}

/** What a handler returns; throwing is the same as `{ outcome: 'failed' }` with the error. */
export type JobOutcome =
  | { outcome: 'completed' }
  | { outcome: 'failed'; error: string; recoverable?: boolean }
  | { outcome: 'parked'; until: Date; reason: string }
  /** Stopped because of shutdown: back to the queue, to resume from its checkpoint. */
  | { outcome: 'released' };

export type JobHandler = (job: Job, ctx: JobContext) => Promise<JobOutcome>;

export type JobEvent =
  | { type: 'job:start'; job: Job }
  | { type: 'job:success'; job: Job }
  | { type: 'job:failed'; job: Job; error: string }
  | { type: 'job:parked'; job: Job; until: string }
  | { type: 'job:released'; job: Job }
  | { type: 'worker:error'; error: Error };

export interface JobWorkerOptions {
  db: Db;
  handlers: Partial<Record<JobKind, JobHandler>>;
  /** Jobs run at once by this process. Default 2. */
  concurrency?: number;
  /** Lease length. Default 30 s; heartbeats every third of it. */
  leaseMs?: number;
  /** How often to look for work when idle. Default 1 s. */
  pollMs?: number;
  /** How often to sweep expired leases. Default 10 s. */
  sweepMs?: number;
  logger?: Logger;
  onEvent?: (e: JobEvent) => void;
  /** Owner id; default host:pid:random. */
  owner?: string;
}

export class JobWorker {
  readonly owner: string;
  readonly #o: Required<Omit<JobWorkerOptions, 'onEvent' | 'owner'>> & Pick<JobWorkerOptions, 'onEvent'>;
  readonly #running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  #stopping = false;
  #timer: NodeJS.Timeout | undefined;
  #sweeper: NodeJS.Timeout | undefined;
  #polling = false;

  constructor(options: JobWorkerOptions) {
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.#o = {
      db: options.db,
      handlers: options.handlers,
      concurrency: options.concurrency ?? 2,
      leaseMs: options.leaseMs ?? 30_000,
      pollMs: options.pollMs ?? 1000,
      sweepMs: options.sweepMs ?? 10_000,
      logger: options.logger ?? silentLogger,
      onEvent: options.onEvent,
    };
  }

  get activeJobs(): string[] {
    return [...this.#running.keys()];
  }

  start(): void {
    this.#stopping = false;
    this.#timer = setInterval(() => void this.poll(), this.#o.pollMs);
    this.#sweeper = setInterval(() => void this.sweep(), this.#o.sweepMs);
    void this.sweep().then(() => this.poll());
  }

  /** Wakes the worker now (e.g. right after a job was queued). */
  nudge(): void {
    void this.poll();
  }

  async sweep(): Promise<number> {
    try {
      const n = await sweepExpiredLeases(this.#o.db);
      if (n) this.#o.logger.warn({ jobs: n }, 'returned jobs with expired leases to the queue');
      return n;
    } catch (err) {
      this.#emit({ type: 'worker:error', error: toError(err) });
      return 0;
    }
  }

  /** Claims and starts jobs up to the concurrency limit. */
  async poll(): Promise<void> {
    if (this.#polling || this.#stopping) return;
    this.#polling = true;
    try {
      const kinds = Object.keys(this.#o.handlers) as JobKind[];
      while (!this.#stopping && this.#running.size < this.#o.concurrency) {
        const job = await claimNextJob(this.#o.db, this.owner, this.#o.leaseMs, new Date(), kinds);
        if (!job) break;
        this.#launch(job);
      }
    } catch (err) {
      this.#emit({ type: 'worker:error', error: toError(err) });
    } finally {
      this.#polling = false;
    }
  }

  #launch(job: Job): void {
    const abort = new AbortController();
    const done = this.#run(job, abort).finally(() => {
      this.#running.delete(job.id);
      if (!this.#stopping) void this.poll();
    });
    this.#running.set(job.id, { abort, done });
  }

  async #run(job: Job, abort: AbortController): Promise<void> {
    const { db, leaseMs, logger } = this.#o;
    const handler = this.#o.handlers[job.kind];
    this.#emit({ type: 'job:start', job });
    const beat = setInterval(
      () => {
        heartbeatJob(db, job.id, this.owner, leaseMs).then(
          (ok) => {
            if (!ok) abort.abort(new Error('lease lost'));
          },
          (err: unknown) => this.#emit({ type: 'worker:error', error: toError(err) }),
        );
      },
      Math.max(50, Math.floor(leaseMs / 3)),
    );
    let outcome: JobOutcome;
    try {
      outcome = handler ? await handler(job, { owner: this.owner, signal: abort.signal }) : { outcome: 'failed', error: `no handler for ${job.kind} jobs` };
    } catch (err) {
      const e = toError(err);
      outcome = { outcome: 'failed', error: e.message, recoverable: !isChsError(e, 'INTEGRATION_NEEDS_REAUTH') };
      logger.error({ jobId: job.id, err: e.message }, 'job failed');
    } finally {
      clearInterval(beat);
    }
    // We MUST release the job once we've attempted it: every path ends in a transition.
    try {
      const current = await getJob(db, job.id);
      if (!current || current.state !== 'running' || current.leaseOwner !== this.owner) return; // cancelled or swept meanwhile
      if (outcome.outcome === 'completed') {
        const j = await transitionJob(db, job.id, 'running', 'completed', { owner: this.owner });
        if (j) this.#emit({ type: 'job:success', job: j });
      } else if (outcome.outcome === 'failed') {
        const j = await transitionJob(db, job.id, 'running', 'failed', {
          owner: this.owner,
          patch: { lastError: outcome.error, error: { message: outcome.error, count: 1, severity: 'fatal', recoverable: outcome.recoverable ?? false } },
        });
        if (j) this.#emit({ type: 'job:failed', job: j, error: outcome.error });
      } else if (outcome.outcome === 'parked') {
        const until = outcome.until.toISOString();
        const j = await transitionJob(db, job.id, 'running', 'parked', {
          owner: this.owner,
          patch: {
            parkedUntil: until,
            lastError: outcome.reason,
            error: { message: `${outcome.reason}; resumes at ${until}`, count: 1, severity: 'warning', recoverable: true },
          },
        });
        if (j) this.#emit({ type: 'job:parked', job: j, until });
      } else {
        const j = await transitionJob(db, job.id, 'running', 'queued', { owner: this.owner, event: { reason: 'released' } });
        if (j) this.#emit({ type: 'job:released', job: j });
      }
    } catch (err) {
      this.#emit({ type: 'worker:error', error: toError(err) });
    }
  }

  /**
   * Stops claiming, asks running jobs to stop at their next checkpoint, and waits up to
   * `timeoutMs` for them to release. A job that does not finish in time keeps its lease until
   * it expires, and the sweeper of any runner takes it up.
   */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#timer);
    clearInterval(this.#sweeper);
    for (const r of this.#running.values()) r.abort.abort(new Error('shutdown'));
    const all = Promise.allSettled([...this.#running.values()].map((r) => r.done));
    let t: NodeJS.Timeout | undefined;
    await Promise.race([
      all,
      new Promise<void>((res) => {
        t = setTimeout(res, timeoutMs);
      }),
    ]);
    clearTimeout(t);
  }

  #emit(e: JobEvent): void {
    try {
      this.#o.onEvent?.(e);
    } catch (err) {
      this.#o.logger.warn({ err: toError(err).message }, 'job event listener threw');
    }
  }
}
