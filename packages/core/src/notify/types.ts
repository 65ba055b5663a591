/**
 * Notifications: what the engine decides to send (alerts and digests) as plain messages. The
 * engine never sends anything itself; the runner claims each message in `notification_log` by
 * its dedupe key, then hands it to a mail transport. See docs/notifications.md.
 */

/** Kinds of notification, stored as `notification_log.kind`. */
export const NOTIFICATION_KINDS = ['score_drop', 'risk_signal', 'renewal', 'digest_daily', 'digest_weekly'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const DIGEST_KINDS = ['daily', 'weekly'] as const;
export type DigestKind = (typeof DIGEST_KINDS)[number];

/** Local hour (workspace time zone) from which the day's digest is due. */
export const DIGEST_HOUR = 8;
/** A mover in a digest changed at least this many points over the digest's days. */
export const MOVER_MIN_CHANGE = 5;
/** Items per digest list (the rest is counted, not listed). */
export const DIGEST_LIST_SIZE = 10;
/** Attempts at a message whose transport failed before it is given up. */
export const MAX_SEND_ATTEMPTS = 3;

/**
 * `notification_log.status` values. A message is claimed as `sending` before it is handed to
 * the transport; `failed:<n>` (n attempts so far) may be claimed again; everything else is final.
 * `skipped` is a digest that had nothing to report (its period is done all the same).
 */
export type NotificationStatus = 'sending' | 'sent' | 'skipped' | 'abandoned' | `failed:${number}`;

/** Attempts made so far when `status` may be retried, else null (final or in flight). */
export function retryableAttempts(status: string): number | null {
  const m = /^failed:(\d+)$/.exec(status);
  if (!m) return null;
  const n = Number(m[1]);
  return n < MAX_SEND_ATTEMPTS ? n : null;
}

export interface EvidenceItem {
  interactionId: string;
  occurredAt: string;
  subject: string;
  from: string;
  /** In [-1, 1]. */
  sentiment: number;
}

export interface ScoreComparison {
  /** 1 (a day earlier) or 7 (a week earlier). */
  days: 1 | 7;
  date: string;
  score: number;
  /** Points lost (positive when the score fell). */
  dropPoints: number;
  /** Relative fall in percent of the earlier score, two decimals. */
  dropPct: number;
}

export interface ScoreDropAlert {
  type: 'score_drop';
  clientId: string;
  clientName: string;
  domain: string;
  /** The snapshot day whose score fell (UTC). */
  date: string;
  score: number;
  mrr: number | null;
  csmOwner: string | null;
  /** The comparisons that were available; `trigger` is the one with the larger fall. */
  comparisons: ScoreComparison[];
  trigger: ScoreComparison;
  reason: string;
  reasonText: string;
  evidence: EvidenceItem[];
}

/** Risk signals that are news the day they appear: each new message behind one is an alert. */
export const ALERTING_SIGNALS = ['churn_intent', 'escalation'] as const;
export type AlertingSignal = (typeof ALERTING_SIGNALS)[number];

/** A client said it will leave, or is escalating: sent at once, not with the next digest. */
export interface RiskSignalAlert {
  type: 'risk_signal';
  signal: AlertingSignal;
  clientId: string;
  clientName: string;
  domain: string;
  /** The UTC day of the newest message the signal names (the alert's date and dedupe key). */
  date: string;
  score: number;
  mrr: number | null;
  csmOwner: string | null;
  /** The signal's sentence ("2 messages in the last 90 days say they will leave or not renew"). */
  text: string;
  /** The messages behind the signal, newest first. */
  evidence: EvidenceItem[];
}

export interface RenewalAlert {
  type: 'renewal';
  clientId: string;
  clientName: string;
  domain: string;
  renewalDate: string;
  daysUntil: number;
  mrr: number | null;
  score: number;
  threshold: number;
  atRisk: boolean;
  csmOwner: string | null;
  /** Why the score is low; only when at risk. */
  reason: { code: string; text: string } | null;
}

export interface DigestClientChange {
  clientId: string;
  name: string;
  /** Score at the end of the day before the digest's first day; null when the client had none. */
  from: number | null;
  to: number;
  delta: number | null;
  mrr: number | null;
  reason: string;
  reasonText: string;
}

export interface DigestRenewal {
  clientId: string;
  name: string;
  renewalDate: string;
  daysUntil: number;
  mrr: number | null;
  score: number;
  atRisk: boolean;
  /** Entered the renewal window since the previous digest. */
  isNew: boolean;
}

export interface DigestFailedJob {
  jobId: string;
  kind: string;
  source: string;
  failedAt: string;
  error: string | null;
}

export interface DigestReauth {
  provider: string;
  accountEmail: string | null;
  lastError: string | null;
  since: string;
}

export interface Digest {
  type: 'digest';
  kind: DigestKind;
  /** Local day (workspace zone) the digest belongs to; for weekly, that week's Monday. */
  period: string;
  timezone: string;
  /** The complete UTC snapshot days it reports on: changes from the end of `fromDay − 1` to the end of `toDay`. */
  fromDay: string;
  toDay: string;
  /** Wall-clock time of the previous digest of this kind, null for the first. */
  previousSentAt: string | null;
  /** Data time of the figures (the engine clock). */
  asOf: string;
  currency: string;
  /** `/metrics/summary` at `asOf` (window 7 days, the workspace threshold). */
  figures: {
    clients: number;
    avgScore: number;
    change7: number;
    threshold: number;
    atRiskCount: number;
    mrrTotal: number;
    mrrAtRisk: number;
    renewals30d: number;
    renewals30dValue: number;
  };
  newRisks: DigestClientChange[];
  newRisksTotal: number;
  movers: DigestClientChange[];
  moversTotal: number;
  renewalsAheadDays: number;
  renewals: DigestRenewal[];
  renewalsTotal: number;
  /** Renewals that entered the window since the previous digest (all of them, listed or not). */
  renewalsNew: number;
  failedJobs: DigestFailedJob[];
  needsReauth: DigestReauth[];
}

export type NotificationContent = ScoreDropAlert | RiskSignalAlert | RenewalAlert | Digest;

/** One e-mail to send, with the key that makes it at most once per workspace. */
export interface NotificationMessage {
  kind: NotificationKind;
  dedupeKey: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  content: NotificationContent;
}
