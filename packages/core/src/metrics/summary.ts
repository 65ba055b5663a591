/**
 * GET /metrics/summary. Excluded clients are left out of every number. Client-level figures
 * are SQL aggregates over the workspace's clients (joined to one snapshot day each for change7
 * and improving); interaction figures are index range counts over the window for the whole
 * workspace minus the same over the excluded clients.
 */
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { getSettings } from '../settings/settings.js';
import { addDays, daysBetween, utcDay } from '../util/time.js';
import { DEFAULT_SCORE, explainStanding, type StoredComponents } from '../health/model.js';
import { readSnapshotDetails, SNAPSHOT_DETAIL_COLUMNS } from '../health/snapshots.js';
import { churnProbability, currentChurnCalibration } from '../health/models.js';
import { round1, round2 } from '../util/numbers.js';
import { chunks } from '../util/lists.js';

export interface SummaryOptions {
  /** Days of the window. Default 7. */
  windowDays?: number;
  /** Score below which a client is at risk. Default: the workspace setting (itself default 40). */
  riskThreshold?: number;
  now: Date;
}

/** A client whose score rose at least this much over the window is improving. */
export const IMPROVING_MIN_CHANGE = 5;
/** Days ahead that count as an upcoming renewal. */
export const RENEWAL_DAYS = 30;
/** Items per list. */
export const LIST_SIZE = 10;

export interface MetricsSummary {
  totals: { clients: number; contacts: number; interactionsWindow: number; renewals30d: number; openTasks: number };
  revenue: { mrrTotal: number; mrrAtRisk: number; renewals30dValue: number; avgClientValue: number };
  health: {
    avgScore: number;
    change7: number;
    change7Pct: number;
    threshold: number;
    atRiskCount: number;
    improvingCount: number;
    /** Extension (issue 27): the churn calibration the probabilities below rest on, or why there is none. */
    churnCalibration: { available: boolean; model: number | null; horizonDays: number | null; outcomes: number | null; text: string };
  };
  lists: {
    /** `churnProbability`: extension, the calibrated chance of churn at a renewal `horizonDays` later; null without a calibration. */
    topRisks: { clientId: string; name: string; score: number; mrr: number; reason: string; reasonCode: string; churnProbability: number | null }[];
    topImproving: { clientId: string; name: string; score: number; scoreChange: number; mrr: number }[];
    renewals: { clientId: string; name: string; renewalDate: string; mrr: number; daysUntil: number }[];
  };
  windowDays: number;
  asOf: string;
}

/** The non-excluded clients of a workspace, as a subquery for `client_id in (…)`. */
export function includedClients(db: Db, workspaceId: string) {
  return db.selectFrom('clients').select('id').where('workspace_id', '=', workspaceId).where('is_excluded', '=', 0).where('status', '=', 'active');
}

export async function getSummary(db: Db, workspaceId: string, options: SummaryOptions): Promise<MetricsSummary> {
  const now = options.now;
  const windowDays = options.windowDays ?? 7;
  const settings = await getSettings(db, workspaceId);
  const threshold = options.riskThreshold ?? settings.riskThreshold;
  const churn = await currentChurnCalibration(db, workspaceId, settings.healthWeights);
  const today = utcDay(now);
  const nowIso = now.toISOString();
  const windowStartIso = addDays(now, -windowDays).toISOString();
  const day7 = utcDay(addDays(now, -7));
  const dayW = utcDay(addDays(now, -windowDays));
  const renewalEnd = utcDay(addDays(now, RENEWAL_DAYS));

  // Client-level figures are SQL aggregates; only list candidates come back as rows, and the
  // lists are ordered here so ties break by localeCompare exactly as they always have.
  const score = sql<number>`coalesce(k.health_score, ${sql.lit(DEFAULT_SCORE)})`;
  const included = db.selectFrom('clients as k').where('k.workspace_id', '=', workspaceId).where('k.is_excluded', '=', 0).where('k.status', '=', 'active');
  const totals = await included
    .select([
      sql<number>`count(*)`.as('n'),
      sql<number | null>`sum(k.mrr)`.as('mrr_total'),
      sql<number>`count(k.mrr)`.as('mrr_known'),
      sql<number | null>`sum(${score})`.as('score_sum'),
      sql<number>`sum(case when ${score} < ${threshold} then 1 else 0 end)`.as('at_risk'),
      sql<number | null>`sum(case when ${score} < ${threshold} then coalesce(k.mrr, 0) else 0 end)`.as('mrr_at_risk'),
    ])
    .executeTakeFirstOrThrow();
  // The day's range of the snapshot date index ((date, client, score) on SQLite, read alone; (date)
  // on PostgreSQL, migration 018), then one client probe each. A cross join with the condition in
  // WHERE: SQLite keeps that order (it would otherwise probe each client's snapshot key, 2-3x
  // slower at 10,000 clients); PostgreSQL plans it as any join (a hash join, 9 ms at 10,000).
  const onDay = (day: string) =>
    db
      .selectFrom('health_snapshots as s')
      .crossJoin('clients as k')
      .whereRef('k.id', '=', 's.client_id')
      .where('s.date', '=', day)
      .where('k.workspace_id', '=', workspaceId)
      .where('k.is_excluded', '=', 0)
      .where('k.status', '=', 'active');
  const change7Row = await onDay(day7)
    .select([sql<number>`count(*)`.as('n'), sql<number | null>`sum(${score} - s.score)`.as('change'), sql<number | null>`sum(s.score)`.as('then')])
    .executeTakeFirstOrThrow();
  // round1(change) ≥ 5 ⟺ change · 10 ≥ 49.5 (Math.round rounds halves up); rechecked below.
  const improvingRows = await onDay(dayW)
    .select(['k.id', 'k.name', 'k.mrr', 'k.health_score', 's.score as then'])
    .where(sql<boolean>`(${score} - s.score) * 10 >= ${IMPROVING_MIN_CHANGE * 10 - 0.5}`)
    .execute();
  const renewalRows = await included
    .select(['k.id', 'k.name', 'k.mrr', 'k.renewal_date'])
    .where('k.renewal_date', '>=', today)
    .where('k.renewal_date', '<=', renewalEnd)
    .execute();
  const risks = await topRisks(db, workspaceId, threshold);

  // Interaction figures: the whole workspace's range (index-only, no per-row membership test)
  // minus the same figure over the excluded clients and the suggested ones (their own index ranges).
  const excluded = db
    .selectFrom('clients')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where((eb) => eb.or([eb('is_excluded', '=', 1), eb('status', '<>', 'active')]));
  const windowCount = async (onlyExcluded: boolean): Promise<number> => {
    let q = db
      .selectFrom('interactions')
      .select(sql<number>`count(*)`.as('n'))
      .where('occurred_at', '>=', windowStartIso)
      .where('occurred_at', '<=', nowIso);
    q = onlyExcluded ? q.where('client_id', 'in', excluded) : q.where('workspace_id', '=', workspaceId);
    return Number((await q.executeTakeFirstOrThrow()).n);
  };
  // Open tasks: e-mail threads active in the window whose latest message is theirs (awaiting our reply).
  const openThreads = async (onlyExcluded: boolean): Promise<number> => {
    let threads = db
      .selectFrom('interactions')
      .select([
        sql<string | null>`max(case when direction = 'inbound' then occurred_at end)`.as('last_in'),
        sql<string | null>`max(case when direction = 'outbound' then occurred_at end)`.as('last_out'),
      ])
      .where('occurred_at', '>=', windowStartIso)
      .where('occurred_at', '<=', nowIso)
      .where('type', '=', 'email')
      .where('thread_id', 'is not', null)
      .groupBy(['client_id', 'thread_id']);
    threads = onlyExcluded ? threads.where('client_id', 'in', excluded) : threads.where('workspace_id', '=', workspaceId);
    const row = await db
      .selectFrom(threads.as('t'))
      .select(sql<number>`count(*)`.as('n'))
      .where('t.last_in', 'is not', null)
      .where((eb) => eb.or([eb('t.last_out', 'is', null), eb('t.last_out', '<', eb.ref('t.last_in'))]))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  const contactCount = async (onlyExcluded: boolean): Promise<number> => {
    let q = db
      .selectFrom('contacts')
      .select(sql<number>`count(*)`.as('n'))
      .where('workspace_id', '=', workspaceId);
    q = onlyExcluded ? q.where('client_id', 'in', excluded) : q.where('client_id', 'is not', null);
    return Number((await q.executeTakeFirstOrThrow()).n);
  };
  const interactionsWindow = (await windowCount(false)) - (await windowCount(true));
  const openTasks = (await openThreads(false)) - (await openThreads(true));
  const contacts = (await contactCount(false)) - (await contactCount(true));

  const n = Number(totals.n);
  const mrrTotal = Number(totals.mrr_total ?? 0);
  const mrrKnown = Number(totals.mrr_known);
  const change7N = Number(change7Row.n);
  const change7 = change7N > 0 ? Number(change7Row.change ?? 0) / change7N : 0;
  const then7 = change7N > 0 ? Number(change7Row.then ?? 0) / change7N : 0;

  const improving = improvingRows
    .map((c) => ({ c, change: round1((c.health_score ?? DEFAULT_SCORE) - c.then) }))
    .filter((x) => x.change >= IMPROVING_MIN_CHANGE);
  improving.sort((a, b) => b.change - a.change || (b.c.mrr ?? 0) - (a.c.mrr ?? 0) || a.c.name.localeCompare(b.c.name));
  const renewals = [...renewalRows];
  renewals.sort((a, b) => (a.renewal_date ?? '').localeCompare(b.renewal_date ?? '') || (b.mrr ?? 0) - (a.mrr ?? 0) || a.name.localeCompare(b.name));

  const reasons = await riskReasons(db, risks, dayW);

  return {
    totals: {
      clients: n,
      contacts,
      interactionsWindow,
      renewals30d: renewals.length,
      openTasks,
    },
    revenue: {
      mrrTotal: round2(mrrTotal),
      mrrAtRisk: round2(Number(totals.mrr_at_risk ?? 0)),
      renewals30dValue: round2(renewals.reduce((s, c) => s + (c.mrr ?? 0), 0)),
      avgClientValue: mrrKnown > 0 ? round2(mrrTotal / mrrKnown) : 0,
    },
    health: {
      avgScore: n > 0 ? round1(Number(totals.score_sum ?? 0) / n) : 0,
      change7: round1(change7),
      change7Pct: then7 > 0 ? round1((change7 / then7) * 100) : 0,
      threshold,
      atRiskCount: Number(totals.at_risk ?? 0),
      improvingCount: improving.length,
      churnCalibration: {
        available: churn.calibration !== null,
        model: churn.model,
        horizonDays: churn.horizonDays,
        outcomes: churn.outcomes,
        text: churn.text,
      },
    },
    lists: {
      topRisks: risks.map((c) => {
        const r = reasons.get(c.id) ?? { code: 'no_data', text: 'No score history yet.' };
        const score = c.health_score ?? DEFAULT_SCORE;
        const probability = churn.calibration ? Math.round(churnProbability(churn.calibration, score) * 1000) / 1000 : null;
        return { clientId: c.id, name: c.name, score, mrr: c.mrr ?? 0, reason: r.text, reasonCode: r.code, churnProbability: probability };
      }),
      topImproving: improving.slice(0, LIST_SIZE).map(({ c, change }) => ({
        clientId: c.id,
        name: c.name,
        score: c.health_score ?? DEFAULT_SCORE,
        scoreChange: change,
        mrr: c.mrr ?? 0,
      })),
      renewals: renewals.slice(0, LIST_SIZE).map((c) => ({
        clientId: c.id,
        name: c.name,
        renewalDate: c.renewal_date ?? '',
        mrr: c.mrr ?? 0,
        daysUntil: daysBetween(today, c.renewal_date ?? today),
      })),
    },
    windowDays,
    asOf: nowIso,
  };
}

interface RiskRow {
  id: string;
  name: string;
  mrr: number | null;
  health_score: number | null;
  health_updated_at: string | null;
}

/**
 * The first LIST_SIZE at-risk clients by revenue at risk, then score, then name. SQL orders by
 * the numeric keys; every client tied with the last of those on both keys is fetched too, so the
 * name tie-break (localeCompare, which no SQL collation matches) is done here on a complete set.
 */
async function topRisks(db: Db, workspaceId: string, threshold: number): Promise<RiskRow[]> {
  const mrr = sql<number>`coalesce(k.mrr, 0)`;
  const score = sql<number>`coalesce(k.health_score, ${sql.lit(DEFAULT_SCORE)})`;
  const atRisk = db
    .selectFrom('clients as k')
    .select(['k.id', 'k.name', 'k.mrr', 'k.health_score', 'k.health_updated_at'])
    .where('k.workspace_id', '=', workspaceId)
    .where('k.is_excluded', '=', 0)
    .where('k.status', '=', 'active')
    .where(sql<boolean>`${score} < ${threshold}`);
  const first = await atRisk.orderBy(mrr, 'desc').orderBy(score, 'asc').limit(LIST_SIZE).execute();
  const last = first[LIST_SIZE - 1];
  let rows: RiskRow[] = first;
  if (last) {
    const ties = await atRisk
      .where(sql<boolean>`${mrr} = ${last.mrr ?? 0}`)
      .where(sql<boolean>`${score} = ${last.health_score ?? DEFAULT_SCORE}`)
      .execute();
    const seen = new Set(first.map((r) => r.id));
    rows = [...first, ...ties.filter((r) => !seen.has(r.id))];
  }
  rows.sort((a, b) => (b.mrr ?? 0) - (a.mrr ?? 0) || (a.health_score ?? DEFAULT_SCORE) - (b.health_score ?? DEFAULT_SCORE) || a.name.localeCompare(b.name));
  return rows.slice(0, LIST_SIZE);
}

/**
 * Why each at-risk client is where it is: the risk signal that holds, else the change over the
 * window when it moved, else the component that costs it the most points (explainStanding).
 */
async function riskReasons(
  db: Db,
  risks: { id: string; health_score: number | null; health_updated_at: string | null }[],
  dayW: string,
): Promise<Map<string, { code: string; text: string }>> {
  const out = new Map<string, { code: string; text: string }>();
  if (risks.length === 0) return out;
  const snaps = new Map<string, { score: number; components: StoredComponents }>();
  for (const part of chunks(risks, 200)) {
    const rows = await db
      .selectFrom('health_snapshots')
      .select(['client_id', 'date', 'score', ...SNAPSHOT_DETAIL_COLUMNS])
      .where(
        'client_id',
        'in',
        part.map((r) => r.id),
      )
      .where('date', 'in', [dayW, ...new Set(part.map((r) => (r.health_updated_at ?? '').slice(0, 10)))])
      .execute();
    const details = await readSnapshotDetails(db, rows);
    rows.forEach((r, i) => snaps.set(`${r.client_id}|${r.date}`, { score: r.score, components: details[i]!.components }));
  }
  for (const r of risks) {
    const score = r.health_score ?? DEFAULT_SCORE;
    const cur = snaps.get(`${r.id}|${(r.health_updated_at ?? '').slice(0, 10)}`) ?? null;
    const prev = snaps.get(`${r.id}|${dayW}`) ?? null;
    out.set(r.id, explainStanding(score, cur?.components ?? null, prev));
  }
  return out;
}
