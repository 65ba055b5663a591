/**
 * What each job kind does, as JobWorker handlers over an Engine (docs/jobs.md):
 * - `sync`     (source = provider): params { mode: 'quick' | 'full' }.
 * - `backfill` (source = provider): params { since, until?, dataTypes? } — a windowed read with
 *   its own cursor, so it resumes without moving the sync cursor.
 * - `ingest`   (source = 'google'): the large ingestion of `/ingest/v2`; params
 *   { sessionId, sinceDays, maxEmails, batchSize }, stats in the session.
 *
 * Every kind has one lifecycle, spread over as many attempts as it takes (a crash, a lost lease,
 * a shutdown, a parked rate limit):
 *
 *   read     the provider from the saved cursor; each batch's transaction stores the data, the
 *            cursor and the job's checkpoint (totals of every attempt, clients touched)
 *   finish   one transaction: the final totals, the read's errors, phase `rebuild`
 *   rebuild  the health history of every client any attempt touched, and of every client of the
 *            workspace left stale by an earlier rebuild that did not finish (health/stale.ts);
 *            a rebuild that fails fails the job
 *
 * An attempt starts from the checkpoint the previous one committed, so the job's counts are the
 * totals of all its attempts and equal what the store holds.
 */
import type { Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import { ChsError, isChsError, toError } from '../errors.js';
import { isProvider, type Provider } from '../connectors/types.js';
import { recordIntegrationError } from '../integrations/repository.js';
import type { RunCounts } from '../ingest/writer.js';
import { appendJobErrors, getJob, recordJobProgress, type Job, type JobError, type SourceProgress } from '../jobs/repository.js';
import { finishIngestionSession, markSessionProcessing, recordSessionStats, type IngestionSessionStats } from '../jobs/sessions.js';
import type { JobContext, JobHandler, JobOutcome } from '../jobs/worker.js';
import type { JobKind } from '../jobs/states.js';
import { LiveProgress } from '../jobs/live.js';
import { dropSyncCursors, type ProviderSyncInput, type ProviderSyncSummary } from '../sync/provider-sync.js';
import { isRecord, recordOf, shape } from '../util/json.js';
import { round1 } from '../util/numbers.js';
import { rebuildFailed, type Engine } from './engine.js';
import { DAY_MS } from '../util/time.js';

/** Counts of a job over all its attempts (`errors`: items that could not be parsed, skipped and counted). */
type Totals = Pick<RunCounts, 'processed' | 'added' | 'updated' | 'skipped' | 'filtered' | 'errors' | 'clientsCreated' | 'contactsCreated'>;

/** What a job has committed so far, kept in `jobs.cursor_json` and moved with every batch. */
interface JobCheckpoint {
  phase: 'read' | 'rebuild';
  /** Batches committed by every attempt. */
  batches: number;
  totals: Totals;
  /** Clients whose interactions changed → earliest day touched (what the rebuild covers). */
  touched: Record<string, string>;
}

const isTotals = shape<Totals>({
  processed: 'number',
  added: 'number',
  updated: 'number',
  skipped: 'number',
  filtered: 'number',
  errors: 'number',
  clientsCreated: 'number',
  contactsCreated: 'number',
});
const isDays = recordOf((v): v is string => typeof v === 'string');

function isCheckpoint(v: unknown): v is JobCheckpoint {
  return isRecord(v) && (v.phase === 'read' || v.phase === 'rebuild') && typeof v.batches === 'number' && isTotals(v.totals) && isDays(v.touched);
}

/** The job's checkpoint; a job without one (never checkpointed) starts from its counters. */
function loadCheckpoint(job: Job): JobCheckpoint {
  if (isCheckpoint(job.cursor)) return job.cursor;
  return {
    phase: 'read',
    batches: 0,
    touched: {},
    totals: {
      processed: job.itemsProcessed,
      added: job.itemsAdded,
      updated: job.itemsUpdated,
      skipped: job.itemsSkipped,
      filtered: job.itemsFiltered,
      errors: 0,
      clientsCreated: 0,
      contactsCreated: 0,
    },
  };
}

/** The checkpoint before this attempt plus what this attempt has committed so far. */
function advance(before: JobCheckpoint, attempt: Readonly<Totals>, touched: ReadonlyMap<string, string>, batches: number): JobCheckpoint {
  const totals = { ...before.totals };
  for (const k of Object.keys(totals) as Array<keyof Totals>) totals[k] += attempt[k];
  const days = { ...before.touched };
  for (const [clientId, day] of touched) if (!days[clientId] || day < days[clientId]) days[clientId] = day;
  return { phase: 'read', batches: before.batches + batches, totals, touched: days };
}

function attemptCounts(s: ProviderSyncSummary): Totals {
  return {
    processed: s.itemsProcessed,
    added: s.itemsAdded,
    updated: s.itemsUpdated,
    skipped: s.itemsSkipped,
    filtered: s.itemsFiltered,
    errors: s.errorsCount,
    clientsCreated: s.clientsCreated,
    contactsCreated: s.contactsCreated,
  };
}

function providerOf(job: Job): Provider {
  if (!isProvider(job.source)) throw new ChsError('INVALID_INPUT', `job ${job.id} has no provider source (${job.source})`);
  return job.source;
}

function dateParam(job: Job, name: string): Date | undefined {
  const v = job.params[name];
  if (v === undefined || v === null) return undefined;
  const d = typeof v === 'string' || typeof v === 'number' ? new Date(v) : new Date(Number.NaN);
  if (Number.isNaN(d.getTime())) throw new ChsError('INVALID_INPUT', `job ${job.id}: params.${name} is not a date (${JSON.stringify(v)})`);
  return d;
}

function numberParam(job: Job, name: string): number {
  const v = job.params[name];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ChsError('INVALID_INPUT', `job ${job.id}: params.${name} is not a number`);
  return v;
}

/** What to read, and where its cursor lives. */
interface ReadPlan extends Pick<ProviderSyncInput, 'mode' | 'since' | 'until' | 'maxItems' | 'batchSize' | 'cursorKey'> {
  /** The read is a one-off (its own cursor key): forget the cursor once it completed. */
  oneOff?: boolean;
}

/** Runs in the transaction of every batch (and of the finish), after the job's checkpoint. */
type BatchHook = (trx: Transaction<Database>, checkpoint: JobCheckpoint, total: number | undefined) => Promise<void>;

function sourceProgress(checkpoint: JobCheckpoint, total: number | undefined, status: SourceProgress['status']): SourceProgress {
  const t = checkpoint.totals;
  return {
    status,
    itemsProcessed: t.processed,
    ...(total !== undefined ? { totalItems: total, progress: total > 0 ? Math.min(100, round1((t.processed / total) * 100)) : 100 } : {}),
    added: t.added,
    updated: t.updated,
    skipped: t.skipped,
    filtered: t.filtered,
  };
}

/**
 * Records the checkpoint and the counters it implies, in `trx`. A job that is no longer this
 * worker's (swept, cancelled) refuses the write, which rolls the batch back: only the attempt
 * that holds the lease commits, so nothing is stored that its counts do not include.
 */
async function saveCheckpoint(
  trx: Transaction<Database>,
  job: Job,
  owner: string,
  checkpoint: JobCheckpoint,
  total: number | undefined,
  status: SourceProgress['status'],
): Promise<void> {
  const t = checkpoint.totals;
  const progress = sourceProgress(checkpoint, total, status);
  const ok = await recordJobProgress(trx, job.id, owner, {
    itemsProcessed: t.processed,
    itemsAdded: t.added,
    itemsUpdated: t.updated,
    itemsSkipped: t.skipped,
    itemsFiltered: t.filtered,
    // An unknown total leaves the one the live counters may have written.
    ...(total !== undefined ? { totalItems: total } : {}),
    sources: { [job.source]: status === 'completed' ? { ...progress, lastSyncAt: new Date().toISOString() } : progress },
    cursor: { ...checkpoint },
  });
  if (!ok) throw new ChsError('CONFLICT', `job ${job.id} is no longer leased by ${owner}; its batch is rolled back`);
}

/** The errors a finished read leaves on the job: items the provider listed but we could not read, messages we could not parse. */
function readErrors(provider: Provider, summary: ProviderSyncSummary | undefined, totals: Totals): Array<Omit<JobError, 'at'>> {
  const errors: Array<Omit<JobError, 'at'>> = [];
  const lost = summary?.unreconciled ?? [];
  if (lost.length) {
    const sample = lost
      .slice(0, 5)
      .map((u) => `${u.providerId} (${u.reason})`)
      .join('; ');
    errors.push({
      message: `${lost.length} item(s) listed by ${provider} could not be read: ${sample}`,
      count: lost.length,
      severity: 'error',
      recoverable: true,
    });
  }
  if (totals.errors)
    errors.push({ message: `${totals.errors} message(s) could not be parsed and were skipped`, count: totals.errors, severity: 'warning', recoverable: false });
  // A mailbox left out because its grant is dead (the others synced): reconnecting it recovers.
  for (const a of summary?.accounts ?? []) {
    if (a.status === 'needs_reauth')
      errors.push({
        message: `${provider} account ${a.account} needs to be connected again: ${a.error ?? 'its credentials were refused'}`,
        count: 1,
        severity: 'error',
        recoverable: true,
      });
  }
  return errors;
}

/** The read phase, from the checkpoint on; null when it stopped early (shutdown, cancel) and the job goes back to the queue. */
async function read(
  engine: Engine,
  job: Job,
  ctx: JobContext,
  plan: ReadPlan,
  before: JobCheckpoint,
  onBatch: BatchHook | undefined,
  live: LiveProgress,
): Promise<JobCheckpoint | null> {
  const provider = providerOf(job);
  let total = job.totalItems ?? undefined;
  // What was read so far, in the total's unit (messages; HubSpot and Intercom: search rows, while the
  // stored count also holds the companies an Intercom contact names): a total is never below it.
  let read = before.totals.processed;
  const known = () => (total === undefined ? undefined : Math.max(total, read));
  const left = plan.maxItems === undefined ? undefined : plan.maxItems - before.totals.processed;
  let summary: ProviderSyncSummary | undefined;
  let batches = 0;
  if (left === undefined || left > 0) {
    summary = await engine.readProvider({
      workspaceId: job.workspaceId,
      provider,
      jobId: job.id,
      signal: ctx.signal,
      // An attempt after committed batches continues from the cursor, whatever the job's mode.
      mode: before.batches > 0 ? 'quick' : plan.mode,
      ...(plan.since ? { since: plan.since } : {}),
      ...(plan.until ? { until: plan.until } : {}),
      ...(plan.batchSize !== undefined ? { batchSize: plan.batchSize } : {}),
      ...(plan.cursorKey ? { cursorKey: plan.cursorKey } : {}),
      ...(left !== undefined ? { maxItems: left } : {}),
      // The provider's own count, capped by the job's limit (not this attempt's remainder).
      onProgress: (p) => {
        if (p.providerTotal !== undefined) total = Math.max(total ?? 0, Math.min(p.providerTotal, plan.maxItems ?? Infinity));
        read = Math.max(read, before.totals.processed + p.read);
        live.update({ read, total, waiting: p.waiting });
      },
      checkpoint: async (trx, counts, _cursor, touched) => {
        const now = advance(before, counts, touched, ++batches);
        await saveCheckpoint(trx, job, ctx.owner, now, known(), 'running');
        await onBatch?.(trx, now, known());
        live.update({ read, clients: Object.keys(now.touched).length, stored: true });
      },
    });
    if (summary.status === 'cancelled') return null;
  }
  const counted = summary ? advance(before, attemptCounts(summary), summary.touched, batches) : before;
  const done: JobCheckpoint = { ...counted, phase: 'rebuild' };
  const finalTotal = Math.max(total ?? 0, done.totals.processed);
  await engine.store.db.transaction().execute(async (trx) => {
    await saveCheckpoint(trx, job, ctx.owner, done, finalTotal, 'completed');
    if (plan.oneOff && plan.cursorKey) await dropSyncCursors(trx, job.workspaceId, provider, plan.cursorKey);
    await appendJobErrors(trx, job.id, readErrors(provider, summary, done.totals));
    if (summary?.unreconciled.length)
      await recordIntegrationError(trx, job.workspaceId, provider, `${summary.unreconciled.length} unreconciled item(s) in the last sync`);
    await onBatch?.(trx, done, finalTotal);
  });
  return done;
}

/** The lifecycle of every kind: read (unless an earlier attempt finished it), then rebuild health. */
async function runProviderJob(engine: Engine, job: Job, ctx: JobContext, plan: ReadPlan, onBatch?: BatchHook): Promise<JobOutcome> {
  let checkpoint = loadCheckpoint(job);
  const live = new LiveProgress({
    db: engine.store.db,
    jobId: job.id,
    owner: ctx.owner,
    logger: engine.logger,
    readAtStart: checkpoint.totals.processed,
    total: job.totalItems ?? undefined,
    // HubSpot and Intercom are read in search rows, which the stored count need not equal.
    ...(job.source === 'google' ? {} : { readUnit: 'rows' as const }),
  });
  try {
    await live.start();
    if (checkpoint.phase === 'read') {
      const done = await read(engine, job, ctx, plan, checkpoint, onBatch, live);
      if (!done) return { outcome: 'released' };
      checkpoint = done;
    }
    const touched = new Map(Object.entries(checkpoint.touched));
    await live.rebuilding(touched.size);
    const rebuildStarted = performance.now();
    // A rebuild that fails fails the job (and its session): the clients it had not written stay
    // stale, and the next job of the workspace, or the scheduler, rebuilds them.
    await engine.rebuildHealth(job.workspaceId, touched).catch((err: unknown) => {
      throw rebuildFailed(err);
    });
    // Kept with the job: the next job's ETA prices its own rebuild at this rate.
    await live.rebuilt(performance.now() - rebuildStarted);
    return { outcome: 'completed' };
  } catch (err) {
    if (isChsError(err, 'PROVIDER_RATE_LIMITED')) {
      const resumeAt = typeof err.details?.resumeAt === 'string' ? new Date(err.details.resumeAt) : new Date(Date.now() + 3_600_000);
      return { outcome: 'parked', until: resumeAt, reason: err.message };
    }
    if (ctx.signal.aborted) return { outcome: 'released' };
    throw err;
  } finally {
    await live.stop();
  }
}

function sessionStats(checkpoint: JobCheckpoint, total: number | undefined, maxEmails: number, batchSize: number): IngestionSessionStats {
  const t = checkpoint.totals;
  const totalEmails = Math.min(maxEmails, Math.max(total ?? maxEmails, t.processed));
  return {
    emailsProcessed: t.processed,
    totalEmails,
    batchesCompleted: Math.ceil(t.processed / batchSize),
    totalBatches: Math.ceil(totalEmails / batchSize),
    clientsIdentified: t.clientsCreated,
    contactsCreated: t.contactsCreated,
    interactionsCreated: t.added,
    errorsCount: t.errors,
  };
}

/**
 * Ends the session the way its job attempt ended, whoever runs the worker: completed; failed (the
 * job failed, or was cancelled); otherwise (parked, released, or the job is another worker's
 * now) it stays `processing` for the next attempt.
 */
async function closeSession(
  engine: Engine,
  job: Job,
  ctx: JobContext,
  sessionId: string,
  outcome: JobOutcome | { outcome: 'threw'; error: string },
): Promise<void> {
  const db = engine.store.db;
  if (outcome.outcome === 'completed') return finishIngestionSession(db, sessionId, { status: 'completed' });
  const current = await getJob(db, job.id);
  if (current?.state === 'cancelled') return finishIngestionSession(db, sessionId, { status: 'failed', error: 'the ingestion was cancelled' });
  const ours = current?.state === 'running' && current.leaseOwner === ctx.owner;
  if (ours && (outcome.outcome === 'failed' || outcome.outcome === 'threw'))
    return finishIngestionSession(db, sessionId, { status: 'failed', error: outcome.error });
}

async function runIngestJob(engine: Engine, job: Job, ctx: JobContext): Promise<JobOutcome> {
  const sessionId = String(job.params.sessionId);
  const maxEmails = numberParam(job, 'maxEmails');
  const batchSize = numberParam(job, 'batchSize');
  const since = new Date(engine.clock().getTime() - numberParam(job, 'sinceDays') * DAY_MS);
  await markSessionProcessing(engine.store.db, sessionId);
  let ending: JobOutcome | { outcome: 'threw'; error: string } = { outcome: 'released' };
  try {
    ending = await runProviderJob(
      engine,
      job,
      ctx,
      { mode: 'full', since, maxItems: maxEmails, batchSize, cursorKey: `google:v2:${sessionId}`, oneOff: true },
      (trx, checkpoint, total) => recordSessionStats(trx, sessionId, sessionStats(checkpoint, total, maxEmails, batchSize)),
    );
    return ending;
  } catch (err) {
    ending = { outcome: 'threw', error: toError(err).message };
    throw err;
  } finally {
    await closeSession(engine, job, ctx, sessionId, ending).catch((err: unknown) =>
      engine.logger.error({ jobId: job.id, sessionId, err: toError(err).message }, 'could not close the ingestion session'),
    );
  }
}

export function createJobHandlers(engine: Engine): Record<JobKind, JobHandler> {
  return {
    sync: (job, ctx) => runProviderJob(engine, job, ctx, { mode: job.params.mode === 'full' ? 'full' : 'quick' }),
    backfill: (job, ctx) => {
      const since = dateParam(job, 'since');
      const until = dateParam(job, 'until');
      if (!since) throw new ChsError('INVALID_INPUT', `job ${job.id}: a backfill needs params.since`);
      return runProviderJob(engine, job, ctx, {
        mode: 'full',
        since,
        ...(until ? { until } : {}),
        cursorKey: `${job.source}:backfill:${job.id}`,
        oneOff: true,
      });
    },
    ingest: (job, ctx) => runIngestJob(engine, job, ctx),
  };
}
