/**
 * Rebuilds daily health snapshots. Per batch of clients it runs three grouped SQL queries
 * (day aggregates, thread reply events, the top interactions of each day for evidence), so the
 * database returns at most a few rows per client and day — never every interaction — and the
 * windows are rolled in JavaScript over those day buckets.
 */
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import type { HealthSnapshotsTable } from '../store/schema.js';
import { getSettings } from '../settings/settings.js';
import { addDays, daysBetween, utcDay } from '../util/time.js';
import {
  LOOKBACK_DAYS,
  defaultResult,
  emptyBucket,
  explainChange,
  normaliseWeights,
  scoreDay,
  type DayBucket,
  type HealthComponent,
  type HealthResult,
} from './model.js';
import { chunks, hoursBetween } from './sql.js';

export interface RecomputeHealthInput {
  workspaceId: string;
  /** Clients to rescore. Default: every client of the workspace. */
  clientIds?: string[];
  /**
   * Earliest UTC day (YYYY-MM-DD) whose data changed: snapshots from that day to today are
   * rebuilt. Default: the client's first interaction day (a full rebuild). A client whose last
   * snapshot is older also gets the missing days filled, so history has no gaps.
   */
  fromDay?: string;
  /** "Now" for the data (the engine's clock). */
  now: Date;
}

export interface RecomputeHealthResult {
  clientsScored: number;
  snapshotsWritten: number;
}

/** Clients per batch: bounds IN lists and the memory of one batch's day buckets. */
const CLIENT_BATCH = 250;
/** Top interactions per client-day kept as evidence. */
const EVIDENCE_PER_DAY = 3;
const INSERT_CHUNK = 300;

interface ClientRow {
  id: string;
  health_updated_at: string | null;
  first_at: string | null;
  last_at: string | null;
}

export async function recomputeHealth(db: Db, input: RecomputeHealthInput): Promise<RecomputeHealthResult> {
  const { workspaceId, now } = input;
  const today = utcDay(now);
  const settings = await getSettings(db, workspaceId);
  const weights = normaliseWeights(settings.healthWeights);
  const retentionStart = utcDay(addDays(now, -Math.max(1, settings.dataRetentionDays)));
  if (input.fromDay !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(input.fromDay)) {
    throw new Error(`fromDay must be YYYY-MM-DD, got ${input.fromDay}`);
  }

  const clients: ClientRow[] = [];
  const idLists = input.clientIds === undefined ? [undefined] : chunks([...new Set(input.clientIds)], CLIENT_BATCH);
  for (const ids of idLists) {
    if (ids && ids.length === 0) continue;
    let q = db
      .selectFrom('clients as c')
      .select((eb) => [
        'c.id',
        'c.health_updated_at',
        eb.selectFrom('interactions as i').select((e) => e.fn.min('i.occurred_at').as('m')).whereRef('i.client_id', '=', 'c.id').as('first_at'),
        eb.selectFrom('interactions as i').select((e) => e.fn.max('i.occurred_at').as('m')).whereRef('i.client_id', '=', 'c.id').as('last_at'),
      ])
      .where('c.workspace_id', '=', workspaceId);
    if (ids) q = q.where('c.id', 'in', ids);
    clients.push(...((await q.orderBy('c.id').execute()) as ClientRow[]));
  }

  let snapshotsWritten = 0;
  for (const batch of chunks(clients, CLIENT_BATCH)) {
    snapshotsWritten += await recomputeBatch(db, workspaceId, batch, { today, now, retentionStart, fromDay: input.fromDay, weights });
  }
  return { clientsScored: clients.length, snapshotsWritten };
}

interface BatchContext {
  today: string;
  now: Date;
  retentionStart: string;
  fromDay: string | undefined;
  weights: Record<HealthComponent, number>;
}

type SnapshotRow = Omit<HealthSnapshotsTable, never>;

async function recomputeBatch(db: Db, workspaceId: string, batch: ClientRow[], ctx: BatchContext): Promise<number> {
  const { today, weights } = ctx;
  const nowIso = ctx.now.toISOString();
  const plans: { client: ClientRow; start: string }[] = [];
  const noData: ClientRow[] = [];
  for (const c of batch) {
    if (c.first_at === null) {
      noData.push(c);
      continue;
    }
    const firstDay = minDay(c.first_at.slice(0, 10), today);
    let start = ctx.fromDay ?? firstDay;
    if (c.health_updated_at === null) start = firstDay;
    else {
      // Fill any gap since the last scored day (a skipped scheduler run).
      const nextUnscored = utcDay(addDays(new Date(`${c.health_updated_at.slice(0, 10)}T00:00:00Z`), 1));
      start = minDay(start, nextUnscored);
    }
    start = maxDay(start, firstDay, ctx.retentionStart);
    start = minDay(start, today);
    plans.push({ client: c, start });
  }

  const rows: SnapshotRow[] = [];
  const updates: { id: string; score: number; last: string | null }[] = [];

  if (plans.length > 0) {
    const minStart = plans.reduce((m, p) => minDay(m, p.start), today);
    const fetchStart = utcDay(addDays(new Date(`${minStart}T00:00:00Z`), -LOOKBACK_DAYS));
    const endExclusive = utcDay(addDays(new Date(`${today}T00:00:00Z`), 1));
    const ids = plans.map((p) => p.client.id);
    const span = daysBetween(fetchStart, today) + 1;
    const buckets = new Map<string, DayBucket[]>();
    const bucket = (clientId: string, day: string): DayBucket | undefined => {
      let arr = buckets.get(clientId);
      if (!arr) {
        arr = Array.from({ length: span }, emptyBucket);
        buckets.set(clientId, arr);
      }
      return arr[daysBetween(fetchStart, day)];
    };

    const day = sql<string>`substr(occurred_at, 1, 10)`;
    const aggregates = await db
      .selectFrom('interactions')
      .select([
        'client_id',
        day.as('day'),
        sql<number>`count(*)`.as('n'),
        sql<number>`sum(case when direction = 'inbound' or type in ('meeting', 'call') then 1 else 0 end)`.as('contacts'),
        sql<number>`sum(case when direction <> 'outbound' then sentiment_score else 0 end)`.as('s_sum'),
        sql<number>`sum(case when direction <> 'outbound' then 1 else 0 end)`.as('s_n'),
        sql<number>`sum(case when direction = 'outbound' and type = 'email' then 1 else 0 end)`.as('out_emails'),
      ])
      // Client ids are unique across workspaces: filtering on them alone keeps the planner on
      // interactions_client_time instead of scanning the workspace's time range.
      .where('client_id', 'in', ids)
      .where('occurred_at', '>=', fetchStart)
      .where('occurred_at', '<', endExclusive)
      .groupBy(['client_id', day])
      .execute();
    for (const a of aggregates) {
      const b = bucket(a.client_id, a.day);
      if (!b) continue;
      b.n = Number(a.n);
      b.contacts = Number(a.contacts);
      b.sentimentSum = Number(a.s_sum);
      b.sentimentCount = Number(a.s_n);
      b.outboundEmails = Number(a.out_emails);
    }

    // Reply events: a message whose predecessor in the same thread went the other way.
    const ordered = db
      .selectFrom('interactions')
      .select([
        'client_id',
        'occurred_at',
        'direction',
        sql<string | null>`lag(direction) over (partition by client_id, thread_id order by occurred_at, id)`.as('prev_dir'),
        sql<string | null>`lag(occurred_at) over (partition by client_id, thread_id order by occurred_at, id)`.as('prev_at'),
      ])
      // Client ids are unique across workspaces: filtering on them alone keeps the planner on
      // interactions_client_time instead of scanning the workspace's time range.
      .where('client_id', 'in', ids)
      .where('type', '=', 'email')
      .where('thread_id', 'is not', null)
      .where('occurred_at', '>=', fetchStart)
      .where('occurred_at', '<', endExclusive);
    const replies = await db
      .selectFrom(ordered.as('t'))
      .select([
        't.client_id',
        sql<string>`substr(t.occurred_at, 1, 10)`.as('day'),
        sql<number>`sum(case when t.direction = 'outbound' and t.prev_dir = 'inbound' then 1 else 0 end)`.as('ours'),
        sql<number>`sum(case when t.direction = 'outbound' and t.prev_dir = 'inbound' then ${hoursBetween(db, sql.ref('t.prev_at'), sql.ref('t.occurred_at'))} else 0 end)`.as('our_hours'),
        sql<number>`sum(case when t.direction = 'inbound' and t.prev_dir = 'outbound' then 1 else 0 end)`.as('theirs'),
      ])
      .groupBy(['t.client_id', sql`substr(t.occurred_at, 1, 10)`])
      .execute();
    for (const r of replies) {
      const b = bucket(r.client_id, r.day);
      if (!b) continue;
      b.ourReplies = Number(r.ours);
      b.ourReplyHours = Number(r.our_hours);
      b.theirReplies = Number(r.theirs);
    }

    const ranked = db
      .selectFrom('interactions')
      .select([
        'client_id',
        'id',
        day.as('day'),
        sql<number>`row_number() over (partition by client_id, substr(occurred_at, 1, 10) order by abs(sentiment_score) desc, occurred_at desc, id)`.as('rn'),
      ])
      // Client ids are unique across workspaces: filtering on them alone keeps the planner on
      // interactions_client_time instead of scanning the workspace's time range.
      .where('client_id', 'in', ids)
      .where('occurred_at', '>=', fetchStart)
      .where('occurred_at', '<', endExclusive);
    const top = await db
      .selectFrom(ranked.as('r'))
      .select(['r.client_id', 'r.id', 'r.day'])
      .where('r.rn', '<=', EVIDENCE_PER_DAY)
      .orderBy('r.client_id')
      .orderBy('r.day')
      .orderBy('r.rn')
      .execute();
    for (const t of top) bucket(t.client_id, t.day)?.topIds.push(t.id);

    for (const { client, start } of plans) {
      const arr = buckets.get(client.id) ?? Array.from({ length: span }, emptyBucket);
      const firstIdx = Math.max(0, daysBetween(fetchStart, client.first_at!.slice(0, 10)));
      const startIdx = daysBetween(fetchStart, start);
      const endIdx = span - 1;
      let prev: HealthResult | null = startIdx - 1 >= firstIdx ? scoreDay(arr, startIdx - 1, weights) : null;
      let lastActive = -1;
      for (let k = startIdx; k >= 0; k--) {
        if ((arr[k]?.n ?? 0) > 0) {
          lastActive = k;
          break;
        }
      }
      let current: HealthResult | null = null;
      for (let i = startIdx; i <= endIdx; i++) {
        if ((arr[i]?.n ?? 0) > 0) lastActive = i;
        current = scoreDay(arr, i, weights);
        const ex = explainChange(prev?.score ?? null, prev?.components ?? null, current.score, current.components);
        const evidenceIds = lastActive >= 0 ? (arr[lastActive]?.topIds ?? []) : [];
        rows.push({
          workspace_id: workspaceId,
          client_id: client.id,
          date: dayAt(fetchStart, i),
          score: current.score,
          confidence: current.confidence,
          components_json: JSON.stringify({ ...current.components, inputs: roundInputs(current) }),
          reason: ex.reason,
          reason_text: ex.text,
          evidence_json: JSON.stringify({
            from: prev?.score ?? null,
            to: current.score,
            changes: ex.changes,
            driver: ex.driver,
            day: lastActive >= 0 ? dayAt(fetchStart, lastActive) : null,
            interactionIds: evidenceIds,
          }),
          created_at: nowIso,
        });
        prev = current;
      }
      updates.push({ id: client.id, score: current?.score ?? 50, last: client.last_at });
    }
  }

  const fallback = defaultResult(weights);
  for (const c of noData) {
    rows.push({
      workspace_id: workspaceId,
      client_id: c.id,
      date: today,
      score: fallback.score,
      confidence: 0,
      components_json: JSON.stringify({ ...fallback.components, inputs: fallback.inputs }),
      reason: 'no_data',
      reason_text: `No interactions yet: default score ${fallback.score.toFixed(1)}.`,
      evidence_json: JSON.stringify({ from: null, to: fallback.score, changes: null, driver: null, day: null, interactionIds: [] }),
      created_at: nowIso,
    });
    updates.push({ id: c.id, score: fallback.score, last: null });
  }

  await db.transaction().execute(async (trx) => {
    for (const p of plans) {
      await trx.deleteFrom('health_snapshots').where('client_id', '=', p.client.id).where('date', '>=', p.start).execute();
    }
    for (const c of noData) {
      await trx.deleteFrom('health_snapshots').where('client_id', '=', c.id).where('date', '>=', today).execute();
    }
    for (const part of chunks(rows, INSERT_CHUNK)) {
      await trx.insertInto('health_snapshots').values(part).execute();
    }
    for (const u of updates) {
      await trx
        .updateTable('clients')
        .set({ health_score: u.score, health_updated_at: nowIso, last_interaction_at: u.last })
        .where('id', '=', u.id)
        .execute();
    }
  });
  return rows.length;
}

function roundInputs(r: HealthResult): Record<string, number | null> {
  const x = r.inputs;
  const r3 = (v: number | null): number | null => (v === null ? null : Math.round(v * 1000) / 1000);
  return {
    avgSentiment: r3(x.avgSentiment),
    recent30: x.recent30,
    baseline30: r3(x.baseline30),
    ourReplyHours: r3(x.ourReplyHours),
    theirReplyRate: r3(x.theirReplyRate),
    daysSinceContact: x.daysSinceContact,
    n90: x.n90,
  };
}

function dayAt(origin: string, i: number): string {
  return utcDay(addDays(new Date(`${origin}T00:00:00Z`), i));
}

function minDay(...days: string[]): string {
  return days.reduce((a, b) => (b < a ? b : a));
}

function maxDay(...days: string[]): string {
  return days.reduce((a, b) => (b > a ? b : a));
}
