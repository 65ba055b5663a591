import type { Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

// Immutable once landed. Events out (docs/events.md):
// - events: the outbox. One row per event, written in the transaction of the change that causes it
//   (a client entering risk, a job finishing…), so a crash can neither lose one nor invent one.
//   `seq` orders them (a reader that finds a gap looks again for the missing seq for a while: a
//   concurrent transaction may commit an earlier seq later). `dedupe_key` makes "the same fact"
//   one event (a churn threat is announced once per message, however often history is rebuilt).
// - webhook_endpoints: where a workspace's events go (`standard`: signed Standard Webhooks; `slack`:
//   a Slack incoming webhook). Secrets are sealed like provider credentials; a rotated-out secret
//   stays valid until `previous_secret_expires_at`.
// - webhook_deliveries: one row per (endpoint, event), made with the event; the delivery queue.
//   Any runner claims a due row with a lease; a runner killed mid-delivery leaves a lease that
//   expires, and the next claim sends the same event id (the `webhook-id`) again.
// - clients.risk_state (1 at risk, 0 not, null never scored) and clients.announced_score (the score
//   last announced by client.score_changed): what the health write compares a new score with.
export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = dialectOf(db) === 'postgres';
  await db.schema
    .createTable('events')
    .addColumn('seq', pg ? 'bigserial' : 'integer', (c) => (pg ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('data_json', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_workspace_seq').on('events').columns(['workspace_id', 'seq']).execute();
  await db.schema.createIndex('events_dedupe').on('events').columns(['workspace_id', 'dedupe_key']).unique().execute();

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('events_json', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('disabled_reason', 'text')
    .addColumn('secret_enc', 'text', (c) => c.notNull())
    .addColumn('previous_secret_enc', 'text')
    .addColumn('previous_secret_expires_at', 'text')
    .addColumn('failing_since', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_workspace').on('webhook_endpoints').columns(['workspace_id']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('attempts_json', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('delivered_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('webhook_deliveries_endpoint_event', ['endpoint_id', 'event_id'])
    .execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['state', 'next_attempt_at']).execute();
  await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'created_at']).execute();

  await db.schema.alterTable('clients').addColumn('risk_state', 'integer').execute();
  await db.schema.alterTable('clients').addColumn('announced_score', 'double precision').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('clients').dropColumn('announced_score').execute();
  await db.schema.alterTable('clients').dropColumn('risk_state').execute();
  await db.schema.dropTable('webhook_deliveries').ifExists().execute();
  await db.schema.dropTable('webhook_endpoints').ifExists().execute();
  await db.schema.dropTable('events').ifExists().execute();
}
