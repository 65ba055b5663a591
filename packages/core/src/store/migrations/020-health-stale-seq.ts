import type { Kysely } from 'kysely';

// Immutable once landed. clients.health_stale_seq: how many times the client was marked stale, null
// for never (health/stale.ts markHealthStale adds one in the transaction that stores its
// interactions; null lets every existing insert leave it out). A
// rebuild reads it with the client and its write clears the mark only if it is unchanged: a
// writer that marked the client meanwhile (mail the rebuild may not have read) keeps it stale,
// even when its day is not earlier than the one the rebuild started at.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('clients').addColumn('health_stale_seq', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('clients').dropColumn('health_stale_seq').execute();
}
