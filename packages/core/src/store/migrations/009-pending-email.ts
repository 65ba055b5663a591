import type { Kysely } from 'kysely';

// Immutable once landed. A change of a user's e-mail address waits for confirmation: the new
// address, the SHA-256 of the single-use token sent to it, and when that token expires. `email`
// keeps the confirmed address (where alerts and digests go) until the token comes back.
const COLUMNS = ['pending_email', 'pending_email_token_hash', 'pending_email_expires_at'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one at a time.
  for (const c of COLUMNS) await db.schema.alterTable('users').addColumn(c, 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const c of [...COLUMNS].reverse()) await db.schema.alterTable('users').dropColumn(c).execute();
}
