import type { Kysely } from 'kysely';

// Maps provider object ids (a HubSpot company, an Intercom contact, …) to our clients and
// contacts, so a record that names its company only by id still resolves.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('external_refs')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('internal_id', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('external_refs_pk', ['workspace_id', 'provider', 'kind', 'external_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('external_refs').ifExists().execute();
}
