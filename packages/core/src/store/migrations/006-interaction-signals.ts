import type { Kysely } from 'kysely';

// Immutable once landed. What the client's own new text says beyond its tone, found when the
// message is scored (score/signals.ts) and kept per interaction so the health rebuild reads it
// from the row: a bit set, see SIGNAL_BITS in score/signals.ts (1 churn intent, 2 a follow-up /
// "still waiting", 4 asks for an answer). Rows stored before this migration hold 0 until they are
// ingested again (their content hash changes, so a re-ingest updates them).

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('interactions')
    .addColumn('signals', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('interactions').dropColumn('signals').execute();
}
