/**
 * Jobs in the store. Every state change is a compare-and-set on (id, state[, lease owner]) after
 * `assertTransition`, and appends an event; claiming is atomic on both dialects (PostgreSQL:
 * `FOR UPDATE SKIP LOCKED`; SQLite: one UPDATE with a sub-select under its single writer lock).
 */
import type { Kysely, Transaction } from 'kysely';
import { recordEvent } from '../events/outbox.js';
import type { Db } from '../store/database.js';
import type { Database, JobsTable } from '../store/schema.js';
import { dialectOf } from '../store/dialect.js';
import { ChsError } from '../errors.js';
import { newId } from '../util/ids.js';
import { arrayOf, isRecord, readJson, recordOf, shape } from '../util/json.js';
import { ACTIVE_STATES, FINAL_STATES, assertTransition, type JobKind, type JobState } from './states.js';

export interface JobError {
  message: string;
  count: number;
  /** `warning` (kept going), `error` (the item was lost), `fatal` (the job stopped). */
  severity: 'warning' | 'error' | 'fatal';
  recoverable: boolean;
  at: string;
}

/** Per-source progress of a job (the API's `sources` map members, docs/api.md). */
export interface SourceProgress {
  status: 'pending' | 'running' | 'completed' | 'failed';
  itemsProcessed: number;
  totalItems?: number;
  progress?: number;
  lastSyncAt?: string;
  added?: number;
  updated?: number;
  skipped?: number;
  filtered?: number;
}

/**
 * The running attempt's live state, written every second or so outside the batch transactions
 * (recordJobLive). The rate is measured from the attempt's start; a job waiting on a provider
 * (sleeping out its Retry-After) says until when.
 */
export interface JobLive {
  /** When this attempt started, and the items stored then (where its reading resumed). */
  attemptStartedAt: string;
  readAtStart: number;
  phase: 'reading' | 'rebuilding';
  /** The provider asked to wait (Retry-After, a spent quota) until `until`. */
  waiting?: { reason: string; until: string };
  /**
   * `rows`: the read counter counts the provider's search rows (HubSpot, Intercom), which the
   * stored count need not equal (an Intercom contact's companies are stored too); absent: items.
   */
  readUnit?: 'rows';
  /** Clients the stored batches have touched so far: what the health rebuild will cover. */
  clients?: number;
  /** The health rebuild: when it started, over how many clients, and how long it took once done. */
  rebuild?: { startedAt: string; clients: number; ms?: number };
  /** When this was written. */
  at: string;
}

export interface Job {
  id: string;
  workspaceId: string;
  kind: JobKind;
  source: string;
  state: JobState;
  /** Shared by the jobs of one multi-source run; the job's own id otherwise. */
  groupId: string;
  params: Record<string, unknown>;
  sources: Record<string, SourceProgress>;
  /** Items stored (exact; moved in each batch's transaction). */
  itemsProcessed: number;
  /** Items read from the source, stored or not yet (live). */
  itemsRead: number;
  totalItems: number | null;
  itemsAdded: number;
  itemsUpdated: number;
  itemsSkipped: number;
  itemsFiltered: number;
  errorsCount: number;
  errors: JobError[];
  cursor: Record<string, unknown> | null;
  live: JobLive | null;
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  parkedUntil: string | null;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  updatedAt: string;
}

type Executor = Kysely<Database> | Transaction<Database>;

const isJobError = shape<JobError>({ message: 'string', count: 'number', severity: 'string', recoverable: 'boolean', at: 'string' });
const isSourceProgress = shape<SourceProgress>({ status: 'string', itemsProcessed: 'number' });
const isWaiting = shape<{ reason: string; until: string }>({ reason: 'string', until: 'string' });
const isRebuild = shape<{ startedAt: string; clients: number; ms?: number }>({ startedAt: 'string', clients: 'number', ms: 'number?' });
function isJobLive(v: unknown): v is JobLive {
  return (
    isRecord(v) &&
    typeof v.attemptStartedAt === 'string' &&
    typeof v.readAtStart === 'number' &&
    (v.phase === 'reading' || v.phase === 'rebuilding') &&
    typeof v.at === 'string' &&
    (v.waiting === undefined || isWaiting(v.waiting)) &&
    (v.readUnit === undefined || v.readUnit === 'rows') &&
    (v.clients === undefined || typeof v.clients === 'number') &&
    (v.rebuild === undefined || isRebuild(v.rebuild))
  );
}

export function toJob(r: JobsTable): Job {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    kind: r.kind as JobKind,
    source: r.source,
    state: r.state as JobState,
    groupId: r.group_id ?? r.id,
    params: readJson(r.params_json, isRecord, 'jobs.params_json'),
    sources: readJson(r.progress_json, recordOf(isSourceProgress), 'jobs.progress_json'),
    itemsProcessed: r.items_processed,
    itemsRead: r.items_read ?? 0,
    totalItems: r.total_items,
    itemsAdded: r.items_added,
    itemsUpdated: r.items_updated,
    itemsSkipped: r.items_skipped,
    itemsFiltered: r.items_filtered,
    errorsCount: r.errors_count,
    errors: readJson(r.errors_json, arrayOf(isJobError), 'jobs.errors_json'),
    cursor: r.cursor_json ? readJson(r.cursor_json, isRecord, 'jobs.cursor_json') : null,
    live: r.live_json ? readJson(r.live_json, isJobLive, 'jobs.live_json') : null,
    leaseOwner: r.lease_owner,
    leaseExpiresAt: r.lease_expires_at,
    parkedUntil: r.parked_until,
    attempts: r.attempts,
    lastError: r.last_error,
    createdAt: r.created_at,
    startedAt: r.started_at,
    completedAt: r.completed_at,
    updatedAt: r.updated_at,
  };
}

export async function appendJobEvent(db: Executor, jobId: string, type: string, data: Record<string, unknown>, at: Date = new Date()): Promise<void> {
  await db
    .insertInto('job_events')
    .values({ job_id: jobId, at: at.toISOString(), type, data_json: JSON.stringify(data) })
    .execute();
}

export interface EnqueueInput {
  workspaceId: string;
  kind: JobKind;
  source: string;
  params?: Record<string, unknown>;
  totalItems?: number | null;
  sources?: Record<string, SourceProgress>;
  /** Group of a multi-source run. Default: the job's own id. */
  groupId?: string;
  /** The job's id. Default: a new `job_…` id. */
  id?: string;
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint failed/i.test(e?.message ?? '');
}

/** Queues a job. One active job per (workspace, source): a second one is refused with JOB_CONFLICT naming the active job. */
export async function enqueueJob(db: Db, input: EnqueueInput, now: Date = new Date()): Promise<Job> {
  const at = now.toISOString();
  const id = input.id ?? newId('job');
  const row: JobsTable = {
    id,
    group_id: input.groupId ?? id,
    workspace_id: input.workspaceId,
    kind: input.kind,
    source: input.source,
    state: 'queued',
    params_json: JSON.stringify(input.params ?? {}),
    progress_json: JSON.stringify(input.sources ?? {}),
    items_processed: 0,
    items_read: 0,
    total_items: input.totalItems ?? null,
    items_added: 0,
    items_updated: 0,
    items_skipped: 0,
    items_filtered: 0,
    errors_count: 0,
    errors_json: '[]',
    cursor_json: null,
    live_json: null,
    lease_owner: null,
    lease_expires_at: null,
    parked_until: null,
    attempts: 0,
    last_error: null,
    created_at: at,
    started_at: null,
    completed_at: null,
    updated_at: at,
  };
  try {
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('jobs').values(row).execute();
      await appendJobEvent(trx, row.id, 'job:queued', { kind: row.kind, source: row.source }, now);
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const active = await findActiveJob(db, input.workspaceId, input.source);
    throw new ChsError('JOB_CONFLICT', `a ${input.source} job is already ${active?.state ?? 'active'} for ${input.workspaceId}`, {
      cause: err,
      details: { jobId: active?.id ?? null },
    });
  }
  return toJob(row);
}

export async function findActiveJob(db: Executor, workspaceId: string, source: string): Promise<Job | null> {
  const r = await db
    .selectFrom('jobs')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('source', '=', source)
    .where('state', 'in', [...ACTIVE_STATES])
    .executeTakeFirst();
  return r ? toJob(r) : null;
}

export async function getJob(db: Executor, id: string): Promise<Job | null> {
  const r = await db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  return r ? toJob(r) : null;
}

export interface ListJobsQuery {
  workspaceId: string;
  source?: string;
  states?: JobState[];
  kinds?: JobKind[];
  groupId?: string;
  limit: number;
  offset: number;
}

/** Newest first, with the total for paging. */
export async function listJobs(db: Db, q: ListJobsQuery): Promise<{ jobs: Job[]; total: number }> {
  let base = db.selectFrom('jobs').where('workspace_id', '=', q.workspaceId);
  if (q.source) base = base.where('source', '=', q.source);
  if (q.states?.length) base = base.where('state', 'in', q.states);
  if (q.kinds?.length) base = base.where('kind', 'in', q.kinds);
  if (q.groupId) base = base.where('group_id', '=', q.groupId);
  const totalRow = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  const rows = await base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).offset(q.offset).execute();
  return { jobs: rows.map(toJob), total: Number(totalRow?.n ?? 0) };
}

export interface TransitionPatch {
  leaseOwner?: string | null;
  leaseExpiresAt?: string | null;
  parkedUntil?: string | null;
  lastError?: string | null;
  error?: Omit<JobError, 'at'>;
}

/** job.completed or job.failed for a job that just ended, in the transaction that ended it. */
async function recordJobEvent(trx: Executor, job: Job, now: Date): Promise<void> {
  const ref = {
    id: job.id,
    kind: job.kind,
    source: job.source,
    itemsProcessed: job.itemsProcessed,
    itemsAdded: job.itemsAdded,
    itemsUpdated: job.itemsUpdated,
    itemsSkipped: job.itemsSkipped,
    errorsCount: job.errorsCount,
    startedAt: job.startedAt,
    completedAt: job.completedAt,
  };
  if (job.state === 'completed')
    await recordEvent(trx, { workspaceId: job.workspaceId, type: 'job.completed', occurredAt: now, data: { job: ref }, dedupeKey: `job.completed:${job.id}` });
  else
    await recordEvent(trx, {
      workspaceId: job.workspaceId,
      type: 'job.failed',
      occurredAt: now,
      data: { job: ref, error: job.lastError ?? 'the job failed' },
      dedupeKey: `job.failed:${job.id}`,
    });
}

/**
 * Moves a job from `from` to `to` if it is still in `from` (and, when given, still leased by
 * `owner`). Returns the updated job, or null when someone else changed it first.
 */
export async function transitionJob(
  db: Executor,
  id: string,
  from: JobState,
  to: JobState,
  opts: { owner?: string; patch?: TransitionPatch; now?: Date; event?: Record<string, unknown> } = {},
): Promise<Job | null> {
  assertTransition(from, to);
  const now = opts.now ?? new Date();
  const at = now.toISOString();
  const p = opts.patch ?? {};
  const run = async (trx: Executor): Promise<Job | null> => {
    const current = await trx.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
    if (!current || current.state !== from) return null;
    if (opts.owner !== undefined && current.lease_owner !== opts.owner) return null;
    let q = trx
      .updateTable('jobs')
      .set({
        state: to,
        updated_at: at,
        ...(p.error ? withErrors(current, [p.error], at) : {}),
        ...(to === 'running' && !current.started_at ? { started_at: at } : {}),
        // What was read but not stored is read again by the next attempt: the read counter falls
        // back to the stored count at every change of state, and a new attempt starts its live
        // state afresh (what the last one measured says nothing of it).
        items_read: current.items_processed,
        ...(to === 'running' ? { attempts: current.attempts + 1, live_json: null } : {}),
        ...(to === 'completed' || to === 'failed' || to === 'cancelled' ? { completed_at: at, lease_owner: null, lease_expires_at: null } : {}),
        ...(to === 'queued' || to === 'parked' ? { lease_owner: null, lease_expires_at: null } : {}),
        ...(p.leaseOwner !== undefined ? { lease_owner: p.leaseOwner } : {}),
        ...(p.leaseExpiresAt !== undefined ? { lease_expires_at: p.leaseExpiresAt } : {}),
        ...(p.parkedUntil !== undefined ? { parked_until: p.parkedUntil } : {}),
        ...(p.lastError !== undefined ? { last_error: p.lastError } : {}),
      })
      .where('id', '=', id)
      .where('state', '=', from);
    if (opts.owner !== undefined) q = q.where('lease_owner', '=', opts.owner);
    const res = await q.executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return null;
    await appendJobEvent(trx, id, `job:${to}`, { from, ...(opts.event ?? {}), ...(p.lastError ? { error: p.lastError } : {}) }, now);
    const updated = toJob(await trx.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow());
    // The outbox, in the transaction that ends the job (docs/events.md).
    if (to === 'completed' || to === 'failed') await recordJobEvent(trx, updated, now);
    return updated;
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

/**
 * Claims the oldest runnable job (queued, or parked whose time has come) for `owner` with a
 * lease of `leaseMs`. Returns null when there is none.
 */
export async function claimNextJob(db: Db, owner: string, leaseMs: number, now: Date = new Date(), kinds?: JobKind[]): Promise<Job | null> {
  const at = now.toISOString();
  const lease = new Date(now.getTime() + leaseMs).toISOString();
  const pg = dialectOf(db) === 'postgres';
  return db.transaction().execute(async (trx) => {
    let pick = trx
      .selectFrom('jobs')
      .select(['id', 'state'])
      .where((eb) => eb.or([eb('state', '=', 'queued'), eb.and([eb('state', '=', 'parked'), eb('parked_until', '<=', at)])]));
    if (kinds?.length) pick = pick.where('kind', 'in', kinds);
    pick = pick.orderBy('created_at').orderBy('id').limit(1);
    const candidate = await (pg ? pick.forUpdate().skipLocked() : pick).executeTakeFirst();
    if (!candidate) return null;
    return transitionJob(trx, candidate.id, candidate.state as JobState, 'running', {
      now,
      patch: { leaseOwner: owner, leaseExpiresAt: lease, parkedUntil: null },
      event: { owner },
    });
  });
}

/** Extends the lease; false when the job is no longer this owner's (swept or cancelled). */
export async function heartbeatJob(db: Executor, id: string, owner: string, leaseMs: number, now: Date = new Date()): Promise<boolean> {
  const res = await db
    .updateTable('jobs')
    .set({ lease_expires_at: new Date(now.getTime() + leaseMs).toISOString(), updated_at: now.toISOString() })
    .where('id', '=', id)
    .where('state', '=', 'running')
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Puts every running job whose lease expired back in the queue. Returns how many. */
export async function sweepExpiredLeases(db: Db, now: Date = new Date()): Promise<number> {
  const expired = await db
    .selectFrom('jobs')
    .select(['id', 'lease_owner'])
    .where('state', '=', 'running')
    .where('lease_expires_at', '<', now.toISOString())
    .execute();
  let n = 0;
  for (const j of expired) {
    const moved = await transitionJob(db, j.id, 'running', 'queued', {
      ...(j.lease_owner ? { owner: j.lease_owner } : {}),
      now,
      event: { reason: 'lease expired', owner: j.lease_owner },
    });
    if (moved) n += 1;
  }
  return n;
}

export interface ProgressPatch {
  itemsProcessed: number;
  totalItems?: number | null;
  itemsAdded: number;
  itemsUpdated: number;
  itemsSkipped: number;
  itemsFiltered: number;
  sources?: Record<string, SourceProgress>;
  cursor?: Record<string, unknown> | null;
}

/** The errors columns of `row` with `added` appended (each counts `count` toward errors_count). */
function withErrors(
  row: Pick<JobsTable, 'errors_json' | 'errors_count'>,
  added: ReadonlyArray<Omit<JobError, 'at'>>,
  at: string,
): Pick<JobsTable, 'errors_json' | 'errors_count'> {
  const errors = readJson(row.errors_json, arrayOf(isJobError), 'jobs.errors_json');
  errors.push(...added.map((e) => ({ ...e, at })));
  return { errors_json: JSON.stringify(errors), errors_count: row.errors_count + added.reduce((n, e) => n + e.count, 0) };
}

/** Appends errors to a job's record (history `errors[]`), e.g. items a sync could not read. */
export async function appendJobErrors(db: Executor, id: string, added: ReadonlyArray<Omit<JobError, 'at'>>, now: Date = new Date()): Promise<void> {
  if (!added.length) return;
  const current = await db.selectFrom('jobs').select(['errors_json', 'errors_count']).where('id', '=', id).executeTakeFirst();
  if (!current) return;
  await db
    .updateTable('jobs')
    .set({ ...withErrors(current, added, now.toISOString()), updated_at: now.toISOString() })
    .where('id', '=', id)
    .execute();
}

/** Records progress (call it inside the batch's transaction, so progress and data move together). */
export async function recordJobProgress(db: Executor, id: string, owner: string, p: ProgressPatch, now: Date = new Date()): Promise<boolean> {
  const res = await db
    .updateTable('jobs')
    .set({
      items_processed: p.itemsProcessed,
      ...(p.totalItems !== undefined ? { total_items: p.totalItems } : {}),
      items_added: p.itemsAdded,
      items_updated: p.itemsUpdated,
      items_skipped: p.itemsSkipped,
      items_filtered: p.itemsFiltered,
      ...(p.sources ? { progress_json: JSON.stringify(p.sources) } : {}),
      ...(p.cursor !== undefined ? { cursor_json: p.cursor === null ? null : JSON.stringify(p.cursor) } : {}),
      updated_at: now.toISOString(),
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Live counters of a running attempt: items read and the source's total (when it said), and its live state. */
export interface LivePatch {
  itemsRead: number;
  /** Undefined leaves the stored total as it is. */
  totalItems?: number;
  live: JobLive;
}

/**
 * Records the live counters (outside any batch transaction, every second or so). Only the
 * attempt holding the lease writes; false when the job is no longer its own. The stored counts
 * are not touched: they move with the data (recordJobProgress).
 */
export async function recordJobLive(db: Executor, id: string, owner: string, p: LivePatch): Promise<boolean> {
  const res = await db
    .updateTable('jobs')
    .set({
      items_read: p.itemsRead,
      ...(p.totalItems !== undefined ? { total_items: p.totalItems } : {}),
      live_json: JSON.stringify(p.live),
      updated_at: p.live.at,
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function jobEvents(db: Db, jobId: string): Promise<Array<{ at: string; type: string; data: Record<string, unknown> }>> {
  const rows = await db.selectFrom('job_events').select(['at', 'type', 'data_json']).where('job_id', '=', jobId).orderBy('id').execute();
  return rows.map((r) => ({ at: r.at, type: r.type, data: readJson(r.data_json, isRecord, 'job_events.data_json') }));
}

/** What the last completed job of a source measured (estimates). */
export interface CompletedJobFigures {
  itemsProcessed: number;
  startedAt: string;
  completedAt: string;
}

/** The last completed job of (workspace, source) that processed something, preferring `kind` when given. */
export async function lastCompletedJob(db: Db, workspaceId: string, source: string, kind?: JobKind): Promise<CompletedJobFigures | undefined> {
  const base = db
    .selectFrom('jobs')
    .select(['items_processed', 'started_at', 'completed_at'])
    .where('workspace_id', '=', workspaceId)
    .where('source', '=', source)
    .where('state', '=', 'completed')
    .where('items_processed', '>', 0)
    .where('started_at', 'is not', null)
    .where('completed_at', 'is not', null)
    .orderBy('completed_at', 'desc')
    .limit(1);
  const row = (kind ? await base.where('kind', '=', kind).executeTakeFirst() : undefined) ?? (await base.executeTakeFirst());
  if (!row?.started_at || !row.completed_at) return undefined;
  return { itemsProcessed: row.items_processed, startedAt: row.started_at, completedAt: row.completed_at };
}

/**
 * How long the workspace's last measured health rebuild took per client (ms), from the newest
 * completed jobs that kept one in their live state; undefined before any did.
 */
export async function lastRebuildMsPerClient(db: Db, workspaceId: string): Promise<number | undefined> {
  const rows = await db
    .selectFrom('jobs')
    .select('live_json')
    .where('workspace_id', '=', workspaceId)
    .where('state', '=', 'completed')
    .where('live_json', 'is not', null)
    .orderBy('completed_at', 'desc')
    .limit(10)
    .execute();
  for (const r of rows) {
    const live = r.live_json ? readJson(r.live_json, isJobLive, 'jobs.live_json') : null;
    const b = live?.rebuild;
    if (b?.ms !== undefined && b.clients > 0) return b.ms / b.clients;
  }
  return undefined;
}

/** When the newest job of this kind and source was queued (the scheduler's "last attempt"). */
export async function lastJobQueuedAt(db: Db, workspaceId: string, source: string, kind: JobKind): Promise<string | undefined> {
  const row = await db
    .selectFrom('jobs')
    .select('created_at')
    .where('workspace_id', '=', workspaceId)
    .where('source', '=', source)
    .where('kind', '=', kind)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.created_at;
}

/** Ids of the workspace's jobs that ended before `horizon` (ISO 8601), as a sub-query. */
export function endedJobsBefore(db: Executor, workspaceId: string, horizon: string) {
  return db
    .selectFrom('jobs')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('state', 'in', [...FINAL_STATES])
    .where('completed_at', '<', horizon);
}

/** Deletes the workspace's jobs that ended before `horizon`, with their events (retention). */
export async function pruneJobs(trx: Transaction<Database>, workspaceId: string, horizon: string): Promise<{ jobs: number; jobEvents: number }> {
  const ev = await trx
    .deleteFrom('job_events')
    .where('job_id', 'in', endedJobsBefore(trx, workspaceId, horizon))
    .executeTakeFirst();
  const jobs = await trx
    .deleteFrom('jobs')
    .where('id', 'in', endedJobsBefore(trx, workspaceId, horizon))
    .executeTakeFirst();
  return { jobs: Number(jobs.numDeletedRows), jobEvents: Number(ev.numDeletedRows) };
}
