/**
 * Read side of clients: the list, one client's details (with metrics and contacts), its
 * interactions page, and the last-interaction map. Every number is one SQL aggregate.
 */
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import type { ClientsTable, InteractionsTable } from '../store/schema.js';
import { ChsError } from '../errors.js';
import { addDays, DAY_MS } from '../util/time.js';
import { DEFAULT_SCORE, explainStanding, storedSignals, type StoredSignal } from '../health/model.js';
import { readSnapshotDetails, SNAPSHOT_DETAIL_COLUMNS } from '../health/snapshots.js';
import { hoursBetween } from '../store/sql.js';

export interface ClientView {
  id: string;
  name: string;
  domain: string;
  /** The current health score, 0–100 (the documented default 50 until first computed). */
  sentimentScore: number;
  lastInteraction: string | null;
  mrr: number | null;
  renewalDate: string | null;
  csmOwner: string | null;
  isExcluded: boolean;
  createdAt: string;
  updatedAt: string;
}

export type SentimentTrend = 'improving' | 'stable' | 'declining';

export interface ClientMetrics {
  totalInteractions: number;
  /** Mean hours of our reply to their message in a thread; null when we never replied. */
  avgResponseTime: number | null;
  /** Interactions in the 30 days up to now. */
  lastMonthInteractions: number;
  sentimentTrend: SentimentTrend;
}

export interface ContactView {
  email: string;
  name: string;
  title: string;
  lastSeen: string | null;
}

/** Extension: why the score is where it is, from the latest snapshot. */
export interface ClientHealthView {
  /** The current score (= client.sentimentScore). */
  score: number;
  /** Day of the latest snapshot; null before the first. */
  date: string | null;
  confidence: number | null;
  /** The sentence: the risk that holds, else the move over 7 days, else the weakest component. */
  reason: string;
  reasonCode: string;
  /** Every risk signal that holds, most severe first, with the interactions that show it. */
  risks: StoredSignal[];
}

export interface ClientDetails {
  client: ClientView;
  metrics: ClientMetrics;
  contacts: ContactView[];
  health: ClientHealthView;
}

export interface InteractionView {
  id: string;
  type: string;
  subject: string;
  sentiment: string;
  date: string;
  from: string;
  to: string;
  summary: string;
  /** Extension: the score behind `sentiment`, in [-1, 1]. */
  sentimentScore: number;
  /** Extension: `inbound` or `outbound`. */
  direction: string;
  /** Extension: where it came from. */
  source: string;
}

export interface Pagination {
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}

/** A change of mean sentiment (in [-1, 1]) at least this large is a trend. */
export const SENTIMENT_TREND_MIN_CHANGE = 0.1;

export function toClientView(c: ClientsTable): ClientView {
  return {
    id: c.id,
    name: c.name,
    domain: c.primary_domain,
    sentimentScore: c.health_score ?? DEFAULT_SCORE,
    lastInteraction: c.last_interaction_at,
    mrr: c.mrr,
    renewalDate: c.renewal_date,
    csmOwner: c.csm_owner,
    isExcluded: c.is_excluded === 1,
    createdAt: c.created_at,
    updatedAt: c.updated_at,
  };
}

/** Every scored client of the workspace, excluded ones too, by name (suggested and ignored ones are not clients yet). */
export async function listClients(db: Db, workspaceId: string): Promise<ClientView[]> {
  const rows = await db
    .selectFrom('clients')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'active')
    .orderBy('name')
    .orderBy('id')
    .execute();
  return rows.map(toClientView);
}

export async function getClientRow(db: Db, workspaceId: string, clientId: string): Promise<ClientsTable> {
  const row = await db
    .selectFrom('clients')
    .selectAll()
    .where('id', '=', clientId)
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (!row) throw new ChsError('CLIENT_NOT_FOUND', `client ${clientId} not found`);
  return row;
}

export async function getClientDetails(db: Db, workspaceId: string, clientId: string, now: Date): Promise<ClientDetails> {
  return (await readClientDetails(db, workspaceId, clientId, now)).details;
}

/** One client's details, and until when they stay right if nothing is written meanwhile. */
export interface ClientDetailsRead {
  details: ClientDetails;
  /**
   * The first instant after `now` at which the same data could give other figures: an
   * interaction leaving the 30- or 60-day window, or a future-dated one coming into view. Null
   * when time alone never changes them.
   */
  validUntil: Date | null;
}

async function healthView(db: Db, row: ClientsTable): Promise<ClientHealthView> {
  const score = row.health_score ?? DEFAULT_SCORE;
  const day = row.health_updated_at?.slice(0, 10) ?? null;
  if (day === null) return { score, date: null, confidence: null, reason: `No score yet: default ${score.toFixed(1)}.`, reasonCode: 'no_data', risks: [] };
  const weekBefore = addDays(new Date(`${day}T00:00:00Z`), -7)
    .toISOString()
    .slice(0, 10);
  const snaps = await db
    .selectFrom('health_snapshots')
    .select(['date', 'score', ...SNAPSHOT_DETAIL_COLUMNS])
    .where('client_id', '=', row.id)
    .where('date', 'in', [day, weekBefore])
    .execute();
  const details = await readSnapshotDetails(db, snaps);
  const at = (date: string) => {
    const i = snaps.findIndex((s) => s.date === date);
    return i < 0 ? undefined : { row: snaps[i]!, components: details[i]!.components, confidence: details[i]!.confidence };
  };
  const cur = at(day);
  const prev = at(weekBefore);
  const components = cur ? cur.components : null;
  const why = explainStanding(score, components, prev ? { score: Number(prev.row.score), components: prev.components } : null);
  return {
    score,
    date: cur ? day : null,
    confidence: cur ? cur.confidence : null,
    reason: why.text,
    reasonCode: why.code,
    risks: storedSignals(components).map((r) => ({ code: r.code, text: r.text, interactionIds: r.interactionIds })),
  };
}

export async function readClientDetails(db: Db, workspaceId: string, clientId: string, now: Date): Promise<ClientDetailsRead> {
  const row = await getClientRow(db, workspaceId, clientId);
  const nowIso = now.toISOString();
  const d30 = addDays(now, -30).toISOString();
  const d60 = addDays(now, -60).toISOString();
  // The all-time count is index-only; the figures that read rows need only the last 60 days.
  const total = await db
    .selectFrom('interactions')
    .select(sql<number>`count(*)`.as('n'))
    .where('client_id', '=', clientId)
    .executeTakeFirstOrThrow();
  const counts = await db
    .selectFrom('interactions')
    .select([
      sql<number>`sum(case when occurred_at >= ${d30} then 1 else 0 end)`.as('last_month'),
      sql<number | null>`avg(case when direction <> 'outbound' and occurred_at >= ${d30} then sentiment_score end)`.as('s_recent'),
      sql<number | null>`avg(case when direction <> 'outbound' and occurred_at < ${d30} then sentiment_score end)`.as('s_before'),
      sql<string | null>`min(case when occurred_at >= ${d30} then occurred_at end)`.as('first_recent'),
      sql<string | null>`min(occurred_at)`.as('first_before'),
    ])
    .where('client_id', '=', clientId)
    .where('occurred_at', '>=', d60)
    .where('occurred_at', '<=', nowIso)
    .executeTakeFirstOrThrow();
  const future = await db
    .selectFrom('interactions')
    .select(sql<string | null>`min(occurred_at)`.as('next'))
    .where('client_id', '=', clientId)
    .where('occurred_at', '>', nowIso)
    .executeTakeFirstOrThrow();

  const ordered = db
    .selectFrom('interactions')
    .select([
      'occurred_at',
      'direction',
      sql<string | null>`lag(direction) over (partition by thread_id order by occurred_at, id)`.as('prev_dir'),
      sql<string | null>`lag(occurred_at) over (partition by thread_id order by occurred_at, id)`.as('prev_at'),
    ])
    .where('client_id', '=', clientId)
    .where('type', '=', 'email')
    .where('thread_id', 'is not', null)
    .where('occurred_at', '<=', nowIso);
  const reply = await db
    .selectFrom(ordered.as('t'))
    .select([sql<number | null>`avg(${hoursBetween(db, sql.ref('t.prev_at'), sql.ref('t.occurred_at'))})`.as('hours')])
    .where('t.direction', '=', 'outbound')
    .where('t.prev_dir', '=', 'inbound')
    .executeTakeFirst();

  const contacts = await db
    .selectFrom('contacts as c')
    .select([
      'c.name',
      'c.title',
      'c.last_seen_at',
      (eb) =>
        eb
          .selectFrom('contact_emails as e')
          .select((e) => e.fn.min('e.email').as('m'))
          .whereRef('e.contact_id', '=', 'c.id')
          .as('email'),
    ])
    .where('c.workspace_id', '=', workspaceId)
    .where('c.client_id', '=', clientId)
    .orderBy('c.last_seen_at', 'desc')
    .orderBy('c.id')
    .execute();

  const details: ClientDetails = {
    client: toClientView(row),
    metrics: {
      totalInteractions: Number(total.n),
      avgResponseTime: reply?.hours === null || reply?.hours === undefined ? null : Math.round(Number(reply.hours) * 100) / 100,
      lastMonthInteractions: Number(counts.last_month ?? 0),
      sentimentTrend: sentimentTrend(counts.s_recent, counts.s_before),
    },
    contacts: contacts.map((c) => ({ email: c.email ?? '', name: c.name, title: c.title, lastSeen: c.last_seen_at })),
    health: await healthView(db, row),
  };
  // An interaction at t counts in the 30-day window while now ≤ t + 30 days, in the 60-day one
  // while now ≤ t + 60 days; a future one counts once now ≥ t.
  const changes = [
    counts.first_recent === null ? null : Date.parse(counts.first_recent) + 30 * DAY_MS + 1,
    counts.first_before === null ? null : Date.parse(counts.first_before) + 60 * DAY_MS + 1,
    future.next === null ? null : Date.parse(future.next),
  ].filter((t): t is number => t !== null && Number.isFinite(t));
  return { details, validUntil: changes.length === 0 ? null : new Date(Math.min(...changes)) };
}

/** Mean sentiment of the last 30 days against the 30 before: ±0.1 or more is a trend. */
export function sentimentTrend(recent: number | null, before: number | null): SentimentTrend {
  if (recent === null || before === null) return 'stable';
  const d = Number(recent) - Number(before);
  // A hair under the threshold absorbs floating error in the averages (0.3 − 0.2 = 0.0999…).
  if (d >= SENTIMENT_TREND_MIN_CHANGE - 1e-9) return 'improving';
  if (d <= -SENTIMENT_TREND_MIN_CHANGE + 1e-9) return 'declining';
  return 'stable';
}

/** The columns {@link toInteractionView} reads. */
export const INTERACTION_VIEW_COLUMNS = [
  'id',
  'type',
  'subject',
  'sentiment_label',
  'sentiment_score',
  'occurred_at',
  'from_email',
  'to_emails',
  'summary',
  'direction',
  'source',
] as const;

export function toInteractionView(r: Pick<InteractionsTable, (typeof INTERACTION_VIEW_COLUMNS)[number]>): InteractionView {
  return {
    id: r.id,
    type: r.type,
    subject: r.subject,
    sentiment: r.sentiment_label,
    date: r.occurred_at,
    from: r.from_email,
    to: r.to_emails,
    summary: r.summary,
    sentimentScore: r.sentiment_score,
    direction: r.direction,
    source: r.source,
  };
}

export async function listClientInteractions(
  db: Db,
  workspaceId: string,
  clientId: string,
  page: { limit: number; offset: number },
): Promise<{ interactions: InteractionView[]; pagination: Pagination }> {
  await getClientRow(db, workspaceId, clientId);
  const total = await db
    .selectFrom('interactions')
    .select(sql<number>`count(*)`.as('n'))
    .where('client_id', '=', clientId)
    .executeTakeFirstOrThrow();
  const rows = await db
    .selectFrom('interactions')
    .select(INTERACTION_VIEW_COLUMNS)
    .where('client_id', '=', clientId)
    .orderBy('occurred_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const n = Number(total.n);
  return {
    interactions: rows.map(toInteractionView),
    pagination: { total: n, limit: page.limit, offset: page.offset, hasMore: page.offset + rows.length < n },
  };
}

/** Client id → last interaction timestamp (null when none), for every client of the workspace. */
export async function lastInteractions(db: Db, workspaceId: string): Promise<Record<string, string | null>> {
  const rows = await db
    .selectFrom('clients')
    .select(['id', 'last_interaction_at'])
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'active')
    .orderBy('id')
    .execute();
  const out: Record<string, string | null> = {};
  for (const r of rows) out[r.id] = r.last_interaction_at;
  return out;
}
