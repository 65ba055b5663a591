/**
 * The two alerts, computed from the store at a data time `now`:
 * - score drop: a client's latest snapshot fell by at least `scoreDropPct` percent of its score
 *   a day or a week earlier;
 * - risk signal: a churn threat or an escalation whose newest message is at most a week old;
 * - renewal: a renewal date within `renewalsAheadDays`.
 * Each returns every alert that holds now; the sent-log (dedupe keys) makes each one go out once.
 */
import type { Db } from '../store/database.js';
import { DEFAULT_SCORE, explainChange, storedSignals } from '../health/model.js';
import { round1, round2 } from '../util/numbers.js';
import { addDays, daysBetween, utcDay } from '../util/time.js';
import { evidenceItems, reasonFor, snapshotsOn, type Snap } from './snapshots.js';
import {
  ALERTING_SIGNALS,
  type AlertingSignal,
  type EvidenceItem,
  type RenewalAlert,
  type RiskSignalAlert,
  type ScoreComparison,
  type ScoreDropAlert,
} from './types.js';

const dayBefore = (day: string, n: number) => utcDay(addDays(new Date(`${day}T00:00:00Z`), -n));

/** Relative fall from `prev` to `cur` in percent of `prev` (two decimals); null when `prev` is 0. */
export function dropPercent(prev: number, cur: number): number | null {
  if (prev <= 0) return null;
  return round2(((prev - cur) / prev) * 100);
}

function compare(byDay: Map<string, Snap>, day: string, days: 1 | 7): ScoreComparison | null {
  const cur = byDay.get(day);
  const date = dayBefore(day, days);
  const prev = byDay.get(date);
  if (!cur || !prev) return null;
  const pct = dropPercent(prev.score, cur.score);
  if (pct === null) return null;
  return { days, date, score: prev.score, dropPoints: round1(prev.score - cur.score), dropPct: pct };
}

export interface ScoreDropOptions {
  /** Data time (engine clock). */
  now: Date;
  /** Percent. */
  scoreDropPct: number;
}

/**
 * Score-drop alerts for the latest snapshot of each non-excluded client (today's, else
 * yesterday's; older ones are stale news). Fires on day D when the score fell ≥ scoreDropPct
 * against D−1, or against D−7 when that was not already so on D−1: one sharp fall is one alert,
 * not one a day for the week it stays below last week's level.
 */
export async function scoreDropAlerts(db: Db, workspaceId: string, options: ScoreDropOptions): Promise<ScoreDropAlert[]> {
  const today = utcDay(options.now);
  const pct = options.scoreDropPct;
  const clients = await db
    .selectFrom('clients')
    .select(['id', 'name', 'primary_domain', 'mrr', 'csm_owner'])
    .where('workspace_id', '=', workspaceId)
    .where('is_excluded', '=', 0)
    .where('status', '=', 'active')
    .execute();
  const days = [0, 1, 2, 7, 8, 9].map((n) => dayBefore(today, n));
  const snaps = await snapshotsOn(db, workspaceId, days);
  const alerts: ScoreDropAlert[] = [];
  for (const c of clients) {
    const byDay = snaps.get(c.id);
    if (!byDay) continue;
    const day = byDay.has(today) ? today : byDay.has(dayBefore(today, 1)) ? dayBefore(today, 1) : null;
    if (!day) continue;
    const cur = byDay.get(day)!;
    const daily = compare(byDay, day, 1);
    const weekly = compare(byDay, day, 7);
    const weeklyBefore = compare(byDay, dayBefore(day, 1), 7);
    const dailyFires = daily !== null && daily.dropPct >= pct;
    const weeklyFires = weekly !== null && weekly.dropPct >= pct && !(weeklyBefore !== null && weeklyBefore.dropPct >= pct);
    if (!dailyFires && !weeklyFires) continue;
    const firing = [dailyFires ? daily : null, weeklyFires ? weekly : null].filter((x): x is ScoreComparison => x !== null);
    const trigger = firing.reduce((a, b) => (b.dropPct > a.dropPct ? b : a));
    const prev = byDay.get(trigger.date)!;
    const ex = explainChange(prev.score, prev.components, cur.score, cur.components);
    let evidence = await evidenceItems(db, workspaceId, cur.evidenceIds);
    if (evidence.length === 0) evidence = await mostNegative(db, workspaceId, c.id, trigger.date, day);
    alerts.push({
      type: 'score_drop',
      clientId: c.id,
      clientName: c.name,
      domain: c.primary_domain,
      date: day,
      score: cur.score,
      mrr: c.mrr,
      csmOwner: c.csm_owner,
      comparisons: [daily, weekly].filter((x): x is ScoreComparison => x !== null),
      trigger,
      reason: ex.reason,
      reasonText: ex.text,
      evidence,
    });
  }
  return alerts.sort((a, b) => b.trigger.dropPct - a.trigger.dropPct || a.clientName.localeCompare(b.clientName));
}

/** The three most negative things the client said after `afterDay` up to the end of `day`. */
async function mostNegative(db: Db, workspaceId: string, clientId: string, afterDay: string, day: string): Promise<EvidenceItem[]> {
  const rows = await db
    .selectFrom('interactions')
    .select(['id', 'occurred_at', 'subject', 'from_email', 'sentiment_score'])
    .where('workspace_id', '=', workspaceId)
    .where('client_id', '=', clientId)
    .where('direction', '!=', 'outbound')
    .where('occurred_at', '>=', `${dayBefore(afterDay, -1)}T00:00:00.000Z`)
    .where('occurred_at', '<', `${dayBefore(day, -1)}T00:00:00.000Z`)
    .where('sentiment_score', '<', 0)
    .orderBy('sentiment_score', 'asc')
    .orderBy('occurred_at', 'desc')
    .limit(3)
    .execute();
  return rows.map((r) => ({ interactionId: r.id, occurredAt: r.occurred_at, subject: r.subject, from: r.from_email, sentiment: Number(r.sentiment_score) }));
}

const isAlerting = (code: string): code is AlertingSignal => (ALERTING_SIGNALS as readonly string[]).includes(code);

/**
 * How many days after its newest message a churn threat or an escalation is still news. The alert
 * is keyed by that message's day, so it goes out once; the window lets a notifier that was down
 * over a weekend, or mail that synced a few days late, still tell the team.
 */
const RISK_ALERT_FRESH_DAYS = 7;

/**
 * Churn-intent and escalation alerts for the latest snapshot of each non-excluded client (today's,
 * else yesterday's): one per signal that holds, dated by the newest message it names, while that
 * message is at most RISK_ALERT_FRESH_DAYS old. A new "we will not renew" or a new angry message
 * makes a new date, so a new alert; the same threat staying in its 30-day window keeps its date,
 * and the sent-log (key `<signal>:<client>:<date>`) sends it once.
 */
export async function riskSignalAlerts(db: Db, workspaceId: string, options: { now: Date }): Promise<RiskSignalAlert[]> {
  const today = utcDay(options.now);
  const clients = await db
    .selectFrom('clients')
    .select(['id', 'name', 'primary_domain', 'mrr', 'csm_owner'])
    .where('workspace_id', '=', workspaceId)
    .where('is_excluded', '=', 0)
    .where('status', '=', 'active')
    .execute();
  const snaps = await snapshotsOn(db, workspaceId, [today, dayBefore(today, 1)]);
  const alerts: RiskSignalAlert[] = [];
  for (const c of clients) {
    const byDay = snaps.get(c.id);
    const cur = byDay?.get(today) ?? byDay?.get(dayBefore(today, 1));
    if (!cur) continue;
    for (const s of storedSignals(cur.components)) {
      if (!isAlerting(s.code)) continue;
      const evidence = await evidenceItems(db, workspaceId, s.interactionIds);
      const newest = evidence.reduce<string | null>((m, e) => (m === null || e.occurredAt > m ? e.occurredAt : m), null);
      if (newest === null) continue;
      const date = newest.slice(0, 10);
      if (daysBetween(date, today) > RISK_ALERT_FRESH_DAYS) continue;
      alerts.push({
        type: 'risk_signal',
        signal: s.code,
        clientId: c.id,
        clientName: c.name,
        domain: c.primary_domain,
        date,
        score: cur.score,
        mrr: c.mrr,
        csmOwner: c.csm_owner,
        text: s.text,
        evidence,
      });
    }
  }
  // Threats first, then the larger accounts.
  return alerts.sort(
    (a, b) =>
      ALERTING_SIGNALS.indexOf(a.signal) - ALERTING_SIGNALS.indexOf(b.signal) || (b.mrr ?? 0) - (a.mrr ?? 0) || a.clientName.localeCompare(b.clientName),
  );
}

export interface RenewalOptions {
  /** Data time (engine clock). */
  now: Date;
  renewalsAheadDays: number;
  riskThreshold: number;
}

/** Renewals of non-excluded clients from today to today + renewalsAheadDays (UTC days), soonest first. */
export async function renewalAlerts(db: Db, workspaceId: string, options: RenewalOptions): Promise<RenewalAlert[]> {
  const today = utcDay(options.now);
  const end = utcDay(addDays(options.now, options.renewalsAheadDays));
  const rows = await db
    .selectFrom('clients')
    .select(['id', 'name', 'primary_domain', 'mrr', 'csm_owner', 'renewal_date', 'health_score', 'health_updated_at'])
    .where('workspace_id', '=', workspaceId)
    .where('is_excluded', '=', 0)
    .where('status', '=', 'active')
    .where('renewal_date', '>=', today)
    .where('renewal_date', '<=', end)
    .execute();
  const atRisk = rows.filter((r) => (r.health_score ?? DEFAULT_SCORE) < options.riskThreshold);
  const snapDays = atRisk.flatMap((r) => {
    const d = (r.health_updated_at ?? '').slice(0, 10) || today;
    return [d, dayBefore(d, 7)];
  });
  const snaps = await snapshotsOn(
    db,
    workspaceId,
    snapDays,
    atRisk.map((r) => r.id),
  );
  const alerts = rows.map((r): RenewalAlert => {
    const score = r.health_score ?? DEFAULT_SCORE;
    const risky = score < options.riskThreshold;
    const d = (r.health_updated_at ?? '').slice(0, 10) || today;
    const byDay = snaps.get(r.id);
    return {
      type: 'renewal',
      clientId: r.id,
      clientName: r.name,
      domain: r.primary_domain,
      renewalDate: r.renewal_date!,
      daysUntil: daysBetween(today, r.renewal_date!),
      mrr: r.mrr,
      score,
      threshold: options.riskThreshold,
      atRisk: risky,
      csmOwner: r.csm_owner,
      reason: risky ? reasonFor(score, byDay?.get(d), byDay?.get(dayBefore(d, 7))) : null,
    };
  });
  return alerts.sort((a, b) => a.renewalDate.localeCompare(b.renewalDate) || (b.mrr ?? 0) - (a.mrr ?? 0) || a.clientName.localeCompare(b.clientName));
}
