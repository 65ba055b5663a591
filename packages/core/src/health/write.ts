/**
 * Writes a batch's rebuilt snapshots and the clients' current scores, in one transaction: the
 * only code that writes health_snapshots, health_parts and the health columns of clients.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../store/database.js';
import type { Database, HealthSnapshotsTable } from '../store/schema.js';
import { insertRows } from '../store/bulk.js';
import { encodeDetail, packDetail, partHash, type EncodedFrom } from '../store/history-codec.js';
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
  /** Its newest rebuilt snapshot and the one before it (what an announcement explains). */
  latest?: SnapshotRow;
  previous?: SnapshotRow;
}

/**
 * `announce`: record what the new current scores change (health/events.ts) in the same
 * transaction; without it (a rebuild of history only) nothing is announced and the clients' risk
 * state is left as it was.
 */
export async function writeSnapshots(db: Db, rows: SnapshotRow[], clients: ScoredClient[], nowIso: string, announce?: AnnounceOptions): Promise<void> {
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
    await storeSnapshots(trx, rows);
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
          ...clearedBy(c.start),
        })
        .where('id', '=', c.id)
        .execute();
    }
  });
}

/** Part ids by workspace and hash, looked up at most once per part per call. */
type PartIds = Map<string, number>;

/**
 * Inserts snapshot rows in compact form (store/history-codec.ts): their parts first (a part
 * another day already has is found by its hash), then the rows. Rows of any workspaces; run in
 * the transaction the rows belong to. Exported for tests that state history day by day.
 */
export async function storeSnapshots(trx: Kysely<Database>, rows: readonly SnapshotRow[]): Promise<void> {
  if (rows.length === 0) return;
  // Each row is encoded against the one before when it is the same client's: most parts are the same.
  let prev: EncodedFrom | undefined;
  const encoded = rows.map((r, i) => {
    const before = i > 0 && rows[i - 1]!.client_id === r.client_id && rows[i - 1]!.workspace_id === r.workspace_id ? prev : undefined;
    prev = encodeDetail({ components: r.components, reason: r.reason, reasonText: r.reason_text, evidence: r.evidence }, before);
    return prev;
  });
  // Each distinct part once, by workspace: its hash and body. Each distinct body is hashed once. Consecutive days of a client mostly have the same bodies:
  // those are recognised by comparison with the day before, without a lookup.
  const wanted = new Map<string, { workspaceId: string; hash: string; body: string }>();
  const byBody = new Map<string, Map<string, string>>();
  let prevParts: readonly string[] = [];
  let prevKeys: string[] = [];
  let prevWorkspace = '';
  const keys = encoded.map((e, i) => {
    const workspaceId = rows[i]!.workspace_id;
    const bodies = byBody.get(workspaceId) ?? byBody.set(workspaceId, new Map()).get(workspaceId)!;
    const out = e.parts.map((body, k) => {
      if (workspaceId === prevWorkspace && prevParts[k] === body) return prevKeys[k]!;
      let key = bodies.get(body);
      if (key === undefined) {
        const hash = partHash(body);
        key = `${workspaceId}\u0000${hash}`;
        bodies.set(body, key);
        wanted.set(key, { workspaceId, hash, body });
      }
      return key;
    });
    prevParts = e.parts;
    prevKeys = out;
    prevWorkspace = workspaceId;
    return out;
  });
  const ids = await partIds(trx, [...wanted.values()]);
  const out: HealthSnapshotsTable[] = rows.map((r, i) => ({
    client_id: r.client_id,
    date: r.date,
    score: r.score,
    confidence: r.confidence,
    detail: packDetail(
      keys[i]!.map((k) => ids.get(k)!),
      encoded[i]!.figures,
    ),
  }));
  await insertRows(trx, 'health_snapshots', out);
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
