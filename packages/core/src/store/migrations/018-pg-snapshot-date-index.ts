import type { Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

// Immutable once landed. PostgreSQL only: health_snapshots_date becomes (date) alone.
// - On (date, client_id, score) it was 94 B a client-day of the 20k mailbox's history (rows are
//   written client by client, so the index filled in date order splits its pages half empty),
//   more than the rows' own key. PostgreSQL's B-tree keeps one key for all the rows of a date
//   (deduplication): 7 B a client-day. A day's query (the summary, the deltas) reads each row of
//   the day from the table instead of the index: 9 ms for 10,000 clients, cached.
// - SQLite keeps the covering index: it has no deduplication, and its day queries read the index only.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await db.schema.dropIndex('health_snapshots_date').ifExists().execute();
  await db.schema.createIndex('health_snapshots_date').on('health_snapshots').column('date').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await db.schema.dropIndex('health_snapshots_date').ifExists().execute();
  await db.schema.createIndex('health_snapshots_date').on('health_snapshots').columns(['date', 'client_id', 'score']).execute();
}
