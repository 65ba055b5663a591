import type { Kysely } from 'kysely';

// Immutable once landed. A provider sign-in started over HTTP (POST /integrations/google/authorize)
// waits here for the browser to come back to the callback: the SHA-256 of the `state` it carries
// (the state itself is never stored), the workspace it is bound to, the PKCE verifier sealed with
// the secret key, the redirect URI the code will be exchanged with, when it expires, and when it
// was used (single use: a second callback with it is refused as a replay, not as an unknown state).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_states')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('verifier_enc', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('oauth_states_expires').on('oauth_states').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('oauth_states').execute();
}
