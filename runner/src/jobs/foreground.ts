/**
 * Running one queued job in this process (`chs sync`): claim that very job with a lease, run its
 * handler with a heartbeat, and end it the way the worker would. The job goes through the jobs
 * table, so the one-active-job rule holds against a running `chs serve` and its scheduler. If a
 * server's worker claimed the job first, this follows it to its end instead.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { createJobHandlers, getJob, heartbeatJob, isChsError, toError, transitionJob, type Engine, type Job, type JobOutcome } from '@chs/core';

export interface ForegroundOptions {
  leaseMs: number;
  /** Aborting cancels the job (its checkpoint is kept, so the next sync resumes from it). */
  signal?: AbortSignal;
  /** Called with the job row about twice a second while it runs. */
  onProgress?: (job: Job) => void;
  /** Poll period of the progress (and of following a job another runner took). Default 500 ms. */
  pollMs?: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function runJobInForeground(engine: Engine, queued: Job, o: ForegroundOptions): Promise<Job> {
  const db = engine.store.db;
  const owner = `${hostname()}:${process.pid}:cli:${randomBytes(4).toString('hex')}`;
  const pollMs = o.pollMs ?? 500;
  const claimed = await transitionJob(db, queued.id, 'queued', 'running', {
    patch: { leaseOwner: owner, leaseExpiresAt: new Date(Date.now() + o.leaseMs).toISOString() },
    event: { owner, foreground: true },
  });
  if (!claimed) return follow(engine, queued.id, o, pollMs);

  const abort = new AbortController();
  const onAbort = () => abort.abort(new Error('interrupted'));
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const beat = setInterval(
    () => {
      heartbeatJob(db, claimed.id, owner, o.leaseMs).then(
        (ok) => {
          if (!ok) abort.abort(new Error('lease lost'));
        },
        () => undefined,
      );
    },
    Math.max(50, Math.floor(o.leaseMs / 3)),
  );
  const progress = setInterval(() => {
    void getJob(db, claimed.id).then(
      (j) => {
        if (j) o.onProgress?.(j);
      },
      () => undefined,
    );
  }, pollMs);
  let outcome: JobOutcome;
  try {
    const handler = createJobHandlers(engine)[claimed.kind];
    outcome = await handler(claimed, { owner, signal: abort.signal });
  } catch (err) {
    const e = toError(err);
    outcome = { outcome: 'failed', error: e.message, recoverable: !isChsError(e, 'INTEGRATION_NEEDS_REAUTH') };
  } finally {
    clearInterval(beat);
    clearInterval(progress);
    o.signal?.removeEventListener('abort', onAbort);
  }
  // Every path ends in a transition, as in the worker. An interrupted foreground run is cancelled
  // rather than released: no server may be running to take it up, and it would hold the slot.
  if (outcome.outcome === 'completed') {
    await transitionJob(db, claimed.id, 'running', 'completed', { owner });
  } else if (outcome.outcome === 'failed') {
    await transitionJob(db, claimed.id, 'running', 'failed', {
      owner,
      patch: { lastError: outcome.error, error: { message: outcome.error, count: 1, severity: 'fatal', recoverable: outcome.recoverable ?? false } },
    });
  } else if (outcome.outcome === 'parked') {
    const until = outcome.until.toISOString();
    await transitionJob(db, claimed.id, 'running', 'parked', {
      owner,
      patch: {
        parkedUntil: until,
        lastError: outcome.reason,
        error: { message: `${outcome.reason}; resumes at ${until}`, count: 1, severity: 'warning', recoverable: true },
      },
    });
  } else {
    await transitionJob(db, claimed.id, 'running', 'cancelled', { owner, event: { reason: 'interrupted (foreground)' } });
  }
  const done = await getJob(db, claimed.id);
  if (!done) throw new Error(`job ${claimed.id} vanished`);
  o.onProgress?.(done);
  return done;
}

/** Another runner claimed the job: watch it until it ends, parks, or we are interrupted. */
async function follow(engine: Engine, id: string, o: ForegroundOptions, pollMs: number): Promise<Job> {
  for (;;) {
    const j = await getJob(engine.store.db, id);
    if (!j) throw new Error(`job ${id} vanished`);
    o.onProgress?.(j);
    if (j.state === 'completed' || j.state === 'failed' || j.state === 'cancelled' || j.state === 'parked' || o.signal?.aborted) return j;
    await sleep(pollMs);
  }
}
