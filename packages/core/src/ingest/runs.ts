/**
 * Ingestion runs (`ingestion_runs`): one row per read of a source, with its counters (written by
 * the writers in each batch's transaction) and its ending.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../store/database.js';
import type { Database } from '../store/schema.js';
import { newId } from '../util/ids.js';
import type { RunCounts } from './writer.js';

/** Opens an ingestion run (status `running`, every count 0); returns its id. */
export async function startIngestionRun(db: Db, input: { workspaceId: string; source: string; jobId?: string | undefined }): Promise<string> {
  const id = newId('run');
  await db
    .insertInto('ingestion_runs')
    .values({
      id,
      workspace_id: input.workspaceId,
      job_id: input.jobId ?? null,
      source: input.source,
      status: 'running',
      started_at: new Date().toISOString(),
      completed_at: null,
      filtered_json: '{}',
      skipped_json: '{}',
      items_processed: 0,
      items_added: 0,
      items_updated: 0,
      items_skipped: 0,
      items_filtered: 0,
      errors_count: 0,
      parse_errors: 0,
      charset_errors: 0,
      attachment_errors: 0,
      sentiment_errors: 0,
      clients_created: 0,
      contacts_created: 0,
    })
    .execute();
  return id;
}

type Executor = Kysely<Database> | Transaction<Database>;

/** A run's counters so far (call it in the batch's transaction, so they move with the data). */
export async function recordRunCounts(db: Executor, runId: string, c: Readonly<RunCounts>): Promise<void> {
  await db
    .updateTable('ingestion_runs')
    .set({
      items_processed: c.processed,
      items_added: c.added,
      items_updated: c.updated,
      items_skipped: c.skipped,
      items_filtered: c.filtered,
      errors_count: c.errors,
      parse_errors: c.problems.parse,
      charset_errors: c.problems.charset,
      attachment_errors: c.problems.attachment,
      sentiment_errors: c.problems.sentiment,
      filtered_json: JSON.stringify(c.filteredBy),
      skipped_json: JSON.stringify(c.skippedBy),
      clients_created: c.clientsCreated,
      contacts_created: c.contactsCreated,
    })
    .where('id', '=', runId)
    .execute();
}

/** Messages of a run that could not be processed, with why and where. */
export async function recordIngestionErrors(
  db: Executor,
  runId: string,
  errors: ReadonlyArray<{ kind: string; reason: string; location: string }>,
  now: Date,
): Promise<void> {
  if (!errors.length) return;
  const at = now.toISOString();
  // NUL never reaches the store (PostgreSQL refuses it in text): a hostile message's reason may quote one.
  await db
    .insertInto('ingestion_errors')
    .values(
      errors.map((e) => ({ run_id: runId, at, kind: e.kind, reason: e.reason.replace(/\0/g, '').slice(0, 1000), location: e.location.replace(/\0/g, '') })),
    )
    .execute();
}

/** Closes a run with its final status. */
export async function finishIngestionRun(db: Executor, runId: string, status: 'completed' | 'cancelled' | 'failed'): Promise<void> {
  await db.updateTable('ingestion_runs').set({ status, completed_at: new Date().toISOString() }).where('id', '=', runId).execute();
}

/**
 * Retention: deletes the workspace's ingestion errors recorded before `horizon`, and the runs
 * that ended before it with all their errors. Returns how many rows of each.
 */
export async function pruneIngestionRuns(
  trx: Transaction<Database>,
  workspaceId: string,
  horizon: string,
): Promise<{ ingestionErrors: number; ingestionRuns: number }> {
  const runsOfWs = trx.selectFrom('ingestion_runs').select('id').where('workspace_id', '=', workspaceId);
  const old = await trx.deleteFrom('ingestion_errors').where('run_id', 'in', runsOfWs).where('at', '<', horizon).executeTakeFirst();
  const endedRuns = trx
    .selectFrom('ingestion_runs')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('status', '!=', 'running')
    .where('completed_at', '<', horizon);
  // A run's errors go before the run, whatever their own time.
  const ofEnded = await trx.deleteFrom('ingestion_errors').where('run_id', 'in', endedRuns).executeTakeFirst();
  // The filter's per-message evidence goes with the runs of its time.
  await trx.deleteFrom('filtered_mail').where('workspace_id', '=', workspaceId).where('created_at', '<', horizon).execute();
  const runs = await trx
    .deleteFrom('ingestion_runs')
    .where('workspace_id', '=', workspaceId)
    .where('status', '!=', 'running')
    .where('completed_at', '<', horizon)
    .executeTakeFirst();
  return { ingestionErrors: Number(old.numDeletedRows) + Number(ofEnded.numDeletedRows), ingestionRuns: Number(runs.numDeletedRows) };
}
