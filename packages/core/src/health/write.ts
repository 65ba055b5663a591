/**
 * Writes a batch's rebuilt snapshots and the clients' current scores, in one transaction: the
 * only code that writes health_snapshots, health_parts and the health columns of clients.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../store/database.js';
import type { Database, HealthSnapshotsTable } from '../store/schema.js';
import { insertRows } from '../store/bulk.js';
import { PART_COUNT, encodeDetail, packDetail, partHash, type EncodedFrom } from '../store/history-codec.js';
import { chunks } from '../util/lists.js';
import type { SnapshotRow } from './score-client.js';
import { announceHealth, type AnnounceOptions } from './events.js';
import { clearedBy } from './stale.js';

export interface ScoredClient {
  id: string;
  /** First rebuilt day: its snapshots from that day on are replaced. */
  start: string;
  score: number;
  lastInteractionAt: string | null;
  /** Its `health_stale_seq` when the rebuild read it (stale.ts clearedBy). */
  staleSeq: number | null;
  /** Its newest rebuilt snapshot and the one before it (what an announcement explains). */
  latest?: SnapshotRow;
  previous?: SnapshotRow;
}

/**
 * `announce`: record what the new current scores change (health/events.ts) in the same
 * transaction; without it (a rebuild of history only) nothing is announced and the clients' risk
 * state is left as it was.
 */
export async function writeSnapshots(db: Db, rows: EncodedSnapshots, clients: ScoredClient[], nowIso: string, announce?: AnnounceOptions): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // One delete per distinct first rebuilt day: a daily run deletes a whole batch at once.
    const byStart = new Map<string, string[]>();
    for (const c of clients) {
      const ids = byStart.get(c.start) ?? [];
      ids.push(c.id);
      byStart.set(c.start, ids);
    }
    for (const [start, ids] of byStart) {
      await trx.deleteFrom('health_snapshots').where('client_id', 'in', ids).where('date', '>=', start).execute();
    }
    await storeEncoded(trx, rows);
    const states = announce ? await announceHealth(trx, clients, announce) : undefined;
    for (const c of clients) {
      const st = states?.get(c.id);
      await trx
        .updateTable('clients')
        .set({
          health_score: c.score,
          health_updated_at: nowIso,
          last_interaction_at: c.lastInteractionAt,
          ...(st ? { risk_state: st.riskState, announced_score: st.announcedScore } : {}),
          // Its history is up to date from c.start on: a stale mark from that day or later goes (stale.ts).
          ...clearedBy(c.start, c.staleSeq),
        })
        .where('id', '=', c.id)
        .execute();
    }
  });
}

/** Part ids by workspace and hash, looked up at most once per part per call. */
type PartIds = Map<string, number>;

/**
 * A batch of snapshot rows in compact form, ready to store (store/history-codec.ts): each distinct
 * part once, and per row its score, confidence, parts (indices into `parts`) and figures. Plain
 * arrays and typed arrays: it crosses from a scoring thread to the writing one cheaply.
 */
export interface EncodedSnapshots {
  parts: { workspaceId: string; hash: string; body: string }[];
  clientIds: string[];
  dates: string[];
  scores: Float64Array<ArrayBuffer>;
  confidences: Float64Array<ArrayBuffer>;
  /** PART_COUNT indices into `parts` per row. */
  refs: Int32Array<ArrayBuffer>;
  /** The rows' figures one after the other; row i's end at figureEnds[i]. */
  figures: Uint8Array<ArrayBuffer>;
  figureEnds: Int32Array<ArrayBuffer>;
}

/**
 * Encodes snapshot rows (of any workspaces) in compact form; pure, so it runs in whichever thread
 * scored them. Each row is encoded against the one before when it is the same client's, where
 * most parts are the same.
 */
export function encodeSnapshots(rows: readonly SnapshotRow[]): EncodedSnapshots {
  const n = rows.length;
  const out: EncodedSnapshots = {
    parts: [],
    clientIds: new Array<string>(n),
    dates: new Array<string>(n),
    scores: new Float64Array(n),
    confidences: new Float64Array(n),
    refs: new Int32Array(n * PART_COUNT),
    figures: new Uint8Array(0),
    figureEnds: new Int32Array(n),
  };
  const figures: Uint8Array[] = [];
  let figureBytes = 0;
  // Each distinct body is hashed once per workspace. Consecutive days of a client mostly have the
  // same bodies: those are recognised by comparison with the day before, without a lookup.
  const byBody = new Map<string, Map<string, number>>();
  let prev: EncodedFrom | undefined;
  let prevRefs: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    const sameClient = i > 0 && rows[i - 1]!.client_id === r.client_id && rows[i - 1]!.workspace_id === r.workspace_id;
    const e = encodeDetail({ components: r.components, reason: r.reason, reasonText: r.reason_text, evidence: r.evidence }, sameClient ? prev : undefined);
    let bodies = byBody.get(r.workspace_id);
    if (!bodies) byBody.set(r.workspace_id, (bodies = new Map<string, number>()));
    const refs = e.parts.map((body, k) => {
      if (sameClient && prev!.parts[k] === body) return prevRefs[k]!;
      let ref = bodies.get(body);
      if (ref === undefined) {
        ref = out.parts.length;
        out.parts.push({ workspaceId: r.workspace_id, hash: partHash(body), body });
        bodies.set(body, ref);
      }
      return ref;
    });
    out.refs.set(refs, i * PART_COUNT);
    out.clientIds[i] = r.client_id;
    out.dates[i] = r.date;
    out.scores[i] = r.score;
    out.confidences[i] = r.confidence;
    figures.push(e.figures);
    figureBytes += e.figures.length;
    out.figureEnds[i] = figureBytes;
    prev = e;
    prevRefs = refs;
  }
  out.figures = new Uint8Array(figureBytes);
  let at = 0;
  for (const f of figures) {
    out.figures.set(f, at);
    at += f.length;
  }
  return out;
}

/** Stores encoded snapshot rows: their parts first (a part another day already has is found by its hash), then the rows. */
async function storeEncoded(trx: Kysely<Database>, enc: EncodedSnapshots): Promise<void> {
  const n = enc.clientIds.length;
  if (n === 0) return;
  const ids = await partIds(trx, enc.parts);
  const partId = enc.parts.map((p) => ids.get(`${p.workspaceId}\u0000${p.hash}`)!);
  const out: HealthSnapshotsTable[] = new Array<HealthSnapshotsTable>(n);
  for (let i = 0; i < n; i++) {
    out[i] = {
      client_id: enc.clientIds[i]!,
      date: enc.dates[i]!,
      score: enc.scores[i]!,
      confidence: null,
      detail: packDetail(
        Array.from(enc.refs.subarray(i * PART_COUNT, (i + 1) * PART_COUNT), (ref) => partId[ref]!),
        enc.figures.subarray(i === 0 ? 0 : enc.figureEnds[i - 1], enc.figureEnds[i]),
        enc.confidences[i],
      ),
    };
  }
  await insertRows(trx, 'health_snapshots', out);
}

/**
 * Inserts snapshot rows in compact form (store/history-codec.ts); rows of any workspaces. Run in
 * the transaction the rows belong to. Exported for tests that state history day by day.
 */
export async function storeSnapshots(trx: Kysely<Database>, rows: readonly SnapshotRow[]): Promise<void> {
  await storeEncoded(trx, encodeSnapshots(rows));
}

/**
 * The ids of the given parts, inserting those not stored yet. Inserted in hash order with
 * ON CONFLICT DO NOTHING: two PostgreSQL transactions writing the same new part wait for each
 * other in the same order (no deadlock), and the second finds the first's row.
 */
async function partIds(trx: Kysely<Database>, parts: { workspaceId: string; hash: string; body: string }[]): Promise<PartIds> {
  const out: PartIds = new Map();
  const byWorkspace = new Map<string, { hash: string; body: string }[]>();
  for (const p of parts) {
    const list = byWorkspace.get(p.workspaceId);
    if (list) list.push(p);
    else byWorkspace.set(p.workspaceId, [p]);
  }
  for (const [workspaceId, list] of byWorkspace) {
    const found = async (hashes: string[]) => {
      for (const part of chunks(hashes, 500)) {
        const rows = await trx.selectFrom('health_parts').select(['id', 'hash']).where('workspace_id', '=', workspaceId).where('hash', 'in', part).execute();
        for (const r of rows) out.set(`${workspaceId}\u0000${r.hash}`, r.id);
      }
    };
    await found(list.map((p) => p.hash));
    const missing = list.filter((p) => !out.has(`${workspaceId}\u0000${p.hash}`)).sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
    if (missing.length === 0) continue;
    for (const part of chunks(missing, 200)) {
      const inserted = await trx
        .insertInto('health_parts')
        .values(part.map((p) => ({ workspace_id: workspaceId, hash: p.hash, body: p.body })))
        .onConflict((oc) => oc.columns(['workspace_id', 'hash']).doNothing())
        .returning(['id', 'hash'])
        .execute();
      for (const r of inserted) out.set(`${workspaceId}\u0000${r.hash}`, r.id);
    }
    // Those another transaction stored meanwhile (ON CONFLICT returned nothing for them).
    const raced = missing.filter((p) => !out.has(`${workspaceId}\u0000${p.hash}`));
    if (raced.length > 0) await found(raced.map((p) => p.hash));
  }
  return out;
}

/** Retention: deletes the workspace's snapshots dated before `beforeDay` (YYYY-MM-DD). */
export async function pruneSnapshots(trx: Transaction<Database>, workspaceId: string, beforeDay: string): Promise<number> {
  const r = await trx
    .deleteFrom('health_snapshots')
    .where('client_id', 'in', trx.selectFrom('clients').select('id').where('workspace_id', '=', workspaceId))
    .where('date', '<', beforeDay)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
