import type { Kysely } from 'kysely';

// Immutable once landed. Who becomes a client (docs/client-discovery.md):
// - clients.status: `active` (a scored client), `suggested` (a domain our mail names that did not
//   qualify: co-recipient only, copied us, mass mail, role sender, or the workspace's policy) or
//   `ignored` (a suggestion the team turned down). Every row that exists before this migration
//   is a client the team already sees: it stays `active`, so no row is lost or hidden.
// - clients.discovery: why the row exists or was suggested (`wrote_to`, `direct`, `cc_only`,
//   `co_recipient`, `mass_mail`, `role_sender`, `policy`, `crm`, `manual`); null before this.
// - interactions.role and .topic: the part the client's domain plays in the message (`wrote_to`,
//   `direct`, `cc_only`, `mass_mail`, `role_sender`, `co_recipient`) and what the message is about
//   (`work`, `personal`, `unclear`): the evidence a suggested client is judged on. Null before
//   this migration and for CRM and support records.
// - filtered_mail: one row per message the filter set aside (bulk, list, auto-reply, bounce,
//   no-reply, calendar…) with the evidence that showed it; such mail is counted, never a client's
//   voice, and this keeps what each message was judged on.
// - ingestion_runs.skipped_json: `{reason: count}` of the run's skipped messages (duplicate,
//   internal, no_client, and `suggested`: stored, but only for suggested clients), as
//   filtered_json is for the filter; '{}' for runs before this migration.
// - interactions.addressed: 1 when the message was written to our people directly (one of them
//   in To, person to person), 0 when we were only copied or were one of many recipients. Only
//   addressed mail can wait for our reply. Rows stored before this hold 1 (as they were read).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('clients')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .execute();
  await db.schema.alterTable('clients').addColumn('discovery', 'text').execute();
  await db.schema
    .alterTable('interactions')
    .addColumn('addressed', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('interactions').addColumn('role', 'text').execute();
  await db.schema.alterTable('interactions').addColumn('topic', 'text').execute();
  await db.schema
    .alterTable('ingestion_runs')
    .addColumn('skipped_json', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema
    .createTable('filtered_mail')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text')
    .addColumn('sender', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('evidence', 'text', (c) => c.notNull())
    .addColumn('location', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('filtered_mail_pk', ['workspace_id', 'message_id'])
    .execute();
  await db.schema.createIndex('clients_workspace_status').on('clients').columns(['workspace_id', 'status']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('clients_workspace_status').ifExists().execute();
  await db.schema.dropTable('filtered_mail').ifExists().execute();
  await db.schema.alterTable('ingestion_runs').dropColumn('skipped_json').execute();
  await db.schema.alterTable('interactions').dropColumn('topic').execute();
  await db.schema.alterTable('interactions').dropColumn('role').execute();
  await db.schema.alterTable('interactions').dropColumn('addressed').execute();
  await db.schema.alterTable('clients').dropColumn('discovery').execute();
  await db.schema.alterTable('clients').dropColumn('status').execute();
}
