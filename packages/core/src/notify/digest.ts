/**
 * Daily and weekly digests: what changed since the previous digest of the same kind.
 *
 * Health scores are kept per UTC day, so a digest reports on complete UTC days: from the end of
 * the day before the previous digest's data day to the end of yesterday (data clock). Consecutive
 * digests thus cover consecutive days, each change once. The figures block is `/metrics/summary`
 * at the digest's data time, so its numbers are the ones the dashboard shows at that moment.
 */
import type { Db } from '../store/database.js';
import { DEFAULT_SCORE, explainChange } from '../health/model.js';
import { round1 } from '../util/numbers.js';
import { getSummary } from '../metrics/summary.js';
import type { WorkspaceSettings } from '../settings/settings.js';
import { addDays, daysBetween, utcDay, DAY_MS } from '../util/time.js';
import { reasonFor, snapshotsOn } from './snapshots.js';
import { DIGEST_LIST_SIZE, MOVER_MIN_CHANGE, type Digest, type DigestClientChange, type DigestKind, type DigestRenewal } from './types.js';

/** Days a digest covers without a previous one, and at most after a long gap. */
const PERIOD_DAYS: Record<DigestKind, { first: number; max: number }> = { daily: { first: 1, max: 7 }, weekly: { first: 7, max: 28 } };

const shiftDay = (day: string, n: number) => utcDay(addDays(new Date(`${day}T00:00:00Z`), n));

export interface DigestOptions {
  kind: DigestKind;
  /** The local day it belongs to (see digestsDue). */
  period: string;
  /** Wall-clock time (scheduler): failed jobs are counted in wall time. */
  now: Date;
  /** Data time (engine clock, CHS_NOW). */
  dataNow: Date;
  /** Wall-clock time the previous digest of this kind was sent; null when none. */
  previousSentAt: string | null;
  settings: WorkspaceSettings;
}

export async function buildDigest(db: Db, workspaceId: string, o: DigestOptions): Promise<Digest> {
  const { kind, settings } = o;
  const span = PERIOD_DAYS[kind];
  const dataToday = utcDay(o.dataNow);
  const toDay = shiftDay(dataToday, -1);
  // The previous digest's data day: the data clock minus the wall time elapsed since it was sent.
  const prevDataDay = o.previousSentAt
    ? utcDay(new Date(o.dataNow.getTime() - Math.max(0, o.now.getTime() - Date.parse(o.previousSentAt))))
    : shiftDay(dataToday, -span.first);
  let fromDay = prevDataDay;
  if (daysBetween(fromDay, toDay) >= span.max) fromDay = shiftDay(toDay, -(span.max - 1));
  if (fromDay > toDay) fromDay = toDay;
  const baseDay = shiftDay(fromDay, -1);
  const threshold = settings.riskThreshold;

  const clients = await db
    .selectFrom('clients')
    .select(['id', 'name', 'mrr', 'renewal_date', 'health_score'])
    .where('workspace_id', '=', workspaceId)
    .where('is_excluded', '=', 0)
    .where('status', '=', 'active')
    .execute();
  const snaps = await snapshotsOn(db, workspaceId, [baseDay, toDay]);

  const newRisks: DigestClientChange[] = [];
  const movers: DigestClientChange[] = [];
  for (const c of clients) {
    const cur = snaps.get(c.id)?.get(toDay);
    if (!cur) continue;
    const base = snaps.get(c.id)?.get(baseDay);
    const delta = base ? round1(cur.score - base.score) : null;
    if (cur.score < threshold && (!base || base.score >= threshold)) {
      const r = reasonFor(cur.score, cur, base);
      newRisks.push({ clientId: c.id, name: c.name, from: base?.score ?? null, to: cur.score, delta, mrr: c.mrr, reason: r.code, reasonText: r.text });
    }
    if (base && delta !== null && Math.abs(delta) >= MOVER_MIN_CHANGE) {
      const ex = explainChange(base.score, base.components, cur.score, cur.components);
      movers.push({ clientId: c.id, name: c.name, from: base.score, to: cur.score, delta, mrr: c.mrr, reason: ex.reason, reasonText: ex.text });
    }
  }
  newRisks.sort((a, b) => (b.mrr ?? 0) - (a.mrr ?? 0) || a.to - b.to || a.name.localeCompare(b.name));
  movers.sort((a, b) => Math.abs(b.delta ?? 0) - Math.abs(a.delta ?? 0) || a.name.localeCompare(b.name));

  const aheadEnd = shiftDay(dataToday, settings.notifications.renewalsAheadDays);
  // At the previous digest the window ended at its data day + renewalsAheadDays.
  const previousEnd = shiftDay(prevDataDay, settings.notifications.renewalsAheadDays);
  const renewals: DigestRenewal[] = clients
    .filter((c) => c.renewal_date !== null && c.renewal_date >= dataToday && c.renewal_date <= aheadEnd)
    .map((c) => {
      const score = c.health_score ?? DEFAULT_SCORE;
      return {
        clientId: c.id,
        name: c.name,
        renewalDate: c.renewal_date!,
        daysUntil: daysBetween(dataToday, c.renewal_date!),
        mrr: c.mrr,
        score,
        atRisk: score < threshold,
        isNew: c.renewal_date! > previousEnd,
      };
    })
    .sort((a, b) => a.renewalDate.localeCompare(b.renewalDate) || (b.mrr ?? 0) - (a.mrr ?? 0) || a.name.localeCompare(b.name));

  const sinceWall = o.previousSentAt ?? new Date(o.now.getTime() - span.first * DAY_MS).toISOString();
  const failed = await db
    .selectFrom('jobs')
    .select(['id', 'kind', 'source', 'completed_at', 'last_error'])
    .where('workspace_id', '=', workspaceId)
    .where('state', '=', 'failed')
    .where('completed_at', '>', sinceWall)
    .where('completed_at', '<=', o.now.toISOString())
    .orderBy('completed_at')
    .execute();
  const reauth = await db
    .selectFrom('integrations')
    .select(['provider', 'account_email', 'last_error', 'updated_at'])
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'needs_reauth')
    .orderBy('provider')
    .execute();

  const summary = await getSummary(db, workspaceId, { now: o.dataNow });
  return {
    type: 'digest',
    kind,
    period: o.period,
    timezone: settings.timezone,
    fromDay,
    toDay,
    previousSentAt: o.previousSentAt,
    asOf: summary.asOf,
    currency: settings.currency,
    figures: {
      clients: summary.totals.clients,
      avgScore: summary.health.avgScore,
      change7: summary.health.change7,
      threshold: summary.health.threshold,
      atRiskCount: summary.health.atRiskCount,
      mrrTotal: summary.revenue.mrrTotal,
      mrrAtRisk: summary.revenue.mrrAtRisk,
      renewals30d: summary.totals.renewals30d,
      renewals30dValue: summary.revenue.renewals30dValue,
    },
    newRisks: newRisks.slice(0, DIGEST_LIST_SIZE),
    newRisksTotal: newRisks.length,
    movers: movers.slice(0, DIGEST_LIST_SIZE),
    moversTotal: movers.length,
    renewalsAheadDays: settings.notifications.renewalsAheadDays,
    renewals: renewals.slice(0, DIGEST_LIST_SIZE),
    renewalsTotal: renewals.length,
    renewalsNew: renewals.filter((r) => r.isNew).length,
    failedJobs: failed.map((j) => ({ jobId: j.id, kind: j.kind, source: j.source, failedAt: j.completed_at ?? '', error: j.last_error })),
    needsReauth: reauth.map((i) => ({ provider: i.provider, accountEmail: i.account_email, lastError: i.last_error, since: i.updated_at })),
  };
}

/** Nothing new to tell: no new risk, mover, newly due renewal or ingestion problem. */
export function digestIsQuiet(d: Digest): boolean {
  return d.newRisksTotal === 0 && d.moversTotal === 0 && d.renewalsNew === 0 && d.failedJobs.length === 0 && d.needsReauth.length === 0;
}
