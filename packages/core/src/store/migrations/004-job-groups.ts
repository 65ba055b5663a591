import type { Kysely } from 'kysely';

// A run over several sources (POST /ingest/run) is one job per source — each holds its own
// (workspace, source) slot — tied together by a group id, which is the id the API reports.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('group_id', 'text').execute();
  await db.schema.createIndex('jobs_group').on('jobs').column('group_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('jobs_group').ifExists().execute();
  await db.schema.alterTable('jobs').dropColumn('group_id').execute();
}
