/**
 * Health that is out of date (docs/health-model.md#rebuilds-that-did-not-finish): the only code
 * that sets `clients.health_stale_from` (the earliest day whose snapshots no longer match the
 * client's stored interactions) and `health_stale_at` (when it was last set).
 *
 * - The writers of interactions (ingest/writer.ts, ingest/records.ts) mark the clients a batch
 *   touched in the batch's own transaction: what is stored is never unknown to the rebuild.
 * - The rebuild (recompute.ts) starts each client it scores at its stale day at the latest, and its
 *   write (write.ts) clears the mark in the transaction of the snapshots, when they start on or
 *   before that day and no writer marked the client since the rebuild read it (`clearedBy`: each
 *   mark adds one to `health_stale_seq`). A rebuild that did not finish leaves the clients it had
 *   not written marked, and nothing else.
 * - The next ingest or sync rebuilds every stale client of its workspace with its own; the
 *   runner's scheduler redoes a workspace nobody is writing to (`workspacesWithStaleHealth`): no
 *   job of it running, no mark newer than a few minutes (a rebuild under way renews one of the
 *   marks it has yet to clear now and then, `renewStaleMark`).
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Db } from '../store/database.js';
import type { Database } from '../store/schema.js';
import { chunks } from '../util/lists.js';

/** Rows per UPDATE: two parameters each, under both dialects' limits. */
const MARK_CHUNK = 500;

/**
 * Marks the touched scored clients (client id → earliest day whose interactions changed) stale
 * from that day, or keeps an earlier day already marked. Run it in the transaction that stores
 * their interactions. Suggested and ignored clients are not scored, so never marked.
 */
export async function markHealthStale(trx: Kysely<Database>, touched: ReadonlyMap<string, string>, at: Date): Promise<void> {
  if (touched.size === 0) return;
  const now = at.toISOString();
  for (const part of chunks([...touched], MARK_CHUNK)) {
    const values = sql.join(part.map(([id, day]) => sql`(${id}, ${day})`));
    // One statement for the batch: the same text on both dialects (a VALUES list named by a CTE).
    await sql`with v(id, day) as (values ${values})
      update clients set
        health_stale_from = case when health_stale_from is null or health_stale_from > v.day then v.day else health_stale_from end,
        health_stale_at = ${now},
        health_stale_seq = coalesce(health_stale_seq, 0) + 1
      from v
      where clients.id = v.id and clients.status = 'active'`.execute(trx);
  }
}

/**
 * The value of `health_stale_from` once a client's snapshots from `start` on are rewritten (for
 * write.ts's update of the client, in the same transaction), `seq` being the client's
 * `health_stale_seq` when the rebuild read it: cleared when they cover the stale day and nobody
 * marked the client since; kept otherwise (a writer stored mail since the rebuild read the client:
 * the rebuild may not have read it, whatever its day).
 */
export function clearedBy(start: string, seq: number | null): { health_stale_from: RawBuilder<string | null>; health_stale_at: RawBuilder<string | null> } {
  const covered = sql<boolean>`health_stale_from >= ${start} and coalesce(health_stale_seq, 0) = ${seq ?? 0}`;
  return {
    health_stale_from: sql<string | null>`case when ${covered} then null else health_stale_from end`,
    health_stale_at: sql<string | null>`case when ${covered} then null else health_stale_at end`,
  };
}

/**
 * Moves a client's stale day up to the first day its rebuild can write (its first interaction's,
 * or the retention horizon: no snapshot is kept before it), unless it changed since it was read:
 * the rebuild from that day then clears it, and a client is never left stale for days it can
 * have no snapshot of.
 */
export async function raiseStaleDays(db: Db, raises: ReadonlyArray<{ id: string; read: string; to: string }>): Promise<void> {
  for (const r of raises) {
    await db.updateTable('clients').set({ health_stale_from: r.to }).where('id', '=', r.id).where('health_stale_from', '=', r.read).execute();
  }
}

/**
 * Sets when a stale client was last marked to `at`, leaving its stale day (a long rebuild keeps its
 * workspace's marks recent, so the scheduler leaves the workspace to it). Call it on a client no
 * write in flight holds: it locks that row alone.
 */
export async function renewStaleMark(db: Db, clientId: string, at: Date): Promise<void> {
  await db.updateTable('clients').set({ health_stale_at: at.toISOString() }).where('id', '=', clientId).where('health_stale_from', 'is not', null).execute();
}

export interface StaleWorkspace {
  /** The workspace's id (its domain). */
  workspaceId: string;
  /** Its stale scored clients. */
  clients: number;
  /** When the newest mark was set (wall clock). */
  markedAt: string;
}

/**
 * Workspaces with stale scored clients that nobody is rebuilding: no job of the workspace is
 * running (its own rebuild covers them) and no mark is newer than `quietSince` (a writer still
 * storing mail, an ingest whose rebuild is under way).
 */
export async function workspacesWithStaleHealth(db: Db, quietSince: Date): Promise<StaleWorkspace[]> {
  const rows = await db
    .selectFrom('clients as c')
    .select((eb) => ['c.workspace_id', eb.fn.countAll<number>().as('n'), eb.fn.max('c.health_stale_at').as('at')])
    .where('c.health_stale_from', 'is not', null)
    .where('c.status', '=', 'active')
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('jobs as j').select('j.id').whereRef('j.workspace_id', '=', 'c.workspace_id').where('j.state', '=', 'running'))),
    )
    .groupBy('c.workspace_id')
    .orderBy('c.workspace_id')
    .execute();
  const quiet = quietSince.toISOString();
  return rows.filter((r) => (r.at ?? '') < quiet).map((r) => ({ workspaceId: r.workspace_id, clients: Number(r.n), markedAt: r.at ?? '' }));
}
