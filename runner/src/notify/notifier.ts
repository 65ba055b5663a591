/**
 * Sends what the engine plans (planNotifications): each message is claimed in the sent-log,
 * then handed to the mailer, then marked sent or failed. Called by the scheduler on every tick
 * and by `chs notify`.
 */
import { join } from 'node:path';
import {
  claimNotification, markFailed, markSent, planNotifications, recordSkipped, silentLogger, toError,
  type Db, type DigestKind, type Engine, type Logger, type NotificationKind, type NotificationMessage, type QuietDigest,
} from '@chs/core';
import type { RunnerConfig } from '../config.js';
import { createMailer, type Mailer } from './mailer.js';

export interface NotifierOptions {
  db: Db;
  mailer: Mailer;
  /** "Now" for the data (CHS_NOW). Default: the `now` of each run. */
  dataClock?: () => Date;
  /** Default: drops everything. */
  logger?: Logger;
}

export interface NotifyRunOptions {
  /** Plan only: nothing is claimed, sent or recorded. Default false. */
  dryRun?: boolean;
  /** Digests to include even outside their hour. Default none. */
  forceDigests?: DigestKind[];
}

export interface NotifyItem {
  kind: NotificationKind;
  dedupeKey: string;
  to: string[];
  subject: string;
}

export interface NotifyResult {
  workspaceId: string;
  dryRun: boolean;
  /** What the plan held (in a dry run: what would be sent). */
  planned: NotificationMessage[];
  sent: Array<NotifyItem & { transport: string; description: string; attempt: number }>;
  failed: Array<NotifyItem & { error: string; attempt: number; willRetry: boolean }>;
  /** Claimed by another runner (or an earlier pass) first. */
  claimedElsewhere: string[];
  quiet: QuietDigest[];
  notes: string[];
}

const item = (m: NotificationMessage): NotifyItem => ({ kind: m.kind, dedupeKey: m.dedupeKey, to: m.to, subject: m.subject });

export class Notifier {
  readonly #db: Db;
  readonly #mailer: Mailer;
  readonly #dataClock: (() => Date) | undefined;
  readonly #logger: Logger;

  constructor(options: NotifierOptions) {
    this.#db = options.db;
    this.#mailer = options.mailer;
    this.#dataClock = options.dataClock;
    this.#logger = options.logger ?? silentLogger;
  }

  get transport(): Mailer['transport'] {
    return this.#mailer.transport;
  }

  /** Plans at `now` (wall clock, the workspace zone decides digests) and sends unless a dry run. */
  async run(workspaceId: string, now: Date, options: NotifyRunOptions = {}): Promise<NotifyResult> {
    const dryRun = options.dryRun ?? false;
    const plan = await planNotifications(this.#db, workspaceId, {
      now, dataNow: this.#dataClock?.() ?? now, ...(options.forceDigests ? { forceDigests: options.forceDigests } : {}),
    });
    const result: NotifyResult = { workspaceId, dryRun, planned: plan.messages, sent: [], failed: [], claimedElsewhere: [], quiet: plan.quiet, notes: plan.notes };
    if (dryRun) return result;
    for (const q of plan.quiet) await recordSkipped(this.#db, workspaceId, q.kind, q.dedupeKey, q.reason, now);
    for (const m of plan.messages) {
      const attempt = await claimNotification(this.#db, {
        workspaceId, kind: m.kind, dedupeKey: m.dedupeKey, recipients: m.to, subject: m.subject, transport: this.#mailer.transport, now,
      });
      if (attempt === null) {
        result.claimedElsewhere.push(m.dedupeKey);
        continue;
      }
      try {
        const sent = await this.#mailer.send({ from: m.from, to: m.to, subject: m.subject, text: m.text, html: m.html });
        await markSent(this.#db, workspaceId, m.dedupeKey, sent.transport, now);
        result.sent.push({ ...item(m), transport: sent.transport, description: sent.description, attempt });
        this.#logger.info({ workspaceId, kind: m.kind, dedupeKey: m.dedupeKey, transport: sent.transport }, 'notification sent');
      } catch (err) {
        const error = toError(err).message;
        const next = await markFailed(this.#db, workspaceId, m.dedupeKey, attempt, now);
        result.failed.push({ ...item(m), error, attempt, willRetry: next === 'retry' });
        this.#logger.warn({ workspaceId, kind: m.kind, dedupeKey: m.dedupeKey, attempt, err: error }, 'notification not sent');
      }
    }
    return result;
  }
}

/** The runner's notifier: the configured transport (SMTP or the outbox) and the engine's data clock. */
export function createNotifier(engine: Engine, config: RunnerConfig, logger: Logger = silentLogger, mailer?: Mailer): Notifier {
  return new Notifier({
    db: engine.store.db,
    mailer: mailer ?? createMailer({ ...(config.smtpUrl ? { smtpUrl: config.smtpUrl } : {}), outboxDir: join(config.dataDir, 'outbox') }),
    dataClock: engine.clock,
    logger,
  });
}
