/**
 * The job runner inside `chs serve`: a JobWorker over the engine's job handlers (lease,
 * heartbeat, sweeper, bounded concurrency) and the scheduler's timer. `stop()` stops claiming,
 * asks running jobs to stop at their next checkpoint and waits a bounded time for them to go back
 * to the queue; a job that overruns keeps its lease until it expires and any runner's sweeper
 * takes it up.
 */
import { JobWorker, createJobHandlers, silentLogger, type Engine, type JobEvent, type Logger } from '@chs/core';
import { DEFAULT_JOBS_CONFIG, type RunnerConfig } from '../config.js';
import { Scheduler } from './scheduler.js';
import { createNotifier } from '../notify/notifier.js';

export interface JobService {
  readonly worker: JobWorker;
  /** Undefined when the scheduler is off (CHS_SCHEDULER=off). */
  readonly scheduler: Scheduler | undefined;
  /** Wakes the worker (a route just queued a job). */
  nudge(): void;
  /** Starts the worker and the scheduler's timer. */
  start(): void;
  /** Stops both; resolves within `config.jobs.shutdownMs` (plus the scheduler's current tick). */
  stop(): Promise<void>;
}

export interface JobServiceOptions {
  engine: Engine;
  config: RunnerConfig;
  logger?: Logger;
}

export function createJobService({ engine, config, logger = silentLogger }: JobServiceOptions): JobService {
  const jc = config.jobs ?? DEFAULT_JOBS_CONFIG;
  const db = engine.store.db;
  const onEvent = (e: JobEvent): void => {
    if (e.type === 'worker:error') {
      logger.error({ err: e.error.message }, 'job worker error');
      return;
    }
    const base = { jobId: e.job.id, kind: e.job.kind, source: e.job.source, workspaceId: e.job.workspaceId };
    if (e.type === 'job:start') logger.info({ ...base, attempt: e.job.attempts }, 'job started');
    else if (e.type === 'job:success') logger.info({ ...base, items: e.job.itemsProcessed }, 'job completed');
    else if (e.type === 'job:parked') logger.warn({ ...base, until: e.until }, 'job parked by a provider limit');
    else if (e.type === 'job:released') logger.info(base, 'job released back to the queue');
    else if (e.type === 'job:failed') logger.error({ ...base, err: e.error }, 'job failed');
  };
  const worker = new JobWorker({
    db,
    handlers: createJobHandlers(engine),
    concurrency: jc.concurrency,
    leaseMs: jc.leaseMs,
    pollMs: jc.pollMs,
    sweepMs: jc.sweepMs,
    logger,
    onEvent,
  });
  const scheduler = jc.schedulerEnabled
    ? new Scheduler({
        db,
        dataClock: engine.clock,
        logger,
        onEnqueued: () => worker.nudge(),
        notify: (
          (n) => (ws, now) =>
            n.run(ws, now)
        )(createNotifier(engine, config, logger)),
      })
    : undefined;
  let timer: NodeJS.Timeout | undefined;
  let tick: Promise<unknown> = Promise.resolve();
  return {
    worker,
    scheduler,
    nudge: () => worker.nudge(),
    start() {
      worker.start();
      if (scheduler) {
        // The first tick waits one period, so a runner that just started serves requests first.
        timer = setInterval(() => {
          tick = scheduler.tick(new Date()).catch((err: unknown) => logger.error({ err: String(err) }, 'scheduler tick failed'));
        }, jc.schedulerTickMs);
        timer.unref();
      }
    },
    async stop() {
      clearInterval(timer);
      await worker.stop(jc.shutdownMs);
      await tick;
    },
  };
}
