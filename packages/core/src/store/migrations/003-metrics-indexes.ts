import type { Kysely } from 'kysely';

// Immutable once landed. Covering indexes for the read API, so the hot metric queries are
// index-only: summary's snapshot joins, health trends, and window counts over interactions.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('health_snapshots_client_date_score').on('health_snapshots').columns(['client_id', 'date', 'score']).execute();
  await db.schema.createIndex('health_snapshots_ws_date_cover').on('health_snapshots').columns(['workspace_id', 'date', 'client_id', 'score']).execute();
  await db.schema
    .createIndex('interactions_ws_time_cover')
    .on('interactions')
    .columns(['workspace_id', 'occurred_at', 'client_id', 'type', 'direction', 'thread_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('interactions_ws_time_cover').execute();
  await db.schema.dropIndex('health_snapshots_ws_date_cover').execute();
  await db.schema.dropIndex('health_snapshots_client_date_score').execute();
}
