import type { Kysely } from 'kysely';

// Immutable once landed. client_outcomes: how a client's renewal ended, per client and day
// (clients/outcomes.ts, the only writer): renewed, churned or downgraded (with the MRR before and
// after), and where it was recorded (csv, api, hubspot). One per client and day: recording the same
// day again replaces it. The backtest reads a workspace's outcomes by date.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('client_outcomes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('mrr_before', 'double precision')
    .addColumn('mrr_after', 'double precision')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('client_outcomes_client_date', ['client_id', 'date'])
    .execute();
  await db.schema.createIndex('client_outcomes_workspace_date').on('client_outcomes').columns(['workspace_id', 'date']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('client_outcomes').execute();
}
