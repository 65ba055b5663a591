import type { Kysely } from 'kysely';

// Immutable once landed. interactions_workspace_time (workspace_id, occurred_at) from 001 is a
// prefix of interactions_ws_time_cover (workspace_id, occurred_at, client_id, type, direction,
// thread_id) from 003, so every query it served is served by the cover index; dropping it saves
// one index write per stored interaction (as 005 did for health snapshots).

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('interactions_workspace_time').ifExists().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('interactions_workspace_time').on('interactions').columns(['workspace_id', 'occurred_at']).execute();
}
