/**
 * Source cursors (`source_cursors`): where a source resumes, one row per (workspace, source key).
 * The only module that writes the table. A cursor is saved in the same transaction as the batch
 * it follows, so what is stored and where to resume never disagree.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import type { SourceCursor } from '../interfaces.js';
import { isRecord, readJson } from '../util/json.js';

type Executor = Kysely<Database> | Transaction<Database>;

/** The saved cursor of a source, or undefined when it has none (never read, or read to its end). */
export async function loadCursor(db: Executor, workspaceId: string, sourceKey: string): Promise<SourceCursor | undefined> {
  const row = await db
    .selectFrom('source_cursors')
    .select('cursor_json')
    .where('workspace_id', '=', workspaceId)
    .where('source_key', '=', sourceKey)
    .executeTakeFirst();
  return row ? readJson(row.cursor_json, isRecord, `source_cursors(${sourceKey}).cursor_json`) : undefined;
}

export async function saveCursor(db: Executor, workspaceId: string, sourceKey: string, cursor: SourceCursor, now: Date = new Date()): Promise<void> {
  const cursor_json = JSON.stringify(cursor);
  const updated_at = now.toISOString();
  await db
    .insertInto('source_cursors')
    .values({ workspace_id: workspaceId, source_key: sourceKey, cursor_json, updated_at })
    .onConflict((oc) => oc.columns(['workspace_id', 'source_key']).doUpdateSet({ cursor_json, updated_at }))
    .execute();
}

/** Forgets where a source was: its next read starts from the beginning. */
export async function dropCursor(db: Executor, workspaceId: string, sourceKey: string): Promise<void> {
  await db.deleteFrom('source_cursors').where('workspace_id', '=', workspaceId).where('source_key', '=', sourceKey).execute();
}
