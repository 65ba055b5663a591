/**
 * The sent-log (`notification_log`): a message is claimed by inserting its row with status
 * `sending` BEFORE it is handed to the transport. UNIQUE(workspace_id, dedupe_key) lets exactly
 * one runner win the insert; a retry after a failure is claimed by a compare-and-set on the
 * status it read. So two runners, or a restart, never both send the same alert.
 *
 * A runner that dies between claim and delivery leaves `sending` behind: the message may or may
 * not have gone out, and at most once means it is not sent again.
 *
 * The only module that writes `notification_log` (the planner in plan.ts reads it).
 */
import { ChsError } from '../errors.js';
import type { Db } from '../store/database.js';
import { newId } from '../util/ids.js';
import { MAX_SEND_ATTEMPTS, retryableAttempts, type NotificationKind } from './types.js';

export interface ClaimInput {
  workspaceId: string;
  kind: NotificationKind;
  dedupeKey: string;
  recipients: string[];
  subject: string;
  transport: string;
  now: Date;
}

/** Claims a message; resolves to the attempt number (1 for a first send), or null when another claim holds it. */
export async function claimNotification(db: Db, c: ClaimInput): Promise<number | null> {
  const inserted = await db
    .insertInto('notification_log')
    .values({
      id: newId('ntf'),
      workspace_id: c.workspaceId,
      kind: c.kind,
      dedupe_key: c.dedupeKey,
      recipients: c.recipients.join(', '),
      subject: c.subject.slice(0, 500),
      transport: c.transport,
      status: 'sending',
      sent_at: c.now.toISOString(),
    })
    .onConflict((oc) => oc.columns(['workspace_id', 'dedupe_key']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return 1;
  const row = await db
    .selectFrom('notification_log')
    .select('status')
    .where('workspace_id', '=', c.workspaceId)
    .where('dedupe_key', '=', c.dedupeKey)
    .executeTakeFirst();
  const attempts = row ? retryableAttempts(row.status) : null;
  if (!row || attempts === null) return null;
  const updated = await db
    .updateTable('notification_log')
    .set({ status: 'sending', sent_at: c.now.toISOString(), recipients: c.recipients.join(', '), transport: c.transport })
    .where('workspace_id', '=', c.workspaceId)
    .where('dedupe_key', '=', c.dedupeKey)
    .where('status', '=', row.status)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1 ? attempts + 1 : null;
}

export async function markSent(db: Db, workspaceId: string, dedupeKey: string, transport: string, now: Date): Promise<void> {
  await db
    .updateTable('notification_log')
    .set({ status: 'sent', transport, sent_at: now.toISOString() })
    .where('workspace_id', '=', workspaceId)
    .where('dedupe_key', '=', dedupeKey)
    .where('status', '=', 'sending')
    .execute();
}

/** Records a failed attempt: retryable until MAX_SEND_ATTEMPTS, then `abandoned`. */
export async function markFailed(db: Db, workspaceId: string, dedupeKey: string, attempt: number, now: Date): Promise<'retry' | 'abandoned'> {
  const final = attempt >= MAX_SEND_ATTEMPTS;
  await db
    .updateTable('notification_log')
    .set({ status: final ? 'abandoned' : `failed:${attempt}`, sent_at: now.toISOString() })
    .where('workspace_id', '=', workspaceId)
    .where('dedupe_key', '=', dedupeKey)
    .where('status', '=', 'sending')
    .execute();
  return final ? 'abandoned' : 'retry';
}

/** A due digest with nothing to report: its period is done (first writer wins, like a send). */
export async function recordSkipped(db: Db, workspaceId: string, kind: NotificationKind, dedupeKey: string, reason: string, now: Date): Promise<boolean> {
  const r = await db
    .insertInto('notification_log')
    .values({
      id: newId('ntf'),
      workspace_id: workspaceId,
      kind,
      dedupe_key: dedupeKey,
      recipients: '',
      subject: reason.slice(0, 500),
      transport: 'none',
      status: 'skipped',
      sent_at: now.toISOString(),
    })
    .onConflict((oc) => oc.columns(['workspace_id', 'dedupe_key']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Mail sent because an API caller asked (not planned by the engine): one hourly budget per workspace for all of them. */
export const ON_DEMAND_KINDS = ['test', 'email_confirmation'] as const;
export type OnDemandKind = (typeof ON_DEMAND_KINDS)[number];

const HOUR_MS = 3_600_000;

/**
 * Claims one on-demand send within the workspace's budget of `perHour` over the last hour (a
 * sliding window, wall clock). The row is inserted first and the window counted after, so two
 * runners asking at once cannot both take the last slot (both may be refused; neither exceeds).
 * Refused: the row is removed and NOTIFICATION_RATE_LIMITED thrown with `details.resumeAt` (the
 * moment the oldest send of the window leaves it; sent as Retry-After). Resolves to the dedupe key
 * to mark sent or failed.
 */
export async function claimOnDemand(
  db: Db,
  c: { workspaceId: string; kind: OnDemandKind; recipient: string; subject: string; transport: string; now: Date; perHour: number },
): Promise<string> {
  const dedupeKey = `${c.kind}:${newId('t')}`;
  await db
    .insertInto('notification_log')
    .values({
      id: newId('ntf'),
      workspace_id: c.workspaceId,
      kind: c.kind,
      dedupe_key: dedupeKey,
      recipients: c.recipient,
      subject: c.subject.slice(0, 500),
      transport: c.transport,
      status: 'sending',
      sent_at: c.now.toISOString(),
    })
    .execute();
  const since = new Date(c.now.getTime() - HOUR_MS).toISOString();
  const window = await db
    .selectFrom('notification_log')
    .select('sent_at')
    .where('workspace_id', '=', c.workspaceId)
    .where('kind', 'in', [...ON_DEMAND_KINDS])
    .where('sent_at', '>', since)
    .orderBy('sent_at')
    .execute();
  if (window.length <= c.perHour) return dedupeKey;
  await db.deleteFrom('notification_log').where('workspace_id', '=', c.workspaceId).where('dedupe_key', '=', dedupeKey).execute();
  const oldest = window[0]?.sent_at ?? c.now.toISOString();
  const resumeAt = new Date(Date.parse(oldest) + HOUR_MS).toISOString();
  throw new ChsError(
    'NOTIFICATION_RATE_LIMITED',
    `at most ${c.perHour} e-mails an hour are sent on request (test e-mails and address confirmations) for workspace ${c.workspaceId}; the next one can go at ${resumeAt}`,
    { details: { resumeAt, perHour: c.perHour } },
  );
}

/** An on-demand claim given back unused (the change it was for did not happen). */
export async function releaseOnDemand(db: Db, workspaceId: string, dedupeKey: string): Promise<void> {
  await db.deleteFrom('notification_log').where('workspace_id', '=', workspaceId).where('dedupe_key', '=', dedupeKey).where('status', '=', 'sending').execute();
}

/** An on-demand send that failed: kept (it counts in the budget), never retried. */
export async function markOnDemandFailed(db: Db, workspaceId: string, dedupeKey: string, now: Date): Promise<void> {
  await markFailed(db, workspaceId, dedupeKey, MAX_SEND_ATTEMPTS, now);
}
