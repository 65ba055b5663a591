/**
 * Writes a batch's rebuilt snapshots and the clients' current scores, in one transaction: the
 * only code that writes health_snapshots and the health columns of clients.
 */
import type { Transaction } from 'kysely';
import type { Db } from '../store/database.js';
import type { Database } from '../store/schema.js';
import { insertRows } from '../store/bulk.js';
import type { SnapshotRow } from './score-client.js';
import { announceHealth, type AnnounceOptions } from './events.js';

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
    await insertRows(trx, 'health_snapshots', rows);
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
        })
        .where('id', '=', c.id)
        .execute();
    }
  });
}

/** Retention: deletes the workspace's snapshots dated before `beforeDay` (YYYY-MM-DD). */
export async function pruneSnapshots(trx: Transaction<Database>, workspaceId: string, beforeDay: string): Promise<number> {
  const r = await trx.deleteFrom('health_snapshots').where('workspace_id', '=', workspaceId).where('date', '<', beforeDay).executeTakeFirst();
  return Number(r.numDeletedRows);
}
