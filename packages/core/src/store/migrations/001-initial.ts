import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

// Immutable once landed: change the schema with a new numbered migration.

export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = dialectOf(db) === 'postgres';
  const serial = pg ? 'serial' : 'integer';
  const real = 'double precision';

  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('billing_status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('workspace_domains')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('domain', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('workspace_domains_pk', ['workspace_id', 'domain'])
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('has_completed_onboarding', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_login_at', 'text')
    .addUniqueConstraint('users_workspace_email', ['workspace_id', 'email'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_preview', 'text', (c) => c.notNull())
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_workspace').on('api_keys').column('workspace_id').execute();

  await db.schema
    .createTable('settings')
    .addColumn('workspace_id', 'text', (c) => c.primaryKey().references('workspaces.id').onDelete('cascade'))
    .addColumn('data_json', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('blocklist')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('entry', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('blocklist_pk', ['workspace_id', 'entry'])
    .execute();

  await db.schema
    .createTable('clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_source', 'text', (c) => c.notNull())
    .addColumn('primary_domain', 'text', (c) => c.notNull())
    .addColumn('mrr', real)
    .addColumn('renewal_date', 'text')
    .addColumn('csm_owner', 'text')
    .addColumn('is_excluded', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('health_score', real)
    .addColumn('health_updated_at', 'text')
    .addColumn('last_interaction_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('clients_workspace').on('clients').columns(['workspace_id', 'is_excluded']).execute();
  await db.schema.createIndex('clients_renewal').on('clients').columns(['workspace_id', 'renewal_date']).execute();

  await db.schema
    .createTable('client_domains')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('client_domains_pk', ['workspace_id', 'domain'])
    .execute();
  await db.schema.createIndex('client_domains_client').on('client_domains').column('client_id').execute();

  await db.schema
    .createTable('contacts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.references('clients.id').onDelete('set null'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('contacts_client').on('contacts').columns(['workspace_id', 'client_id']).execute();

  await db.schema
    .createTable('contact_emails')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('contact_id', 'text', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('contact_emails_pk', ['workspace_id', 'email'])
    .execute();
  await db.schema.createIndex('contact_emails_contact').on('contact_emails').column('contact_id').execute();

  await db.schema
    .createTable('interactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('provider_id', 'text')
    .addColumn('thread_id', 'text')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('sentiment_label', 'text', (c) => c.notNull())
    .addColumn('sentiment_score', real, (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('from_email', 'text', (c) => c.notNull())
    .addColumn('to_emails', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('opened', 'integer')
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('interactions_dedupe', ['workspace_id', 'client_id', 'dedupe_key'])
    .execute();
  await db.schema.createIndex('interactions_client_time').on('interactions').columns(['client_id', 'occurred_at']).execute();
  await db.schema.createIndex('interactions_workspace_time').on('interactions').columns(['workspace_id', 'occurred_at']).execute();
  await db.schema.createIndex('interactions_thread').on('interactions').columns(['workspace_id', 'thread_id']).execute();

  await db.schema
    .createTable('health_snapshots')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('score', real, (c) => c.notNull())
    .addColumn('confidence', real, (c) => c.notNull())
    .addColumn('components_json', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('reason_text', 'text')
    .addColumn('evidence_json', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('health_snapshots_pk', ['client_id', 'date'])
    .execute();
  await db.schema.createIndex('health_snapshots_workspace_date').on('health_snapshots').columns(['workspace_id', 'date']).execute();

  await db.schema
    .createTable('integrations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('account_email', 'text')
    .addColumn('credentials_enc', 'text', (c) => c.notNull())
    .addColumn('scope', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('has_refresh', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('config_json', 'text')
    .addColumn('last_sync_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('integrations_workspace_provider', ['workspace_id', 'provider'])
    .execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('params_json', 'text', (c) => c.notNull())
    .addColumn('progress_json', 'text', (c) => c.notNull())
    .addColumn('items_processed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('total_items', 'integer')
    .addColumn('items_added', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('items_updated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('items_skipped', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('items_filtered', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('errors_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('errors_json', 'text', (c) => c.notNull())
    .addColumn('cursor_json', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('parked_until', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_workspace_created').on('jobs').columns(['workspace_id', 'created_at']).execute();
  await db.schema.createIndex('jobs_state_lease').on('jobs').columns(['state', 'lease_expires_at']).execute();
  // One active job per workspace and source, enforced by the database for every runner.
  await sql`create unique index jobs_one_active on jobs (workspace_id, source) where state in ('queued', 'running', 'parked')`.execute(db);

  await db.schema
    .createTable('job_events')
    .addColumn('id', serial, (c) => (pg ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data_json', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('job_events_job').on('job_events').columns(['job_id', 'id']).execute();

  await db.schema
    .createTable('ingestion_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('job_id', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addColumn('items_processed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('items_added', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('items_updated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('items_skipped', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('items_filtered', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('errors_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('parse_errors', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('charset_errors', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attachment_errors', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('sentiment_errors', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('filtered_json', 'text', (c) => c.notNull())
    .addColumn('clients_created', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('contacts_created', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('ingestion_runs_workspace').on('ingestion_runs').columns(['workspace_id', 'started_at']).execute();

  await db.schema
    .createTable('ingestion_errors')
    .addColumn('id', serial, (c) => (pg ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('run_id', 'text', (c) => c.notNull().references('ingestion_runs.id').onDelete('cascade'))
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('location', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ingestion_errors_run').on('ingestion_errors').column('run_id').execute();

  await db.schema
    .createTable('source_cursors')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('source_key', 'text', (c) => c.notNull())
    .addColumn('cursor_json', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('source_cursors_pk', ['workspace_id', 'source_key'])
    .execute();

  await db.schema
    .createTable('ingestion_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('job_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('config_json', 'text', (c) => c.notNull())
    .addColumn('stats_json', 'text', (c) => c.notNull())
    .addColumn('errors_json', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();

  await db.schema
    .createTable('notification_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('recipients', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('transport', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('notification_log_dedupe', ['workspace_id', 'dedupe_key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'notification_log',
    'ingestion_sessions',
    'source_cursors',
    'ingestion_errors',
    'ingestion_runs',
    'job_events',
    'jobs',
    'integrations',
    'health_snapshots',
    'interactions',
    'contact_emails',
    'contacts',
    'client_domains',
    'clients',
    'blocklist',
    'settings',
    'api_keys',
    'users',
    'workspace_domains',
    'workspaces',
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
