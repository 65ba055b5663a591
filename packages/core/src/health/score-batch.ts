/**
 * One batch of a health rebuild, read and scored: its clients' history (history.ts: one grouped
 * query, one row per client-day, plus the few messages that carry a risk signal), each client's
 * days scored through the pure model (score-client.ts), and the snapshots encoded for storage
 * (write.ts). Reads only: it runs in the rebuild's own thread or in a scoring thread with a
 * connection of its own (score-thread.ts), and the rebuild writes what it returns.
 */
import type { Db } from '../store/database.js';
import { addDays, daysBetween, utcDay } from '../util/time.js';
import { DEFAULT_SCORE, HISTORY_DAYS, activeDays, defaultResult, noDataBuckets, type ModelOptions } from './model.js';
import { fetchEvidence, fetchHistory, type BatchHistory } from './history.js';
import { scoreClientDays, type SnapshotRow } from './score-client.js';
import { encodeSnapshots, type EncodedSnapshots, type ScoredClient } from './write.js';
import { chunks } from '../util/lists.js';

/** Clients per batch: bounds IN lists and the memory of one batch's day buckets. */
export const CLIENT_BATCH = 250;
/** Mean rebuilt days per client from which evidence is ranked in the main query. */
const EVIDENCE_QUERY_MIN_DAYS = 7;

export interface ClientRow {
  id: string;
  health_updated_at: string | null;
  /** The first day whose snapshots are out of date (stale.ts); null when none is. */
  health_stale_from: string | null;
  /** How many times it was marked stale (null: never), when read (stale.ts clearedBy). */
  health_stale_seq: number | null;
  first_at: string | null;
  last_at: string | null;
}

export interface BatchContext {
  today: string;
  now: Date;
  retentionStart: string;
  fromDay: string | undefined;
  /** Per-client earliest changed days (RecomputeHealthInput.fromDays); a client in it starts there rather than at fromDay. */
  fromDays?: ReadonlyMap<string, string>;
  options: ModelOptions;
  /** The workspace's zone: business days for the reply service level. */
  timeZone: string;
}

/**
 * First day to rebuild for a client with data (see RecomputeHealthInput.fromDay and fromDays): the
 * day asked, or its stale day when that is earlier (a client found stale only starts there).
 */
export function startDay(c: ClientRow & { first_at: string }, ctx: BatchContext): string {
  const firstDay = minDay(c.first_at.slice(0, 10), ctx.today);
  const asked = ctx.fromDays?.get(c.id) ?? ctx.fromDay;
  let start = asked === undefined ? firstDay : minDay(asked, c.health_stale_from ?? asked);
  if (c.health_updated_at === null) start = firstDay;
  else {
    // Fill any gap since the last scored day (a skipped scheduler run).
    const nextUnscored = utcDay(addDays(new Date(`${c.health_updated_at.slice(0, 10)}T00:00:00Z`), 1));
    start = minDay(start, nextUnscored);
  }
  start = maxDay(start, firstDay, ctx.retentionStart);
  return minDay(start, ctx.today);
}

/** Reads a batch's history and scores its clients' days: the snapshots to write and the clients' current scores. */
async function scoreBatch(db: Db, workspaceId: string, batch: ClientRow[], ctx: BatchContext): Promise<{ rows: SnapshotRow[]; scored: ScoredClient[] }> {
  const { today } = ctx;
  const plans: { client: ClientRow; start: string }[] = [];
  const noData: ClientRow[] = [];
  for (const c of batch) {
    if (c.first_at === null) noData.push(c);
    else plans.push({ client: c, start: startDay({ ...c, first_at: c.first_at }, ctx) });
  }
  const rows: SnapshotRow[] = [];
  const scored: ScoredClient[] = [];

  if (plans.length > 0) {
    const minStart = plans.reduce((m, p) => minDay(m, p.start), today);
    // A day's score reads HISTORY_DAYS days, the day itself included; one more day before the
    // first rebuilt one lets its predecessor be scored exactly too (to explain the first move).
    const fetchStart = utcDay(addDays(new Date(`${minStart}T00:00:00Z`), -HISTORY_DAYS));
    // A long rebuild needs the evidence of most days: rank every row in the main query. A short
    // one (the daily run, an ingest of recent mail) needs a day or two per client: rank only
    // those days' rows afterwards and spare the main query a sort of the whole lookback.
    const rebuiltDays = plans.reduce((sum, p) => sum + daysBetween(p.start, today) + 1, 0);
    const evidenceInQuery = rebuiltDays > EVIDENCE_QUERY_MIN_DAYS * plans.length;
    const history = await fetchHistory(db, {
      clientIds: plans.map((p) => p.client.id),
      fetchStart,
      today,
      evidenceInQuery,
      replySlaBusinessDays: ctx.options.replySlaBusinessDays,
      timeZone: ctx.timeZone,
    });
    if (!evidenceInQuery) await fetchEvidence(db, history, fetchStart, evidenceDays(plans, history, fetchStart));

    // Two-way contacts before the fetched range, for "not enough data" (only clients older than it have any).
    const older = plans.filter((p) => p.client.first_at! < fetchStart).map((p) => p.client.id);
    const knownBefore = new Map<string, number>();
    for (const ids of chunks(older, CLIENT_BATCH)) {
      const counts = await db
        .selectFrom('interactions')
        .select(['client_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('client_id', 'in', ids)
        .where('occurred_at', '<', fetchStart)
        .where((eb) => eb.or([eb('direction', '=', 'inbound'), eb('type', 'in', ['meeting', 'call'])]))
        .groupBy('client_id')
        .execute();
      for (const r of counts) knownBefore.set(r.client_id, Number(r.n));
    }
    const asOf = ctx.now.getTime();
    for (const { client, start } of plans) {
      const buckets = history.buckets.get(client.id) ?? noDataBuckets(history.days.length);
      const { rows: clientRows, last } = scoreClientDays(
        {
          workspaceId,
          clientId: client.id,
          history: {
            origin: fetchStart,
            buckets,
            events: history.events.get(client.id) ?? [],
            asOf,
            active: activeDays(buckets),
            knownBefore: knownBefore.get(client.id) ?? 0,
          },
          days: history.days,
          firstIdx: Math.max(0, daysBetween(fetchStart, client.first_at!.slice(0, 10))),
          startIdx: daysBetween(fetchStart, start),
        },
        ctx.options,
      );
      rows.push(...clientRows);
      scored.push({
        id: client.id,
        start,
        score: last?.score ?? DEFAULT_SCORE,
        lastInteractionAt: client.last_at,
        staleSeq: client.health_stale_seq,
        ...optionalRows(clientRows.at(-1), clientRows.at(-2)),
      });
    }
  }

  const fallback = defaultResult(ctx.options.weights);
  for (const c of noData) {
    const row: SnapshotRow = {
      workspace_id: workspaceId,
      client_id: c.id,
      date: today,
      score: fallback.score,
      confidence: 0,
      components: { ...fallback.components, inputs: { ...fallback.inputs }, ...(ctx.options.model === undefined ? {} : { model: ctx.options.model }) },
      reason: 'no_data',
      reason_text: `No interactions yet: default score ${fallback.score.toFixed(1)}.`,
      evidence: { from: null, to: fallback.score, changes: null, driver: null, day: null, interactionIds: [] },
    };
    rows.push(row);
    scored.push({ id: c.id, start: today, score: fallback.score, lastInteractionAt: null, staleSeq: c.health_stale_seq, latest: row });
  }
  return { rows, scored };
}

/** A batch read, scored and encoded: what the rebuild writes. */
export interface ScoredBatch {
  encoded: EncodedSnapshots;
  scored: ScoredClient[];
}

/** scoreBatch, then its snapshots encoded for storage (in the same thread: encoding needs the rows, which stay here). */
export async function scoreAndEncode(db: Db, workspaceId: string, batch: ClientRow[], ctx: BatchContext): Promise<ScoredBatch> {
  const { rows, scored } = await scoreBatch(db, workspaceId, batch, ctx);
  return { encoded: encodeSnapshots(rows), scored };
}

/**
 * The client-days whose evidence the snapshots being written may name: for each client, the
 * last day with data up to its first rebuilt day, and every day with data after it.
 */
function evidenceDays(plans: { client: ClientRow; start: string }[], history: BatchHistory, fetchStart: string): { clientId: string; day: string }[] {
  const pairs: { clientId: string; day: string }[] = [];
  for (const { client, start } of plans) {
    const arr = history.buckets.get(client.id);
    if (!arr) continue;
    const startIdx = daysBetween(fetchStart, start);
    for (let k = startIdx; k >= 0; k--) {
      if ((arr[k]?.n ?? 0) > 0) {
        pairs.push({ clientId: client.id, day: history.days[k]! });
        break;
      }
    }
    for (let k = startIdx + 1; k < arr.length; k++) if ((arr[k]?.n ?? 0) > 0) pairs.push({ clientId: client.id, day: history.days[k]! });
  }
  return pairs;
}

function optionalRows(latest: SnapshotRow | undefined, previous: SnapshotRow | undefined): Pick<ScoredClient, 'latest' | 'previous'> {
  return { ...(latest ? { latest } : {}), ...(previous ? { previous } : {}) };
}

export function minDay(...days: string[]): string {
  return days.reduce((a, b) => (b < a ? b : a));
}

export function maxDay(...days: string[]): string {
  return days.reduce((a, b) => (b > a ? b : a));
}
