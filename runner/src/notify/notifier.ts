/**
 * Sends what the engine plans (planNotifications): each message is claimed in the sent-log,
 * then handed to the mailer, then marked sent or failed. Called by the scheduler on every tick
 * and by `chs notify`.
 */
import { join } from 'node:path';
import {
  claimNotification,
  effectiveSender,
  markFailed,
  markSent,
  planNotifications,
  recordSkipped,
  silentLogger,
  toError,
  type Db,
  type DigestKind,
  type Engine,
  type Logger,
  type NotificationKind,
  type NotificationMessage,
  type QuietDigest,
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
  /** Senders allowed beyond each workspace's domains (CHS_EMAIL_FROM_ALLOWLIST). Default none. */
  senderAllowList?: readonly string[];
}

export interface NotifyRunOptions {
  /** Plan only: nothing is claimed, sent or recorded. Default false. */
  dryRun?: boolean;
  /** Digests to include even outside their hour. Default none. */
  forceDigests?: DigestKind[];
}

interface NotifyItem {
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
  readonly #senderAllowList: readonly string[];

  constructor(options: NotifierOptions) {
    this.#db = options.db;
    this.#mailer = options.mailer;
    this.#dataClock = options.dataClock;
    this.#logger = options.logger ?? silentLogger;
    this.#senderAllowList = options.senderAllowList ?? [];
  }

  get transport(): Mailer['transport'] {
    return this.#mailer.transport;
  }

  /** Plans at `now` (wall clock, the workspace zone decides digests) and sends unless a dry run. */
  async run(workspaceId: string, now: Date, options: NotifyRunOptions = {}): Promise<NotifyResult> {
    const dryRun = options.dryRun ?? false;
    const plan = await planNotifications(this.#db, workspaceId, {
      now,
      dataNow: this.#dataClock?.() ?? now,
      ...(options.forceDigests ? { forceDigests: options.forceDigests } : {}),
    });
    const result: NotifyResult = {
      workspaceId,
      dryRun,
      planned: plan.messages,
      sent: [],
      failed: [],
      claimedElsewhere: [],
      quiet: plan.quiet,
      notes: plan.notes,
    };
    if (dryRun) return result;
    for (const q of plan.quiet) await recordSkipped(this.#db, workspaceId, q.kind, q.dedupeKey, q.reason, now);
    // A sender stored before senders were checked (or allowed by an entry since removed) is not used.
    const senders = new Map<string, string>();
    for (const m of plan.messages) {
      if (senders.has(m.from)) continue;
      const { from, replaced } = await effectiveSender(this.#db, workspaceId, m.from, this.#senderAllowList);
      senders.set(m.from, from);
      if (replaced) {
        result.notes.push(`notifications.emailFrom ${m.from} is not on the workspace's domains or the allow-list: sent from ${from} instead`);
        this.#logger.warn({ workspaceId, emailFrom: m.from, sentFrom: from }, 'notification sender not allowed; using the default sender');
      }
    }
    for (const m of plan.messages) {
      const attempt = await claimNotification(this.#db, {
        workspaceId,
        kind: m.kind,
        dedupeKey: m.dedupeKey,
        recipients: m.to,
        subject: m.subject,
        transport: this.#mailer.transport,
        now,
      });
      if (attempt === null) {
        result.claimedElsewhere.push(m.dedupeKey);
        continue;
      }
      try {
        const sent = await this.#mailer.send({ from: senders.get(m.from) ?? m.from, to: m.to, subject: m.subject, text: m.text, html: m.html });
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
    ...(config.emailFromAllowList ? { senderAllowList: config.emailFromAllowList } : {}),
  });
}
