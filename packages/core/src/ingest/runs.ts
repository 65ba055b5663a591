/**
 * Ingestion runs (`ingestion_runs`): one row per read of a source, with its counters (written by
 * the writers in each batch's transaction) and its ending.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../store/database.js';
import type { Database } from '../store/schema.js';
import { newId } from '../util/ids.js';

/** Opens an ingestion run (status `running`, every count 0); returns its id. */
export async function startIngestionRun(db: Db, input: { workspaceId: string; source: string; jobId?: string | undefined }): Promise<string> {
  const id = newId('run');
  await db.insertInto('ingestion_runs').values({
    id, workspace_id: input.workspaceId, job_id: input.jobId ?? null, source: input.source, status: 'running',
    started_at: new Date().toISOString(), completed_at: null, filtered_json: '{}',
    items_processed: 0, items_added: 0, items_updated: 0, items_skipped: 0, items_filtered: 0, errors_count: 0,
    parse_errors: 0, charset_errors: 0, attachment_errors: 0, sentiment_errors: 0, clients_created: 0, contacts_created: 0,
  }).execute();
  return id;
}

/** Closes a run with its final status. */
export async function finishIngestionRun(db: Kysely<Database> | Transaction<Database>, runId: string, status: 'completed' | 'cancelled' | 'failed'): Promise<void> {
  await db.updateTable('ingestion_runs').set({ status, completed_at: new Date().toISOString() }).where('id', '=', runId).execute();
}

/**
 * Retention: deletes the workspace's ingestion errors recorded before `horizon`, and the runs
 * that ended before it with all their errors. Returns how many rows of each.
 */
export async function pruneIngestionRuns(trx: Transaction<Database>, workspaceId: string, horizon: string): Promise<{ ingestionErrors: number; ingestionRuns: number }> {
  const runsOfWs = trx.selectFrom('ingestion_runs').select('id').where('workspace_id', '=', workspaceId);
  const old = await trx.deleteFrom('ingestion_errors').where('run_id', 'in', runsOfWs).where('at', '<', horizon).executeTakeFirst();
  const endedRuns = trx.selectFrom('ingestion_runs').select('id').where('workspace_id', '=', workspaceId).where('status', '!=', 'running').where('completed_at', '<', horizon);
  // A run's errors go before the run, whatever their own time.
  const ofEnded = await trx.deleteFrom('ingestion_errors').where('run_id', 'in', endedRuns).executeTakeFirst();
  const runs = await trx.deleteFrom('ingestion_runs').where('workspace_id', '=', workspaceId).where('status', '!=', 'running').where('completed_at', '<', horizon).executeTakeFirst();
  return { ingestionErrors: Number(old.numDeletedRows) + Number(ofEnded.numDeletedRows), ingestionRuns: Number(runs.numDeletedRows) };
}
