/**
 * Mail sent because an API caller asked for it: the test e-mail (POST /notifications/test) and
 * the confirmation of a new address (PUT /settings with profile.email). Such a request must not
 * make the server a relay, so every one of them:
 * - goes from the workspace's `notifications.emailFrom`, which must be on the workspace's own
 *   domains or the operator's allow-list (checked again here: a value stored before the check
 *   existed is refused, not used);
 * - counts in one budget per workspace, ON_DEMAND_EMAILS_PER_HOUR over the last hour, kept in the
 *   sent-log (the database), so it holds across runners and restarts;
 * - is recorded in the sent-log, sent or failed.
 */
import { basename } from 'node:path';
import { assertSenderAllowed, claimOnDemand, getSettings, markOnDemandFailed, markSent, releaseOnDemand, type Db, type OnDemandKind } from '@chs/core';
import type { Mailer, SentMail } from './mailer.js';

/** E-mails a workspace may have sent on request (tests and address confirmations together) per hour. */
export const ON_DEMAND_EMAILS_PER_HOUR = 5;

export interface OnDemandOptions {
  db: Db;
  mailer: Mailer;
  /** CHS_EMAIL_FROM_ALLOWLIST. Default none. */
  allowList?: readonly string[];
  /** Default ON_DEMAND_EMAILS_PER_HOUR. */
  perHour?: number;
  /** Default: the wall clock. */
  now?: Date;
}

/** One e-mail's place in the hourly budget, taken before anything else is written. */
export interface OnDemandSlot {
  /** Sends it (once). NOTIFICATION_FAILED when the transport fails (the attempt still counts). */
  send(message: { subject: string; text: string }): Promise<SentMail>;
  /** Gives the place back when the e-mail will not be sent after all (the change it was for failed). */
  release(): Promise<void>;
}

/**
 * Takes a place in the workspace's budget for one e-mail of `kind` to `to`, from the workspace's
 * sender. SENDER_NOT_ALLOWED, NOTIFICATION_RATE_LIMITED (nothing taken then).
 */
export async function reserveOnDemand(
  options: OnDemandOptions,
  mail: {
    workspaceId: string;
    kind: OnDemandKind;
    to: string;
    /** Default: the stored `notifications.emailFrom` (a PUT changing it passes the new one). */ from?: string;
  },
): Promise<OnDemandSlot> {
  const { db, mailer } = options;
  const now = options.now ?? new Date();
  const from = mail.from ?? (await getSettings(db, mail.workspaceId)).notifications.emailFrom;
  await assertSenderAllowed(db, mail.workspaceId, from, options.allowList ?? []);
  const dedupeKey = await claimOnDemand(db, {
    workspaceId: mail.workspaceId,
    kind: mail.kind,
    recipient: mail.to,
    subject: mail.kind,
    transport: mailer.transport,
    now,
    perHour: options.perHour ?? ON_DEMAND_EMAILS_PER_HOUR,
  });
  let used = false;
  return {
    async send(message) {
      if (used) throw new Error('an on-demand slot sends one e-mail');
      used = true;
      try {
        const sent = await mailer.send({ from, to: mail.to, subject: message.subject, text: message.text });
        await markSent(db, mail.workspaceId, dedupeKey, sent.transport, now);
        return sent;
      } catch (err) {
        await markOnDemandFailed(db, mail.workspaceId, dedupeKey, now);
        throw err;
      }
    },
    async release() {
      if (used) return;
      used = true;
      await releaseOnDemand(db, mail.workspaceId, dedupeKey);
    },
  };
}

/** How an API answer names where a message went, without any server path. */
export function whereSent(sent: SentMail): string {
  if (sent.transport === 'smtp' || sent.file === undefined) return `through ${sent.description}`;
  return `into the server's outbox as ${basename(sent.file)} (no SMTP server configured: CHS_SMTP_URL)`;
}
