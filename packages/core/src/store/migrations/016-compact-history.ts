import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';
import { encodeDetail, packDetail, partHash, type JsonValue } from '../history-codec.js';

// Immutable once landed. Compact health history (docs/health-model.md, "Stored history"):
// - health_snapshots keeps one row per client and day, now as figures only: score, confidence,
//   and `detail`: the ids of its five parts and the day's numbers in a few bytes each
//   (store/history-codec.ts). No workspace_id (the client's), no created_at. Its primary key
//   (client_id, date) is the table itself on SQLite (WITHOUT ROWID). One secondary index,
//   (date, client_id, score): a day's scores read in one range, each then matched to its client
//   (the summary's and the deltas' "N days ago"); it replaces (workspace, date, client, score) and
//   (client, date, score).
// - health_parts: the skeletons (components, their inputs, reason and sentence, evidence, the
//   messages it points to), once per workspace, keyed by the SHA-256 of their body.
// Every snapshot there is is converted, not dropped: history reads answer as before.
const CHUNK = 2_000;

interface OldRow {
  workspace_id: string;
  client_id: string;
  date: string;
  score: number;
  confidence: number;
  components_json: string;
  reason: string | null;
  reason_text: string | null;
  evidence_json: string | null;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = dialectOf(db) === 'postgres';
  await db.schema.alterTable('health_snapshots').renameTo('health_snapshots_015').execute();
  for (const index of ['health_snapshots_client_date_score', 'health_snapshots_ws_date_cover', 'health_snapshots_workspace_date'])
    await db.schema.dropIndex(index).ifExists().execute();
  if (pg) await sql`alter table health_snapshots_015 rename constraint health_snapshots_pk to health_snapshots_015_pk`.execute(db);

  await db.schema
    .createTable('health_parts')
    .addColumn('id', pg ? 'serial' : 'integer', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addUniqueConstraint('health_parts_workspace_hash', ['workspace_id', 'hash'])
    .execute();
  await db.schema
    .createTable('health_snapshots')
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('score', pg ? 'double precision' : 'real', (c) => c.notNull())
    .addColumn('confidence', pg ? 'double precision' : 'real', (c) => c.notNull())
    .addColumn('detail', pg ? 'bytea' : 'blob', (c) => c.notNull())
    .addPrimaryKeyConstraint('health_snapshots_pk', ['client_id', 'date'])
    .$call((b) => (pg ? b : b.modifyEnd(sql`without rowid`)))
    .execute();
  await db.schema.createIndex('health_snapshots_date').on('health_snapshots').columns(['date', 'client_id', 'score']).execute();

  const raw = db as unknown as Kysely<{
    health_snapshots_015: OldRow;
    health_parts: { id: number; workspace_id: string; hash: string; body: string };
    health_snapshots: Record<string, unknown>;
  }>;
  const partIds = new Map<string, number>();
  let nextPart = 1;
  let after: { client_id: string; date: string } | null = null;
  for (;;) {
    let q = raw
      .selectFrom('health_snapshots_015')
      .select(['workspace_id', 'client_id', 'date', 'score', 'confidence', 'components_json', 'reason', 'reason_text', 'evidence_json'])
      .orderBy('client_id')
      .orderBy('date')
      .limit(CHUNK);
    if (after) {
      const a = after;
      q = q.where((eb) => eb.or([eb('client_id', '>', a.client_id), eb.and([eb('client_id', '=', a.client_id), eb('date', '>', a.date)])]));
    }
    const rows = await q.execute();
    if (rows.length === 0) break;
    const parts: { id: number; workspace_id: string; hash: string; body: string }[] = [];
    const out: Record<string, unknown>[] = [];
    for (const r of rows) {
      const enc = encodeDetail({
        components: JSON.parse(r.components_json) as JsonValue,
        reason: r.reason,
        reasonText: r.reason_text,
        evidence: r.evidence_json === null ? null : (JSON.parse(r.evidence_json) as JsonValue),
      });
      const ids = enc.parts.map((body) => {
        const hash = partHash(body);
        const key = `${r.workspace_id}\u0000${hash}`;
        let id = partIds.get(key);
        if (id === undefined) {
          id = nextPart++;
          partIds.set(key, id);
          parts.push({ id, workspace_id: r.workspace_id, hash, body });
        }
        return id;
      });
      out.push({
        client_id: r.client_id,
        date: r.date,
        score: r.score,
        confidence: r.confidence,
        detail: Buffer.from(packDetail(ids, enc.figures)),
      });
    }
    for (let k = 0; k < parts.length; k += 200)
      await raw
        .insertInto('health_parts')
        .values(parts.slice(k, k + 200))
        .execute();
    for (let k = 0; k < out.length; k += 200)
      await raw
        .insertInto('health_snapshots')
        .values(out.slice(k, k + 200))
        .execute();
    const last = rows.at(-1)!;
    after = { client_id: last.client_id, date: last.date };
  }
  if (pg && nextPart > 1) await sql`select setval(pg_get_serial_sequence('health_parts', 'id'), ${nextPart - 1})`.execute(db);
  await db.schema.dropTable('health_snapshots_015').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // The figures cannot be turned back into the old rows' JSON without the codec's reader, which a
  // down migration must not depend on: history is rebuilt from the interactions instead.
  const pg = dialectOf(db) === 'postgres';
  const real = pg ? 'double precision' : 'real';
  await db.schema.dropIndex('health_snapshots_date').ifExists().execute();
  await db.schema.dropTable('health_snapshots').execute();
  await db.schema.dropTable('health_parts').execute();
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
  await db.schema.createIndex('health_snapshots_client_date_score').on('health_snapshots').columns(['client_id', 'date', 'score']).execute();
  await db.schema.createIndex('health_snapshots_ws_date_cover').on('health_snapshots').columns(['workspace_id', 'date', 'client_id', 'score']).execute();
  await sql`update clients set health_updated_at = null`.execute(db);
}
