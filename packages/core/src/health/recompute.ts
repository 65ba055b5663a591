/**
 * Rebuilds daily health snapshots. Per batch of clients it runs one grouped SQL query (day
 * aggregates, thread reply events and the top three interactions of each day for evidence, from
 * one read of the rows), so the database returns one row per client and day — never every
 * interaction — and the windows are rolled in JavaScript over those day buckets.
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
/**
 * Snapshots per batch: a batch's rows are built in memory and written in one transaction, and a
 * full rebuild makes one per client and day (250 clients × a year ≈ 90,000 rows ≈ 300 MB).
 */
const BATCH_SNAPSHOTS = 10_000;
const INSERT_CHUNK = 300;
/** Top interactions per client-day kept as evidence. */
const EVIDENCE_PER_DAY = 3;
/** Mean rebuilt days per client from which evidence is ranked in the main query. */
const EVIDENCE_QUERY_MIN_DAYS = 7;
/** (client, day) pairs per evidence query: three parameters each. */
const EVIDENCE_PAIR_CHUNK = 500;

const evidenceRank = sql<number>`row_number() over (partition by client_id, substr(occurred_at, 1, 10) order by abs(sentiment_score) desc, occurred_at desc, id)`;

/**
 * The day's top interactions (largest |sentiment| first) for the days the snapshots being written
 * will name as evidence: for each client, the last day with data up to its first rebuilt day, and
 * every day with data after it. Each day is read whole, so the ranking is the main query's.
 */
async function fetchEvidence(
  db: Db,
  plans: { client: ClientRow; start: string }[],
  buckets: Map<string, DayBucket[]>,
  days: string[],
  fetchStart: string,
): Promise<void> {
  const pairs: { clientId: string; day: string }[] = [];
  for (const { client, start } of plans) {
    const arr = buckets.get(client.id);
    if (!arr) continue;
    const startIdx = daysBetween(fetchStart, start);
    for (let k = startIdx; k >= 0; k--) {
      if ((arr[k]?.n ?? 0) > 0) {
        pairs.push({ clientId: client.id, day: days[k]! });
        break;
      }
    }
    for (let k = startIdx + 1; k < arr.length; k++) if ((arr[k]?.n ?? 0) > 0) pairs.push({ clientId: client.id, day: days[k]! });
  }
  for (const part of chunks(pairs, EVIDENCE_PAIR_CHUNK)) {
    const ranked = db
      .selectFrom('interactions')
      .select(['client_id', 'id', sql<string>`substr(occurred_at, 1, 10)`.as('day'), evidenceRank.as('rn')])
      .where((eb) =>
        eb.or(
          part.map((p) =>
            eb.and([
              eb('client_id', '=', p.clientId),
              eb('occurred_at', '>=', p.day),
              eb('occurred_at', '<', utcDay(addDays(new Date(`${p.day}T00:00:00Z`), 1))),
            ]),
          ),
        ),
      );
    const top = await db
      .selectFrom(ranked.as('r'))
      .select(['r.client_id', 'r.id', 'r.day'])
      .where('r.rn', '<=', EVIDENCE_PER_DAY)
      .orderBy('r.client_id')
      .orderBy('r.day')
      .orderBy('r.rn')
      .execute();
    for (const t of top) {
      const i = daysBetween(fetchStart, t.day);
      buckets.get(t.client_id)?.[i]?.topIds.push(t.id);
    }
  }
}

export interface ClientRow {
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

  const ctx: BatchContext = { today, now, retentionStart, fromDay: input.fromDay, weights };
  let snapshotsWritten = 0;
  for (const batch of batchesOf(clients, ctx)) {
    snapshotsWritten += await recomputeBatch(db, workspaceId, batch, ctx);
    // SQLite answers synchronously: without a turn of the event loop between batches, a runner
    // rebuilding a large workspace (the daily run: ~5 s for 5,000 clients) answers no request.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return { clientsScored: clients.length, snapshotsWritten };
}

export interface BatchContext {
  today: string;
  now: Date;
  retentionStart: string;
  fromDay: string | undefined;
  weights: Record<HealthComponent, number>;
}

type SnapshotRow = Omit<HealthSnapshotsTable, never>;

/** First day to rebuild for a client with data (see RecomputeHealthInput.fromDay). */
function startDay(c: ClientRow & { first_at: string }, ctx: BatchContext): string {
  const firstDay = minDay(c.first_at.slice(0, 10), ctx.today);
  let start = ctx.fromDay ?? firstDay;
  if (c.health_updated_at === null) start = firstDay;
  else {
    // Fill any gap since the last scored day (a skipped scheduler run).
    const nextUnscored = utcDay(addDays(new Date(`${c.health_updated_at.slice(0, 10)}T00:00:00Z`), 1));
    start = minDay(start, nextUnscored);
  }
  start = maxDay(start, firstDay, ctx.retentionStart);
  return minDay(start, ctx.today);
}

/**
 * Clients in order, in batches of at most `maxClients` clients and `maxSnapshots` snapshots to
 * write (a client with more is a batch of its own). Exported for tests.
 */
export function* batchesOf(
  clients: ClientRow[],
  ctx: BatchContext,
  maxClients: number = CLIENT_BATCH,
  maxSnapshots: number = BATCH_SNAPSHOTS,
): Generator<ClientRow[]> {
  let batch: ClientRow[] = [];
  let snapshots = 0;
  for (const c of clients) {
    const n = c.first_at === null ? 1 : daysBetween(startDay({ ...c, first_at: c.first_at }, ctx), ctx.today) + 1;
    if (batch.length > 0 && (batch.length >= maxClients || snapshots + n > maxSnapshots)) {
      yield batch;
      batch = [];
      snapshots = 0;
    }
    batch.push(c);
    snapshots += n;
  }
  if (batch.length > 0) yield batch;
}

async function recomputeBatch(db: Db, workspaceId: string, batch: ClientRow[], ctx: BatchContext): Promise<number> {
  const { today, weights } = ctx;
  const nowIso = ctx.now.toISOString();
  const plans: { client: ClientRow; start: string }[] = [];
  const noData: ClientRow[] = [];
  for (const c of batch) {
    if (c.first_at === null) noData.push(c);
    else plans.push({ client: c, start: startDay({ ...c, first_at: c.first_at }, ctx) });
  }

  const rows: SnapshotRow[] = [];
  const updates: { id: string; score: number; last: string | null }[] = [];

  if (plans.length > 0) {
    const minStart = plans.reduce((m, p) => minDay(m, p.start), today);
    const fetchStart = utcDay(addDays(new Date(`${minStart}T00:00:00Z`), -LOOKBACK_DAYS));
    const endExclusive = utcDay(addDays(new Date(`${today}T00:00:00Z`), 1));
    // Day labels of the batch's span, formatted once (not once per snapshot).
    const days = Array.from({ length: daysBetween(fetchStart, today) + 1 }, (_, i) => dayAt(fetchStart, i));
    const dayIndex = new Map(days.map((d, i) => [d, i]));
    const ids = plans.map((p) => p.client.id);
    const span = daysBetween(fetchStart, today) + 1;
    const buckets = new Map<string, DayBucket[]>();
    const bucket = (clientId: string, day: string): DayBucket | undefined => {
      const i = dayIndex.get(day);
      if (i === undefined) return undefined;
      let arr = buckets.get(clientId);
      if (!arr) {
        arr = Array.from({ length: span }, emptyBucket);
        buckets.set(clientId, arr);
      }
      return arr[i];
    };

    // One pass over the batch's rows: the day aggregates, the reply events (a message whose
    // predecessor in its e-mail thread went the other way) and the day's top three interactions
    // by |sentiment| for evidence. Reading the rows once matters more than the extra window sort.
    // Rows that are not threaded e-mails share one null partition key and their lag is dropped.
    const threadKey = sql`case when type = 'email' then thread_id end`;
    // A long rebuild needs the evidence of most days: rank every row in the main query. A short
    // one (the daily run, an ingest of recent mail) needs a day or two per client: rank only
    // those days' rows afterwards and spare the main query a sort of the whole lookback.
    const rebuiltDays = plans.reduce((sum, p) => sum + daysBetween(p.start, today) + 1, 0);
    const evidenceInQuery = rebuiltDays > EVIDENCE_QUERY_MIN_DAYS * plans.length;
    const rowsInWindow = db
      .selectFrom('interactions')
      .select([
        'client_id',
        'id',
        'occurred_at',
        'direction',
        'type',
        'sentiment_score',
        sql<string>`substr(occurred_at, 1, 10)`.as('day'),
        sql<string | null>`case when type = 'email' and thread_id is not null then lag(direction) over (partition by client_id, ${threadKey} order by occurred_at, id) end`.as('prev_dir'),
        sql<string | null>`lag(occurred_at) over (partition by client_id, ${threadKey} order by occurred_at, id)`.as('prev_at'),
      ])
      .$if(evidenceInQuery, (qb) => qb.select(evidenceRank.as('rn')))
      // Client ids are unique across workspaces: filtering on them alone keeps the planner on
      // interactions_client_time instead of scanning the workspace's time range.
      .where('client_id', 'in', ids)
      .where('occurred_at', '>=', fetchStart)
      .where('occurred_at', '<', endExclusive);
    const ourReply = sql`t.direction = 'outbound' and t.prev_dir = 'inbound'`;
    const top = (k: number) => sql<string | null>`max(case when t.rn = ${sql.lit(k)} then t.id end)`;
    const aggregates = await db
      .selectFrom(rowsInWindow.as('t'))
      .select([
        't.client_id',
        't.day',
        sql<number>`count(*)`.as('n'),
        sql<number>`sum(case when t.direction = 'inbound' or t.type in ('meeting', 'call') then 1 else 0 end)`.as('contacts'),
        sql<number>`sum(case when t.direction <> 'outbound' then t.sentiment_score else 0 end)`.as('s_sum'),
        sql<number>`sum(case when t.direction <> 'outbound' then 1 else 0 end)`.as('s_n'),
        sql<number>`sum(case when t.direction = 'outbound' and t.type = 'email' then 1 else 0 end)`.as('out_emails'),
        sql<number>`sum(case when ${ourReply} then 1 else 0 end)`.as('ours'),
        sql<number>`sum(case when ${ourReply} then ${hoursBetween(db, sql.ref('t.prev_at'), sql.ref('t.occurred_at'))} else 0 end)`.as('our_hours'),
        sql<number>`sum(case when t.direction = 'inbound' and t.prev_dir = 'outbound' then 1 else 0 end)`.as('theirs'),
      ])
      .$if(evidenceInQuery, (qb) => qb.select([top(1).as('top1'), top(2).as('top2'), top(3).as('top3')]))
      .groupBy(['t.client_id', 't.day'])
      .execute();
    for (const a of aggregates) {
      const b = bucket(a.client_id, a.day);
      if (!b) continue;
      b.n = Number(a.n);
      b.contacts = Number(a.contacts);
      b.sentimentSum = Number(a.s_sum);
      b.sentimentCount = Number(a.s_n);
      b.outboundEmails = Number(a.out_emails);
      b.ourReplies = Number(a.ours);
      b.ourReplyHours = Number(a.our_hours);
      b.theirReplies = Number(a.theirs);
      for (const id of [a.top1, a.top2, a.top3]) if (id !== null && id !== undefined) b.topIds.push(id);
    }
    if (!evidenceInQuery) await fetchEvidence(db, plans, buckets, days, fetchStart);

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
          date: days[i]!,
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
            day: lastActive >= 0 ? (days[lastActive] ?? null) : null,
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
    // One delete per distinct first rebuilt day: a daily run deletes a whole batch at once.
    const byStart = new Map<string, string[]>();
    for (const [id, start] of [...plans.map((p) => [p.client.id, p.start] as const), ...noData.map((c) => [c.id, today] as const)]) {
      const ids = byStart.get(start) ?? [];
      ids.push(id);
      byStart.set(start, ids);
    }
    for (const [start, ids] of byStart) {
      await trx.deleteFrom('health_snapshots').where('client_id', 'in', ids).where('date', '>=', start).execute();
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
