import { sql, type Kysely } from 'kysely';

// Immutable once landed. health_models: the health models learned from a workspace's renewal
// outcomes (metrics/learn.ts fits them, health/models.ts is the only writer), numbered per
// workspace from 1. `status`: offered (it beat the hand-written model on the later renewals and
// waits for a user's decision), rejected (it did not: kept for the record), active (the one that
// scores; at most one per workspace), retired (was active, replaced or reverted). `previous_version`:
// the model that was active when this one was applied (null: the hand-written one), for the
// one-step revert. `fit_json`: its weights, coefficients, figures and calibration. A partial
// unique index keeps two applies at once from leaving two models active.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('health_models')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('fit_json', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('applied_at', 'text')
    .addColumn('previous_version', 'integer')
    .addPrimaryKeyConstraint('health_models_pk', ['workspace_id', 'version'])
    .execute();
  await db.schema
    .createIndex('health_models_one_active')
    .unique()
    .on('health_models')
    .column('workspace_id')
    .where(sql<boolean>`status = 'active'`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('health_models').execute();
}
