/**
 * Small builders for hand-made fixtures in tests: rows inserted straight into the store so each
 * test states every number it relies on. Not used by the engine itself.
 */
import type { Db } from '../store/database.js';
import type { ClientsTable, InteractionsTable } from '../store/schema.js';
import type { StoredComponents } from './model.js';
import { storeSnapshots } from './write.js';
import { readSnapshotDetails, SNAPSHOT_DETAIL_COLUMNS } from './snapshots.js';

export async function insertWorkspace(db: Db, id: string): Promise<void> {
  const at = '2024-01-01T00:00:00.000Z';
  await db.insertInto('workspaces').values({ id, name: id, plan: 'free', billing_status: 'active', created_at: at, updated_at: at }).execute();
}

export interface ClientSpec extends Partial<Omit<ClientsTable, 'id' | 'workspace_id'>> {
  id: string;
  domain: string;
}

export async function insertClient(db: Db, workspaceId: string, c: ClientSpec): Promise<void> {
  const at = '2024-01-01T00:00:00.000Z';
  const { domain, id, ...rest } = c;
  await db
    .insertInto('clients')
    .values({
      id,
      workspace_id: workspaceId,
      name: id,
      name_source: 'domain',
      primary_domain: domain,
      mrr: null,
      renewal_date: null,
      csm_owner: null,
      is_excluded: 0,
      status: 'active',
      discovery: null,
      health_score: null,
      health_updated_at: null,
      last_interaction_at: null,
      created_at: at,
      updated_at: at,
      ...rest,
    })
    .execute();
  await db.insertInto('client_domains').values({ workspace_id: workspaceId, domain, client_id: id }).execute();
}

export interface InteractionSpec {
  id: string;
  clientId: string;
  at: string;
  direction: 'inbound' | 'outbound';
  sentiment: number;
  type?: string;
  thread?: string | null;
  label?: 'positive' | 'neutral' | 'negative';
  opened?: number | null;
  /** Bits of score/signals.ts SIGNAL_BITS (churn intent 1, follow-up 2, asks for an answer 4). Default 0. */
  signals?: number;
  /** Sender; default them@<client>.test inbound, me@us.test outbound. */
  from?: string;
  /** Written to us directly (1, the default) or only copying us (0). */
  addressed?: number;
}

export async function insertInteractions(db: Db, workspaceId: string, items: InteractionSpec[]): Promise<void> {
  const rows: InteractionsTable[] = items.map((i) => ({
    id: i.id,
    workspace_id: workspaceId,
    client_id: i.clientId,
    type: i.type ?? 'email',
    source: 'mbox',
    dedupe_key: i.id,
    provider_id: null,
    thread_id: i.thread === undefined ? null : i.thread,
    subject: `subject ${i.id}`,
    summary: `summary ${i.id}`,
    sentiment_label: i.label ?? (i.sentiment > 0.05 ? 'positive' : i.sentiment < -0.05 ? 'negative' : 'neutral'),
    sentiment_score: i.sentiment,
    occurred_at: i.at,
    from_email: i.from ?? (i.direction === 'inbound' ? `them@${i.clientId}.test` : 'me@us.test'),
    to_emails: i.direction === 'inbound' ? 'me@us.test' : `them@${i.clientId}.test`,
    direction: i.direction,
    opened: i.opened ?? null,
    signals: i.signals ?? 0,
    addressed: i.addressed ?? 1,
    role: null,
    topic: null,
    content_hash: i.id,
    created_at: i.at,
    updated_at: i.at,
  }));
  for (let k = 0; k < rows.length; k += 200)
    await db
      .insertInto('interactions')
      .values(rows.slice(k, k + 200))
      .execute();
}

/** A snapshot with the four contributions given (score = their sum unless stated). */
export async function insertSnapshot(
  db: Db,
  workspaceId: string,
  clientId: string,
  date: string,
  contributions: [number, number, number, number],
  score?: number,
): Promise<void> {
  const [s, e, r, rec] = contributions;
  const comp = (c: number) => ({ value: c * 4, weight: 0.25, contribution: c });
  await storeSnapshots(db, [
    {
      workspace_id: workspaceId,
      client_id: clientId,
      date,
      score: score ?? s + e + r + rec,
      confidence: 1,
      components: { sentiment: comp(s), engagement: comp(e), responsiveness: comp(r), recency: comp(rec) },
      reason: 'stable',
      reason_text: '',
      evidence: {},
    },
  ]);
}

/** A stored snapshot as tests read it: the components with every raw input, and the evidence. */
export interface TestSnapshot {
  client_id: string;
  date: string;
  score: number;
  confidence: number;
  components: StoredComponents & { inputs: Record<string, unknown> };
  reason: string | null;
  reason_text: string | null;
  evidence: { interactionIds: string[]; changes?: Record<string, number>; [key: string]: unknown };
}

/** The stored snapshots (of one client, on one day, when given), by client and date. */
export async function readSnapshots(db: Db, where: { clientId?: string; date?: string } = {}): Promise<TestSnapshot[]> {
  let q = db.selectFrom('health_snapshots').select(['client_id', 'date', 'score', ...SNAPSHOT_DETAIL_COLUMNS]);
  if (where.clientId !== undefined) q = q.where('client_id', '=', where.clientId);
  if (where.date !== undefined) q = q.where('date', '=', where.date);
  const rows = await q.orderBy('client_id').orderBy('date').execute();
  const details = await readSnapshotDetails(db, rows);
  return rows.map((r, i) => {
    const d = details[i]!;
    return {
      client_id: r.client_id,
      date: r.date,
      score: Number(r.score),
      confidence: d.confidence,
      components: d.components as TestSnapshot['components'],
      reason: d.reason,
      reason_text: d.reasonText,
      evidence: { ...d.evidence, interactionIds: d.evidenceIds },
    };
  });
}

/**
 * A content client's routine: a weekly question (`sentiment`, asking for an answer) answered two
 * hours later, for the three months before `end` (the last a week before it).
 */
export function weeklyRoutine(client: string, end = '2024-05-20T09:00:00.000Z', sentiment = 0.4): InteractionSpec[] {
  const out: InteractionSpec[] = [];
  for (let d = 90; d >= 8; d -= 7) {
    const t = Date.parse(end) - d * 86_400_000;
    out.push({
      id: `${client}-${d}-in`,
      clientId: client,
      at: new Date(t).toISOString(),
      direction: 'inbound',
      sentiment,
      thread: `${client}-${d}`,
      signals: 4,
    });
    out.push({
      id: `${client}-${d}-out`,
      clientId: client,
      at: new Date(t + 7_200_000).toISOString(),
      direction: 'outbound',
      sentiment: 0.3,
      thread: `${client}-${d}`,
    });
  }
  return out;
}
