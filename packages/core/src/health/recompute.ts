/**
 * Rebuilds daily health snapshots, in batches of clients: read and score each batch
 * (score-batch.ts), write its snapshots (write.ts). This file only plans: which clients, from
 * which day, in which batches, and in which thread each batch is scored. A client whose history
 * is stale (stale.ts) is rebuilt from its stale day at the latest, and each batch's write clears
 * what it rebuilt: a rebuild that stops leaves the rest stale.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { storeLocationOf, type Db } from '../store/database.js';
import { getSettings } from '../settings/settings.js';
import { addDays, daysBetween, utcDay } from '../util/time.js';
import type { ModelOptions } from './model.js';
import { writeSnapshots } from './write.js';
import { scoringWeights } from './models.js';
import { chunks } from '../util/lists.js';
import { dialectOf } from '../store/dialect.js';
import { raiseStaleDays, renewStaleMark } from './stale.js';
import { CLIENT_BATCH, maxDay, minDay, scoreAndEncode, startDay, type BatchContext, type ClientRow, type ScoredBatch } from './score-batch.js';
import { ScoreThread } from './score-thread.js';

export type { BatchContext, ClientRow } from './score-batch.js';

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
  /** Called and awaited before each batch is read, scored and written, with its number from 1 (fault injection in tests). */
  onBatch?: (n: number) => void | Promise<void>;
  /**
   * Score in a thread of its own while this one writes (score-thread.ts): stores opened by
   * openStore (not SQLite's `:memory:`). Default: when the rebuild has SCORE_THREAD_MIN_BATCHES
   * batches or more.
   */
  scoreThread?: boolean;
}

export interface RecomputeHealthResult {
  clientsScored: number;
  snapshotsWritten: number;
}

/**
 * Snapshots per batch: a batch's rows are built in memory and written in one transaction, and a
 * full rebuild makes one per client and day (250 clients × a year ≈ 90,000 rows ≈ 300 MB). Two
 * batches live at once (one written, the next scored). 5,000: after a 50,000-message ingest
 * (183,000 snapshots) the rebuild's peak RSS is ~60 MB under 10,000's, in the same time.
 */
const BATCH_SNAPSHOTS = 5_000;
/**
 * Batch writes in flight at once on PostgreSQL. Two: the rebuild after a 50,000-message ingest
 * (183,000 snapshots) took 6.4-6.6 s instead of 9.5 s with one at a time, on two cores; more
 * would hold more batches in memory for a server with no core left to use.
 */
const PG_WRITES_AT_ONCE = 2;
/**
 * Batches from which a SQLite rebuild scores in a thread of its own: reading, scoring and
 * encoding a batch there while this thread writes the one before. Starting the thread costs
 * ~50 ms (a bundled command) to ~300 ms (the library's modules); a batch is ~0.1 s.
 */
const SCORE_THREAD_MIN_BATCHES = 4;
/** Batches a scoring thread may be ahead of the writes: it reads the next while one is written, and one waits. */
const SCORE_THREAD_AHEAD = 2;
/**
 * How often a rebuild with stale clients still to write renews one of their marks (ms): the
 * scheduler leaves a workspace whose marks are recent to whoever is rebuilding it (stale.ts).
 */
const STALE_RENEW_MS = 60_000;

export async function recomputeHealth(db: Db, input: RecomputeHealthInput): Promise<RecomputeHealthResult> {
  const { workspaceId, now } = input;
  const today = utcDay(now);
  const settings = await getSettings(db, workspaceId);
  // A learned model the workspace applied scores instead of the settings' weights (models.ts).
  const weights = await scoringWeights(db, workspaceId, settings.healthWeights);
  const options: ModelOptions = { ...weights, replySlaBusinessDays: settings.replySlaBusinessDays };
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
        'c.health_stale_seq',
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
  // and indexes while this process scores, and two batches are written at once, each in its own
  // transaction on its own connection (batches hold different clients, so they touch different
  // rows). SQLite runs each statement to its end in the thread that calls it. A large rebuild on
  // either reads and scores in a thread of its own (score-thread.ts) while this one writes; a
  // small one scores here.
  const maxWriting = dialectOf(db) === 'postgres' ? PG_WRITES_AT_ONCE : 1;
  const batches = [...batchesOf(clients, ctx)];
  // A store opened by openStore has a location (not SQLite's :memory:).
  const location = input.scoreThread === false ? undefined : storeLocationOf(db);
  const thread = location && (input.scoreThread === true || batches.length >= SCORE_THREAD_MIN_BATCHES) ? new ScoreThread(location) : undefined;
  // The current scores this rebuild writes are announced (risk entered, cleared, moved…) in each batch's transaction.
  const announce = { workspaceId, riskThreshold: settings.riskThreshold, minDelta: settings.events.scoreChangeMinDelta, now };
  // Batches being read and scored, in order (in the thread, up to SCORE_THREAD_AHEAD ahead of the writes), and writes in flight.
  const scoring: Promise<ScoredBatch>[] = [];
  const writing: Promise<number>[] = [];
  const writeNext = async (): Promise<void> => {
    const { encoded, scored } = await scoring.shift()!;
    while (writing.length >= maxWriting) snapshotsWritten += await writing.shift()!;
    const write = writeSnapshots(db, encoded, scored, nowIso, announce).then(() => encoded.clientIds.length);
    // Its failure is thrown where it is awaited (in a later turn or after the loop), not as an unhandled rejection meanwhile.
    write.catch(() => undefined);
    writing.push(write);
    // SQLite answers synchronously: without a turn of the event loop between batches, a runner
    // rebuilding a large workspace (the daily run: ~5 s for 5,000 clients) answers no request.
    await nextTurn();
  };
  let batchNo = 0;
  let dispatched = 0;
  let renewed = performance.now();
  try {
    for (const batch of batches) {
      try {
        await input.onBatch?.(++batchNo);
      } catch (err) {
        // Stopped before this batch: the ones before it are written, as when each is written before the next is read.
        while (scoring.length) await writeNext();
        throw err;
      }
      dispatched += batch.length;
      if (performance.now() - renewed >= STALE_RENEW_MS) {
        // A stale client of a later batch: no write in flight holds its row.
        const later = clients.slice(dispatched).findLast((c) => c.health_stale_from !== null);
        if (later) await renewStaleMark(db, later.id, new Date());
        renewed = performance.now();
      }
      const scored = thread ? thread.score(workspaceId, batch, ctx) : scoreAndEncode(db, workspaceId, batch, ctx);
      scored.catch(() => undefined);
      scoring.push(scored);
      while (scoring.length > (thread ? SCORE_THREAD_AHEAD : 0)) await writeNext();
    }
    while (scoring.length) await writeNext();
    while (writing.length) snapshotsWritten += await writing.shift()!;
  } catch (err) {
    // A failure while writes are in flight: let them end before reporting.
    await Promise.allSettled(writing);
    throw err;
  } finally {
    await thread?.close();
  }
  return { clientsScored: clients.length, snapshotsWritten };
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
