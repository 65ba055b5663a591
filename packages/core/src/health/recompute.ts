/**
 * Rebuilds daily health snapshots, in batches of clients: read the batch's history (history.ts:
 * one grouped query, one row per client-day plus the few messages that carry a risk signal),
 * score each client's days (score-client.ts, through the pure model), write the snapshots
 * (write.ts). This file only plans: which clients, from which day, in which batches. A client
 * whose history is stale (stale.ts) is rebuilt from its stale day at the latest, and each
 * batch's write clears what it rebuilt: a rebuild that stops leaves the rest stale.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Db } from '../store/database.js';
import { getSettings } from '../settings/settings.js';
import { addDays, daysBetween, utcDay } from '../util/time.js';
import { DEFAULT_SCORE, HISTORY_DAYS, activeDays, defaultResult, noDataBuckets, normaliseWeights, type ModelOptions } from './model.js';
import { fetchEvidence, fetchHistory, type BatchHistory } from './history.js';
import { scoreClientDays, type SnapshotRow } from './score-client.js';
import { writeSnapshots, type ScoredClient } from './write.js';
import { chunks } from '../util/lists.js';
import { dialectOf } from '../store/dialect.js';
import { raiseStaleDays, renewStaleMark } from './stale.js';

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
  /**
   * Clients to rescore, each from its own earliest changed day (client id → YYYY-MM-DD), besides
   * `clientIds` (which then default to none): what an ingest or a sync touched.
   */
  fromDays?: ReadonlyMap<string, string>;
  /**
   * Also rescore every client of the workspace whose history is stale (a rebuild that did not
   * finish, a write whose rebuild has not run yet), from its stale day. With neither `clientIds`
   * nor `fromDays` every client is rescored anyway. Default false.
   */
  includeStale?: boolean;
  /** "Now" for the data (the engine's clock). */
  now: Date;
  /** Called before each batch is read, scored and written, with its number from 1 (fault injection in tests). */
  onBatch?: (n: number) => void;
}

export interface RecomputeHealthResult {
  clientsScored: number;
  snapshotsWritten: number;
}

/** Clients per batch: bounds IN lists and the memory of one batch's day buckets. */
const CLIENT_BATCH = 250;
/**
 * Snapshots per batch: a batch's rows are built in memory and written in one transaction, and a
 * full rebuild makes one per client and day (250 clients × a year ≈ 90,000 rows ≈ 300 MB). Two
 * batches live at once (one written, the next scored). 5,000: after a 50,000-message ingest
 * (183,000 snapshots) the rebuild's peak RSS is ~60 MB under 10,000's, in the same time.
 */
const BATCH_SNAPSHOTS = 5_000;
/** Mean rebuilt days per client from which evidence is ranked in the main query. */
const EVIDENCE_QUERY_MIN_DAYS = 7;
/**
 * Batch writes in flight at once on PostgreSQL. Two: the rebuild after a 50,000-message ingest
 * (183,000 snapshots) took 6.4-6.6 s instead of 9.5 s with one at a time, on two cores; more
 * would hold more batches in memory for a server with no core left to use.
 */
const PG_WRITES_AT_ONCE = 2;
/**
 * How often a rebuild with stale clients still to write renews one of their marks (ms): the
 * scheduler leaves a workspace whose marks are recent to whoever is rebuilding it (stale.ts).
 */
const STALE_RENEW_MS = 60_000;

export interface ClientRow {
  id: string;
  health_updated_at: string | null;
  /** The first day whose snapshots are out of date (stale.ts); null when none is. */
  health_stale_from: string | null;
  first_at: string | null;
  last_at: string | null;
}

export async function recomputeHealth(db: Db, input: RecomputeHealthInput): Promise<RecomputeHealthResult> {
  const { workspaceId, now } = input;
  const today = utcDay(now);
  const settings = await getSettings(db, workspaceId);
  const options: ModelOptions = { weights: normaliseWeights(settings.healthWeights), replySlaBusinessDays: settings.replySlaBusinessDays };
  const retentionStart = utcDay(addDays(now, -Math.max(1, settings.dataRetentionDays)));
  const isDay = (d: string) => /^\d{4}-\d{2}-\d{2}$/.test(d);
  if (input.fromDay !== undefined && !isDay(input.fromDay)) {
    throw new Error(`fromDay must be YYYY-MM-DD, got ${input.fromDay}`);
  }
  for (const [id, day] of input.fromDays ?? []) if (!isDay(day)) throw new Error(`fromDays: the day of ${id} must be YYYY-MM-DD, got ${day}`);

  // Every client, or the ones named (by clientIds and fromDays), plus the stale ones if asked.
  const everyClient = input.clientIds === undefined && input.fromDays === undefined;
  const named = everyClient ? [] : [...new Set([...(input.clientIds ?? []), ...(input.fromDays?.keys() ?? [])])];
  const selections: Array<{ ids?: string[]; stale?: true }> = everyClient ? [{}] : chunks(named, CLIENT_BATCH).map((ids) => ({ ids }));
  if (!everyClient && input.includeStale) selections.push({ stale: true });
  const clients: ClientRow[] = [];
  const seen = new Set<string>();
  // A client named without a day is rebuilt whole (or from fromDay); one found stale only, from its stale day.
  const fromDays = new Map(input.fromDays ?? []);
  for (const { ids, stale } of selections) {
    let q = db
      .selectFrom('clients as c')
      .select((eb) => [
        'c.id',
        'c.health_updated_at',
        'c.health_stale_from',
        eb
          .selectFrom('interactions as i')
          .select((e) => e.fn.min('i.occurred_at').as('m'))
          .whereRef('i.client_id', '=', 'c.id')
          .as('first_at'),
        eb
          .selectFrom('interactions as i')
          .select((e) => e.fn.max('i.occurred_at').as('m'))
          .whereRef('i.client_id', '=', 'c.id')
          .as('last_at'),
      ])
      .where('c.workspace_id', '=', workspaceId)
      // Suggested and ignored clients are not scored (resolve/discovery.ts).
      .where('c.status', '=', 'active');
    if (ids) q = q.where('c.id', 'in', ids);
    if (stale) q = q.where('c.health_stale_from', 'is not', null);
    for (const c of (await q.orderBy('c.id').execute()) as ClientRow[]) {
      if (seen.has(c.id)) continue;
      seen.add(c.id);
      clients.push(c);
      if (stale) fromDays.set(c.id, c.health_stale_from!);
    }
  }
  // The named clients come in chunks and the stale ones after them: one order for the batches.
  if (selections.length > 1) clients.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  const ctx: BatchContext = { today, now, retentionStart, fromDay: input.fromDay, fromDays, options, timeZone: settings.timezone };
  await raiseStaleDays(db, staleDaysToRaise(clients, ctx));

  let snapshotsWritten = 0;
  const nowIso = now.toISOString();
  // Batches are written while the next ones are read and scored. On PostgreSQL the server inserts
  // and indexes (most of a rebuild's time there) while this process scores, and two batches are
  // written at once, each in its own transaction on its own connection: the server uses a second
  // core (batches hold different clients, so they touch different rows). SQLite runs each
  // statement to its end when called, so there writes and scoring simply alternate.
  const maxWriting = dialectOf(db) === 'postgres' ? PG_WRITES_AT_ONCE : 1;
  // The current scores this rebuild writes are announced (risk entered, cleared, moved…) in each batch's transaction.
  const announce = { workspaceId, riskThreshold: settings.riskThreshold, minDelta: settings.events.scoreChangeMinDelta, now };
  const writing: Promise<number>[] = [];
  let batchNo = 0;
  let dispatched = 0;
  let renewed = performance.now();
  try {
    for (const batch of batchesOf(clients, ctx)) {
      input.onBatch?.(++batchNo);
      dispatched += batch.length;
      if (performance.now() - renewed >= STALE_RENEW_MS) {
        // A stale client of a later batch: no write in flight holds its row.
        const later = clients.slice(dispatched).findLast((c) => c.health_stale_from !== null);
        if (later) await renewStaleMark(db, later.id, new Date());
        renewed = performance.now();
      }
      const { rows, scored } = await scoreBatch(db, workspaceId, batch, ctx);
      while (writing.length >= maxWriting) snapshotsWritten += await writing.shift()!;
      const write = writeSnapshots(db, rows, scored, nowIso, announce).then(() => rows.length);
      // Its failure is thrown where it is awaited (in a later turn or after the loop), not as an unhandled rejection meanwhile.
      write.catch(() => undefined);
      writing.push(write);
      // SQLite answers synchronously: without a turn of the event loop between batches, a runner
      // rebuilding a large workspace (the daily run: ~5 s for 5,000 clients) answers no request.
      await nextTurn();
    }
    while (writing.length) snapshotsWritten += await writing.shift()!;
  } catch (err) {
    // A failure while writes are in flight: let them end before reporting.
    await Promise.allSettled(writing);
    throw err;
  }
  return { clientsScored: clients.length, snapshotsWritten };
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
function startDay(c: ClientRow & { first_at: string }, ctx: BatchContext): string {
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

/**
 * The stale clients whose stale day is before the first day their rebuild writes (their first
 * interaction's day, the retention horizon; today for a client with no interaction): that day,
 * so the rebuild clears them (stale.ts).
 */
function staleDaysToRaise(clients: ClientRow[], ctx: BatchContext): Array<{ id: string; read: string; to: string }> {
  const out: Array<{ id: string; read: string; to: string }> = [];
  for (const c of clients) {
    if (c.health_stale_from === null) continue;
    const floor = c.first_at === null ? ctx.today : minDay(maxDay(c.first_at.slice(0, 10), ctx.retentionStart), ctx.today);
    if (c.health_stale_from < floor) {
      out.push({ id: c.id, read: c.health_stale_from, to: floor });
      c.health_stale_from = floor;
    }
  }
  return out;
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
      components: { ...fallback.components, inputs: { ...fallback.inputs } },
      reason: 'no_data',
      reason_text: `No interactions yet: default score ${fallback.score.toFixed(1)}.`,
      evidence: { from: null, to: fallback.score, changes: null, driver: null, day: null, interactionIds: [] },
    };
    rows.push(row);
    scored.push({ id: c.id, start: today, score: fallback.score, lastInteractionAt: null, latest: row });
  }
  return { rows, scored };
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

function minDay(...days: string[]): string {
  return days.reduce((a, b) => (b < a ? b : a));
}

function maxDay(...days: string[]): string {
  return days.reduce((a, b) => (b > a ? b : a));
}
