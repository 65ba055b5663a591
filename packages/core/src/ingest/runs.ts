import type { Db } from '../store/database.js';
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
export async function finishIngestionRun(db: Db, runId: string, status: 'completed' | 'cancelled' | 'failed'): Promise<void> {
  await db.updateTable('ingestion_runs').set({ status, completed_at: new Date().toISOString() }).where('id', '=', runId).execute();
}
