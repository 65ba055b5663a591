/**
 * What each job kind does, as JobWorker handlers over an Engine:
 * - `sync`     (source = provider): params { mode: 'quick' | 'full' }.
 * - `backfill` (source = provider): params { since, until?, dataTypes? } — a windowed read of
 *   [since, until] with its own cursor, so it resumes after a crash without moving the sync cursor.
 * - `ingest`   (source = 'google'): the large mailbox ingestion of `/ingest/v2`; params
 *   { sinceDays, maxEmails, batchSize, sessionId } — batches of batchSize, progress in the session.
 * Progress is recorded inside every batch's transaction (it moves with the data); the checkpoint
 * is the source cursor saved in that same transaction.
 */
import type { Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import { ChsError, isChsError } from '../errors.js';
import { isProvider, type Provider } from '../connectors/types.js';
import { recordJobProgress, type Job, type SourceProgress } from '../jobs/repository.js';
import type { JobHandler, JobOutcome } from '../jobs/worker.js';
import type { JobKind } from '../jobs/states.js';
import type { RunCounts } from '../ingest/writer.js';
import type { IngestProgress } from '../ingest/ingest.js';
import type { Engine } from './engine.js';

function providerOf(job: Job): Provider {
  if (!isProvider(job.source)) throw new ChsError('INVALID_INPUT', `job ${job.id} has no provider source (${job.source})`);
  return job.source;
}

/** Session stats of a large ingestion, kept in ingestion_sessions.stats_json. */
export interface IngestionSessionStats {
  emailsProcessed: number;
  totalEmails: number;
  batchesCompleted: number;
  totalBatches: number;
  clientsIdentified: number;
  contactsCreated: number;
  interactionsCreated: number;
  errorsCount: number;
}

export function createJobHandlers(engine: Engine): Record<JobKind, JobHandler> {
  const db = engine.store.db;

  const run = async (job: Job, signal: AbortSignal, owner: string, opts: Omit<Parameters<Engine['sync']>[0], 'workspaceId' | 'provider' | 'jobId' | 'signal' | 'checkpoint' | 'onProgress'>, onBatch?: (trx: Transaction<Database>, c: Readonly<RunCounts>, total: number | undefined) => Promise<void>): Promise<JobOutcome> => {
    const provider = providerOf(job);
    let total: number | undefined = job.totalItems ?? undefined;
    let last: IngestProgress | undefined;
    const sources = (c: Readonly<RunCounts>, status: SourceProgress['status']): Record<string, SourceProgress> => ({
      [provider]: {
        status,
        itemsProcessed: c.processed,
        ...(total !== undefined ? { totalItems: total, progress: total > 0 ? Math.min(100, Math.round((c.processed / total) * 1000) / 10) : 100 } : {}),
        added: c.added, updated: c.updated, skipped: c.skipped, filtered: c.filtered,
      },
    });
    try {
      const summary = await engine.sync({
        ...opts,
        workspaceId: job.workspaceId,
        provider,
        jobId: job.id,
        signal,
        onProgress: (p) => { last = p; if (p.total !== undefined) total = p.total; },
        checkpoint: async (trx, c) => {
          await recordJobProgress(trx, job.id, owner, {
            itemsProcessed: c.processed, itemsAdded: c.added, itemsUpdated: c.updated, itemsSkipped: c.skipped, itemsFiltered: c.filtered,
            totalItems: total ?? null, sources: sources(c, 'running'),
          });
          await onBatch?.(trx, c, total);
        },
      });
      if (summary.status === 'cancelled') return { outcome: 'released' };
      const done: RunCounts = {
        processed: summary.itemsProcessed, added: summary.itemsAdded, updated: summary.itemsUpdated, skipped: summary.itemsSkipped,
        filtered: summary.itemsFiltered, errors: summary.errorsCount, skippedBy: { duplicate: 0, internal: 0, no_client: 0 }, filteredBy: {},
        problems: { parse: 0, charset: 0, attachment: 0, sentiment: 0 }, clientsCreated: summary.clientsCreated, contactsCreated: summary.contactsCreated, interactionsCreated: 0,
      };
      total = Math.max(total ?? 0, summary.itemsProcessed);
      await db.transaction().execute(async (trx) => {
        await recordJobProgress(trx, job.id, owner, {
          itemsProcessed: done.processed, itemsAdded: done.added, itemsUpdated: done.updated, itemsSkipped: done.skipped, itemsFiltered: done.filtered,
          totalItems: total ?? null, sources: { [provider]: { ...sources(done, 'completed')[provider]!, lastSyncAt: new Date().toISOString() } },
        });
        // Messages the provider listed but that could not be read: the source is not healthy.
        if (summary.unreconciled.length || summary.errorsCount) {
          const current = await trx.selectFrom('jobs').select(['errors_json', 'errors_count']).where('id', '=', job.id).executeTakeFirstOrThrow();
          const errors = JSON.parse(current.errors_json) as unknown[];
          const at = new Date().toISOString();
          if (summary.unreconciled.length) errors.push({ message: `${summary.unreconciled.length} item(s) listed by ${provider} could not be read: ${summary.unreconciled.slice(0, 5).map((u) => `${u.providerId} (${u.reason})`).join('; ')}`, count: summary.unreconciled.length, severity: 'error', recoverable: true, at });
          if (summary.errorsCount) errors.push({ message: `${summary.errorsCount} message(s) could not be parsed and were skipped`, count: summary.errorsCount, severity: 'warning', recoverable: false, at });
          await trx.updateTable('jobs').set({ errors_json: JSON.stringify(errors), errors_count: current.errors_count + summary.unreconciled.length + summary.errorsCount }).where('id', '=', job.id).execute();
        }
        if (summary.unreconciled.length) {
          await trx.updateTable('integrations').set({ last_error: `${summary.unreconciled.length} unreconciled item(s) in the last sync` }).where('workspace_id', '=', job.workspaceId).where('provider', '=', provider).execute();
        }
        await onBatch?.(trx, done, total);
      });
      void last;
      return { outcome: 'completed' };
    } catch (err) {
      if (isChsError(err, 'PROVIDER_RATE_LIMITED')) {
        const resumeAt = typeof err.details?.resumeAt === 'string' ? new Date(err.details.resumeAt) : new Date(Date.now() + 3_600_000);
        return { outcome: 'parked', until: resumeAt, reason: err.message };
      }
      if (signal.aborted) return { outcome: 'released' };
      throw err;
    }
  };

  return {
    sync: async (job, ctx) => run(job, ctx.signal, ctx.owner, { mode: job.params.mode === 'full' ? 'full' : 'quick' }),
    backfill: async (job, ctx) => {
      const since = new Date(String(job.params.since));
      const until = job.params.until ? new Date(String(job.params.until)) : undefined;
      return run(job, ctx.signal, ctx.owner, { mode: 'full', since, ...(until ? { until } : {}), cursorKey: `${job.source}:backfill:${job.id}`, dropCursorOnComplete: true });
    },
    ingest: async (job, ctx) => {
      const sessionId = String(job.params.sessionId);
      const sinceDays = Number(job.params.sinceDays);
      const maxEmails = Number(job.params.maxEmails);
      const batchSize = Number(job.params.batchSize);
      const since = new Date(engine.clock().getTime() - sinceDays * 86_400_000);
      let batches = 0;
      await db.updateTable('ingestion_sessions').set({ status: 'processing', updated_at: new Date().toISOString() }).where('id', '=', sessionId).execute();
      const outcome = await run(job, ctx.signal, ctx.owner, {
        mode: 'full', since, maxItems: maxEmails, batchSize, cursorKey: `google:v2:${sessionId}`, dropCursorOnComplete: true,
      }, async (trx, c, total) => {
        batches += 1;
        const totalEmails = Math.min(maxEmails, Math.max(total ?? maxEmails, c.processed));
        const stats: IngestionSessionStats = {
          emailsProcessed: c.processed, totalEmails, batchesCompleted: Math.ceil(c.processed / batchSize), totalBatches: Math.ceil(totalEmails / batchSize),
          clientsIdentified: c.clientsCreated, contactsCreated: c.contactsCreated, interactionsCreated: c.added, errorsCount: c.errors,
        };
        await trx.updateTable('ingestion_sessions').set({ stats_json: JSON.stringify(stats), updated_at: new Date().toISOString() }).where('id', '=', sessionId).execute();
      });
      void batches;
      const final = outcome.outcome === 'completed' ? 'completed' : outcome.outcome === 'failed' ? 'failed' : 'processing';
      await db.updateTable('ingestion_sessions').set({ status: final, updated_at: new Date().toISOString(), ...(final !== 'processing' ? { completed_at: new Date().toISOString() } : {}) }).where('id', '=', sessionId).execute();
      return outcome;
    },
  };
}
