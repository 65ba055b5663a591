import { sql, type Kysely } from 'kysely';

// Immutable once landed. Health that is out of date (docs/health-model.md#rebuilds-that-did-not-finish):
// - clients.health_stale_from: the earliest UTC day (YYYY-MM-DD) whose snapshots no longer match
//   the client's stored interactions; null when its history is up to date. Set in the transaction
//   that stores its interactions, cleared in the one that writes its rebuilt snapshots from that
//   day on: a rebuild that did not finish (a full disk, a crash, a lost database) leaves it set,
//   and the next run or the runner redoes exactly those clients from that day.
// - clients.health_stale_at: when it was last set (wall clock, ISO): a writer still storing mail
//   for the workspace keeps it recent, so the runner leaves that workspace to the writer's own rebuild.
// - clients_health_stale: the stale clients of a workspace (a partial index: most clients are not).
// Rows that exist before this migration are taken as up to date (their last rebuild is unknown).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('clients').addColumn('health_stale_from', 'text').execute();
  await db.schema.alterTable('clients').addColumn('health_stale_at', 'text').execute();
  await db.schema
    .createIndex('clients_health_stale')
    .on('clients')
    .columns(['workspace_id', 'health_stale_from'])
    .where(sql.ref('health_stale_from'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('clients_health_stale').ifExists().execute();
  await db.schema.alterTable('clients').dropColumn('health_stale_at').execute();
  await db.schema.alterTable('clients').dropColumn('health_stale_from').execute();
}
