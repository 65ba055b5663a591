/**
 * What a workspace should be sent now: every alert that holds and every digest that is due,
 * rendered, minus what the sent-log already holds. The runner claims and sends the result.
 */
import type { Db } from '../store/database.js';
import { getSettings } from '../settings/settings.js';
import { getOwner } from '../workspace/users.js';
import { renewalAlerts, riskSignalAlerts, scoreDropAlerts } from './alerts.js';
import { buildDigest, digestIsQuiet } from './digest.js';
import { currentPeriod, dedupeKeys, digestsDue, type DueDigest } from './schedule.js';
import { renderDigest, renderRenewal, renderRiskSignal, renderScoreDrop } from './templates.js';
import { retryableAttempts, type DigestKind, type NotificationMessage } from './types.js';

export interface PlanOptions {
  /** Wall-clock time (the scheduler's tick): decides which digests are due, in the workspace zone. */
  now: Date;
  /** Data time (engine clock, CHS_NOW). Default `now`. */
  dataNow?: Date;
  /** Digests to build even outside their hour (an operator's preview or manual send). Default none. */
  forceDigests?: DigestKind[];
}

export interface QuietDigest {
  kind: 'digest_daily' | 'digest_weekly';
  dedupeKey: string;
  reason: string;
}

export interface NotificationPlan {
  workspaceId: string;
  /** Messages to claim and send, alerts first. */
  messages: NotificationMessage[];
  /** Due digests with nothing to report: the runner records them as `skipped` so the period is done. */
  quiet: QuietDigest[];
  /** Why less than everything was considered (switches off, no owner). */
  notes: string[];
}

const lower = (s: string) => s.trim().toLowerCase();

/** Recipients without repeats; the owner first. */
function recipients(...addresses: Array<string | null | undefined>): string[] {
  const out: string[] = [];
  for (const a of addresses) if (a && a.trim() && !out.includes(lower(a))) out.push(lower(a));
  return out;
}

/** The latest wall-clock time a digest of this kind was sent, or null. */
export async function lastDigestSentAt(db: Db, workspaceId: string, kind: DigestKind): Promise<string | null> {
  const row = await db
    .selectFrom('notification_log')
    .select('sent_at')
    .where('workspace_id', '=', workspaceId)
    .where('kind', '=', `digest_${kind}`)
    .where('status', '=', 'sent')
    .orderBy('sent_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.sent_at ?? null;
}

export async function planNotifications(db: Db, workspaceId: string, options: PlanOptions): Promise<NotificationPlan> {
  const now = options.now;
  const dataNow = options.dataNow ?? now;
  const plan: NotificationPlan = { workspaceId, messages: [], quiet: [], notes: [] };
  const settings = await getSettings(db, workspaceId);
  const n = settings.notifications;
  if (!n.channels.email) {
    plan.notes.push('notifications.channels.email is false: nothing is sent');
    return plan;
  }
  const owner = await getOwner(db, workspaceId);
  if (!owner) {
    plan.notes.push('the workspace has no owner to send to');
    return plan;
  }
  const ctx = { workspaceId, currency: settings.currency };

  if (n.alertOnRiskSignals) {
    for (const a of await riskSignalAlerts(db, workspaceId, { now: dataNow })) {
      const r = renderRiskSignal(a, ctx);
      plan.messages.push({
        kind: 'risk_signal',
        dedupeKey: dedupeKeys.riskSignal(a.signal, a.clientId, a.date),
        from: n.emailFrom,
        to: recipients(owner.email, a.csmOwner),
        ...r,
        content: a,
      });
    }
  } else plan.notes.push('notifications.alertOnRiskSignals is false');

  if (n.alertOnScoreDrop) {
    for (const a of await scoreDropAlerts(db, workspaceId, { now: dataNow, scoreDropPct: n.scoreDropPct })) {
      const r = renderScoreDrop(a, ctx);
      plan.messages.push({
        kind: 'score_drop',
        dedupeKey: dedupeKeys.scoreDrop(a.clientId, a.date),
        from: n.emailFrom,
        to: recipients(owner.email, a.csmOwner),
        ...r,
        content: a,
      });
    }
  } else plan.notes.push('notifications.alertOnScoreDrop is false');

  if (n.alertOnRenewals) {
    const list = await renewalAlerts(db, workspaceId, { now: dataNow, renewalsAheadDays: n.renewalsAheadDays, riskThreshold: settings.riskThreshold });
    for (const a of list) {
      const r = renderRenewal(a, ctx);
      plan.messages.push({
        kind: 'renewal',
        dedupeKey: dedupeKeys.renewal(a.clientId, a.renewalDate),
        from: n.emailFrom,
        to: recipients(owner.email, a.csmOwner),
        ...r,
        content: a,
      });
    }
  } else plan.notes.push('notifications.alertOnRenewals is false');

  const due: DueDigest[] = digestsDue(now, settings.timezone, { daily: n.dailyDigest, weekly: n.weeklyDigest });
  if (!n.dailyDigest) plan.notes.push('notifications.dailyDigest is false');
  if (!n.weeklyDigest) plan.notes.push('notifications.weeklyDigest is false');
  for (const kind of options.forceDigests ?? []) {
    if (!due.some((d) => d.kind === kind)) due.push({ kind, period: currentPeriod(now, settings.timezone, kind) });
  }

  // Keys the log already holds for good (sent, in flight, skipped, given up) are not planned again.
  const done = await finalKeys(db, workspaceId, [...plan.messages.map((m) => m.dedupeKey), ...due.map((d) => dedupeKeys.digest(d.kind, d.period))]);
  plan.messages = plan.messages.filter((m) => !done.has(m.dedupeKey));

  for (const d of due) {
    const dedupeKey = dedupeKeys.digest(d.kind, d.period);
    if (done.has(dedupeKey)) continue;
    const previousSentAt = await lastDigestSentAt(db, workspaceId, d.kind);
    const digest = await buildDigest(db, workspaceId, { kind: d.kind, period: d.period, now, dataNow, previousSentAt, settings });
    const kind = d.kind === 'daily' ? 'digest_daily' : 'digest_weekly';
    if (digestIsQuiet(digest)) {
      plan.quiet.push({ kind, dedupeKey, reason: `nothing changed over ${digest.fromDay} to ${digest.toDay}` });
      continue;
    }
    const r = renderDigest(digest, { workspaceId, workspaceName: settings.workspaceName });
    plan.messages.push({ kind, dedupeKey, from: n.emailFrom, to: [lower(owner.email)], ...r, content: digest });
  }
  return plan;
}

/** Of `keys`, those whose log row is final or in flight (anything but a retryable failure). */
async function finalKeys(db: Db, workspaceId: string, keys: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (let i = 0; i < keys.length; i += 500) {
    const part = keys.slice(i, i + 500);
    if (part.length === 0) continue;
    const rows = await db
      .selectFrom('notification_log')
      .select(['dedupe_key', 'status'])
      .where('workspace_id', '=', workspaceId)
      .where('dedupe_key', 'in', part)
      .execute();
    for (const r of rows) if (retryableAttempts(r.status) === null) out.add(r.dedupe_key);
  }
  return out;
}
