/**
 * GET /metrics/summary. Excluded clients are left out of every number. Client-level figures
 * come from one pass over the workspace's clients joined to two snapshot days by primary key;
 * interaction figures are index range counts over the window.
 */
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { getSettings } from '../settings/settings.js';
import { addDays, daysBetween, utcDay } from '../util/time.js';
import { DEFAULT_SCORE, explainChange, explainWeakness, round1, round2, STABLE_BELOW, type StoredComponents } from '../health/model.js';
import { chunks } from '../health/sql.js';

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
  health: { avgScore: number; change7: number; change7Pct: number; threshold: number; atRiskCount: number; improvingCount: number };
  lists: {
    topRisks: { clientId: string; name: string; score: number; mrr: number; reason: string; reasonCode: string }[];
    topImproving: { clientId: string; name: string; score: number; scoreChange: number; mrr: number }[];
    renewals: { clientId: string; name: string; renewalDate: string; mrr: number; daysUntil: number }[];
  };
  windowDays: number;
  asOf: string;
}

/** The non-excluded clients of a workspace, as a subquery for `client_id in (…)`. */
export function includedClients(db: Db, workspaceId: string) {
  return db.selectFrom('clients').select('id').where('workspace_id', '=', workspaceId).where('is_excluded', '=', 0);
}

export async function getSummary(db: Db, workspaceId: string, options: SummaryOptions): Promise<MetricsSummary> {
  const now = options.now;
  const windowDays = options.windowDays ?? 7;
  const threshold = options.riskThreshold ?? (await getSettings(db, workspaceId)).riskThreshold;
  const today = utcDay(now);
  const nowIso = now.toISOString();
  const windowStartIso = addDays(now, -windowDays).toISOString();
  const day7 = utcDay(addDays(now, -7));
  const dayW = utcDay(addDays(now, -windowDays));
  const renewalEnd = utcDay(addDays(now, RENEWAL_DAYS));

  const clientRows = await db
    .selectFrom('clients as k')
    .select(['k.id', 'k.name', 'k.mrr', 'k.health_score', 'k.health_updated_at', 'k.renewal_date'])
    .where('k.workspace_id', '=', workspaceId)
    .where('k.is_excluded', '=', 0)
    .execute();
  // The two past days in one contiguous range of the (workspace, date, client, score) index,
  // joined here: cheaper than a primary-key probe per client into a large snapshot table.
  const past = await db
    .selectFrom('health_snapshots')
    .select(['client_id', 'date', 'score'])
    .where('workspace_id', '=', workspaceId)
    .where('date', 'in', [day7, dayW])
    .execute();
  const at7 = new Map<string, number>();
  const atW = new Map<string, number>();
  for (const p of past) {
    if (p.date === day7) at7.set(p.client_id, p.score);
    if (p.date === dayW) atW.set(p.client_id, p.score);
  }
  const clients = clientRows.map((c) => ({ ...c, score7: at7.get(c.id) ?? null, scoreW: atW.get(c.id) ?? null }));

  const [contacts, interactions, open] = await Promise.all([
    db
      .selectFrom('contacts')
      .select(sql<number>`count(*)`.as('n'))
      .where('workspace_id', '=', workspaceId)
      .where('client_id', 'in', includedClients(db, workspaceId))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('interactions')
      .select(sql<number>`count(*)`.as('n'))
      .where('workspace_id', '=', workspaceId)
      .where('occurred_at', '>=', windowStartIso)
      .where('occurred_at', '<=', nowIso)
      .where('client_id', 'in', includedClients(db, workspaceId))
      .executeTakeFirstOrThrow(),
    // Open tasks: e-mail threads active in the window whose latest message is theirs (awaiting our reply).
    db
      .selectFrom(
        db
          .selectFrom('interactions')
          .select([
            sql<string | null>`max(case when direction = 'inbound' then occurred_at end)`.as('last_in'),
            sql<string | null>`max(case when direction = 'outbound' then occurred_at end)`.as('last_out'),
          ])
          .where('workspace_id', '=', workspaceId)
          .where('occurred_at', '>=', windowStartIso)
          .where('occurred_at', '<=', nowIso)
          .where('type', '=', 'email')
          .where('thread_id', 'is not', null)
          .where('client_id', 'in', includedClients(db, workspaceId))
          .groupBy(['client_id', 'thread_id'])
          .as('t'),
      )
      .select(sql<number>`count(*)`.as('n'))
      .where('t.last_in', 'is not', null)
      .where((eb) => eb.or([eb('t.last_out', 'is', null), eb('t.last_out', '<', eb.ref('t.last_in'))]))
      .executeTakeFirstOrThrow(),
  ]);

  let mrrTotal = 0;
  let mrrKnown = 0;
  let scoreSum = 0;
  let change7Sum = 0;
  let then7Sum = 0;
  let change7N = 0;
  const atRisk: typeof clients = [];
  const improving: { c: (typeof clients)[number]; change: number }[] = [];
  const renewals: typeof clients = [];
  for (const c of clients) {
    const mrr = c.mrr ?? 0;
    mrrTotal += mrr;
    if (c.mrr !== null) mrrKnown += 1;
    const score = c.health_score ?? DEFAULT_SCORE;
    scoreSum += score;
    if (c.score7 !== null) {
      change7Sum += score - c.score7;
      then7Sum += c.score7;
      change7N += 1;
    }
    if (score < threshold) atRisk.push(c);
    if (c.scoreW !== null) {
      const change = round1(score - c.scoreW);
      if (change >= IMPROVING_MIN_CHANGE) improving.push({ c, change });
    }
    if (c.renewal_date !== null && c.renewal_date >= today && c.renewal_date <= renewalEnd) renewals.push(c);
  }
  const n = clients.length;
  const change7 = change7N > 0 ? change7Sum / change7N : 0;
  const then7 = change7N > 0 ? then7Sum / change7N : 0;

  atRisk.sort((a, b) => (b.mrr ?? 0) - (a.mrr ?? 0) || (a.health_score ?? DEFAULT_SCORE) - (b.health_score ?? DEFAULT_SCORE) || a.name.localeCompare(b.name));
  improving.sort((a, b) => b.change - a.change || (b.c.mrr ?? 0) - (a.c.mrr ?? 0) || a.c.name.localeCompare(b.c.name));
  renewals.sort((a, b) => (a.renewal_date ?? '').localeCompare(b.renewal_date ?? '') || (b.mrr ?? 0) - (a.mrr ?? 0) || a.name.localeCompare(b.name));

  const risks = atRisk.slice(0, LIST_SIZE);
  const reasons = await riskReasons(db, risks, dayW);

  return {
    totals: {
      clients: n,
      contacts: Number(contacts.n),
      interactionsWindow: Number(interactions.n),
      renewals30d: renewals.length,
      openTasks: Number(open.n),
    },
    revenue: {
      mrrTotal: round2(mrrTotal),
      mrrAtRisk: round2(atRisk.reduce((s, c) => s + (c.mrr ?? 0), 0)),
      renewals30dValue: round2(renewals.reduce((s, c) => s + (c.mrr ?? 0), 0)),
      avgClientValue: mrrKnown > 0 ? round2(mrrTotal / mrrKnown) : 0,
    },
    health: {
      avgScore: n > 0 ? round1(scoreSum / n) : 0,
      change7: round1(change7),
      change7Pct: then7 > 0 ? round1((change7 / then7) * 100) : 0,
      threshold,
      atRiskCount: atRisk.length,
      improvingCount: improving.length,
    },
    lists: {
      topRisks: risks.map((c) => {
        const r = reasons.get(c.id) ?? { code: 'no_data', text: 'No score history yet.' };
        return { clientId: c.id, name: c.name, score: c.health_score ?? DEFAULT_SCORE, mrr: c.mrr ?? 0, reason: r.text, reasonCode: r.code };
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

/**
 * Why each at-risk client is where it is: the change over the window when it moved (the
 * component that moved it most), else the component that costs it the most points.
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
      .select(['client_id', 'date', 'score', 'components_json'])
      .where('client_id', 'in', part.map((r) => r.id))
      .where('date', 'in', [dayW, ...new Set(part.map((r) => (r.health_updated_at ?? '').slice(0, 10)))])
      .execute();
    for (const r of rows) snaps.set(`${r.client_id}|${r.date}`, { score: r.score, components: JSON.parse(r.components_json) as StoredComponents });
  }
  for (const r of risks) {
    const score = r.health_score ?? DEFAULT_SCORE;
    const cur = snaps.get(`${r.id}|${(r.health_updated_at ?? '').slice(0, 10)}`) ?? null;
    const prev = snaps.get(`${r.id}|${dayW}`) ?? null;
    if (cur && prev && Math.abs(score - prev.score) >= STABLE_BELOW) {
      const ex = explainChange(prev.score, prev.components, score, cur.components);
      out.set(r.id, { code: ex.reason, text: ex.text });
    } else {
      const w = explainWeakness(score, cur?.components ?? null);
      out.set(r.id, { code: w.reason, text: w.text });
    }
  }
  return out;
}
