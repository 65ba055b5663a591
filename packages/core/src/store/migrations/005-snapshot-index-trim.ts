import type { Kysely } from 'kysely';

// Immutable once landed. health_snapshots_workspace_date (workspace_id, date) is a prefix of
// health_snapshots_ws_date_cover (workspace_id, date, client_id, score) from 003, so every query
// it served is served by the cover index; dropping it saves one index write per snapshot, which
// a full history rebuild (one snapshot per client per day) pays millions of times.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('health_snapshots_workspace_date').ifExists().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('health_snapshots_workspace_date').on('health_snapshots').columns(['workspace_id', 'date']).execute();
}
