import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

// Immutable once landed. health_snapshots.confidence may be null: a row written since keeps its
// confidence in its `detail` instead (store/history-codec.ts packDetail: one or two bytes after
// the leading 0, where the float64 column took eight), and a null column says it does. Rows
// written before keep theirs in the column and are read as they are: nothing is rewritten.
// - PostgreSQL: the constraint is dropped (no rewrite).
// - SQLite cannot drop a NOT NULL: the table is copied into one without it (the same rows, key
//   and index).
// Down puts the confidence of the rows that hold it in their detail back in the column, and the
// detail back in the form those rows had; the few lines that read it are frozen here.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    await sql`alter table health_snapshots alter column confidence drop not null`.execute(db);
    return;
  }
  await copySqliteTable(db, false);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const raw = db as unknown as Kysely<{ health_snapshots: { client_id: string; date: string; confidence: number | null; detail: Uint8Array } }>;
  for (;;) {
    const rows = await raw.selectFrom('health_snapshots').select(['client_id', 'date', 'detail']).where('confidence', 'is', null).limit(2_000).execute();
    if (rows.length === 0) break;
    for (const r of rows) {
      const { confidence, detail } = takeConfidence(r.detail);
      await raw.updateTable('health_snapshots').set({ confidence, detail }).where('client_id', '=', r.client_id).where('date', '=', r.date).execute();
    }
  }
  if (dialectOf(db) === 'postgres') {
    await sql`alter table health_snapshots alter column confidence set not null`.execute(db);
    return;
  }
  await copySqliteTable(db, true);
}

/** SQLite: health_snapshots copied into a new table whose confidence is NOT NULL or not. */
async function copySqliteTable(db: Kysely<unknown>, confidenceNotNull: boolean): Promise<void> {
  await db.schema.dropIndex('health_snapshots_date').ifExists().execute();
  await db.schema
    .createTable('health_snapshots_019')
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('score', 'real', (c) => c.notNull())
    .addColumn('confidence', 'real', (c) => (confidenceNotNull ? c.notNull() : c))
    .addColumn('detail', 'blob', (c) => c.notNull())
    .addPrimaryKeyConstraint('health_snapshots_pk', ['client_id', 'date'])
    .modifyEnd(sql`without rowid`)
    .execute();
  await sql`insert into health_snapshots_019 (client_id, date, score, confidence, detail)
    select client_id, date, score, confidence, detail from health_snapshots order by client_id, date`.execute(db);
  await db.schema.dropTable('health_snapshots').execute();
  await db.schema.alterTable('health_snapshots_019').renameTo('health_snapshots').execute();
  await db.schema.createIndex('health_snapshots_date').on('health_snapshots').columns(['date', 'client_id', 'score']).execute();
}

/**
 * A detail written with its confidence (0, the confidence, the parts' ids, the figures) as its
 * confidence and the detail without it (0, the ids, the figures). The confidence is a varint head
 * (low 3 bits: its decimals, or 7 for a float64 whose byte count the rest gives) and then, for a
 * float64, its 8 bytes; the decimal's integer is zigzag-coded in the rest of the head.
 */
function takeConfidence(detail: Uint8Array): { confidence: number; detail: Uint8Array } {
  let at = 1;
  let head = 0;
  for (let shift = 1; ; shift *= 128) {
    const b = detail[at++]!;
    head += (b & 0x7f) * shift;
    if (b < 0x80) break;
  }
  const tag = head % 8;
  const rest = Math.floor(head / 8);
  let confidence: number;
  if (tag === 7) {
    confidence = new DataView(detail.buffer, detail.byteOffset + at, 8).getFloat64(0);
    at += rest;
  } else {
    const m = rest % 2 === 1 ? -(rest + 1) / 2 : rest / 2;
    confidence = m / 10 ** tag;
  }
  const out = new Uint8Array(detail.length - at + 1);
  out.set(detail.subarray(at), 1);
  return { confidence, detail: out };
}
