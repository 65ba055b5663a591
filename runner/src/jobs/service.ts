/**
 * The job runner inside `chs serve`: a JobWorker over the engine's job handlers (lease,
 * heartbeat, sweeper, bounded concurrency), the scheduler's timer, and the webhook dispatcher
 * (docs/events.md: any runner delivers what the outbox queued). `stop()` stops claiming, asks
 * running jobs to stop at their next checkpoint and waits a bounded time for them to go back to the
 * queue, and for delivery attempts in flight to end; a job that overruns keeps its lease until it
 * expires and any runner's sweeper takes it up, and so does an attempt.
 */
import { join } from 'node:path';
import {
  JobWorker,
  WebhookDispatcher,
  createJobHandlers,
  loadOrCreateSecretKey,
  silentLogger,
  type AttemptReport,
  type Engine,
  type JobEvent,
  type Logger,
} from '@chs/core';
import { DEFAULT_JOBS_CONFIG, DEFAULT_WEBHOOKS_CONFIG, type RunnerConfig } from '../config.js';
import { Scheduler } from './scheduler.js';
import { createMailer, type Mailer } from '../notify/mailer.js';
import { createNotifier } from '../notify/notifier.js';
import { webhookDisabledNotice } from '../notify/webhook-disabled.js';

export interface JobService {
  readonly worker: JobWorker;
  /** Undefined when the scheduler is off (CHS_SCHEDULER=off). */
  readonly scheduler: Scheduler | undefined;
  /** Delivers the webhooks of every workspace of the store (any runner of a scaled-out set may). */
  readonly webhooks: WebhookDispatcher;
  /** Wakes the worker (a route just queued a job). */
  nudge(): void;
  /** Starts the worker, the webhook dispatcher and the scheduler's timer. */
  start(): void;
  /** Stops them; resolves within `config.jobs.shutdownMs` (plus the scheduler's current tick). */
  stop(): Promise<void>;
}

export interface JobServiceOptions {
  engine: Engine;
  config: RunnerConfig;
  logger?: Logger;
  /** Every webhook delivery attempt (the Prometheus metrics of `chs serve`). Default none. */
  onWebhookAttempt?: (report: AttemptReport) => void;
  /** Sends the e-mail that tells a workspace's admins an endpoint was disabled. Default: as the notifier's (SMTP or the outbox). */
  mailer?: Mailer;
}

export function createJobService({ engine, config, logger = silentLogger, onWebhookAttempt, mailer: givenMailer }: JobServiceOptions): JobService {
  const jc = config.jobs ?? DEFAULT_JOBS_CONFIG;
  const wc = config.webhooks ?? DEFAULT_WEBHOOKS_CONFIG;
  const db = engine.store.db;
  // Made on first use: most runners never disable an endpoint, and an SMTP transport holds a pool.
  let mailer = givenMailer;
  const ownMailer = (): Mailer =>
    (mailer ??= createMailer({ ...(config.smtpUrl ? { smtpUrl: config.smtpUrl } : {}), outboxDir: join(config.dataDir, 'outbox') }));
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
  const notice = webhookDisabledNotice({
    db,
    mailer: ownMailer,
    ...(config.emailFromAllowList ? { senderAllowList: config.emailFromAllowList } : {}),
    publicUrl: config.publicUrl,
    logger,
  });
  const webhooks = new WebhookDispatcher({
    db,
    // The key that seals provider credentials seals endpoint secrets too; read when a delivery first needs it.
    secretKey: () => loadOrCreateSecretKey(config.dataDir, config.secretKey),
    logger,
    concurrency: wc.concurrency,
    pollMs: wc.pollMs,
    timeoutMs: wc.timeoutMs,
    allowPrivate: wc.allowPrivate,
    retryScheduleMs: wc.retryScheduleMs,
    disableAfterMs: wc.disableAfterMs,
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    onDisabled: notice,
    ...(onWebhookAttempt ? { onAttempt: onWebhookAttempt } : {}),
  });
  let timer: NodeJS.Timeout | undefined;
  let tick: Promise<unknown> = Promise.resolve();
  return {
    worker,
    scheduler,
    webhooks,
    nudge: () => worker.nudge(),
    start() {
      worker.start();
      webhooks.start();
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
      await Promise.all([worker.stop(jc.shutdownMs), webhooks.stop(Math.min(jc.shutdownMs, wc.timeoutMs))]);
      await tick;
      if (!givenMailer) mailer?.close();
    },
  };
}
