/**
 * Writes a batch's rebuilt snapshots and the clients' current scores, in one transaction: the
 * only code that writes health_snapshots and the health columns of clients.
 */
import type { Transaction } from 'kysely';
import type { Db } from '../store/database.js';
import type { Database } from '../store/schema.js';
import { chunks } from '../util/lists.js';
import type { SnapshotRow } from './score-client.js';

const INSERT_CHUNK = 300;

export interface ScoredClient {
  id: string;
  /** First rebuilt day: its snapshots from that day on are replaced. */
  start: string;
  score: number;
  lastInteractionAt: string | null;
}

export async function writeSnapshots(db: Db, rows: SnapshotRow[], clients: ScoredClient[], nowIso: string): Promise<void> {
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
    for (const part of chunks(rows, INSERT_CHUNK)) {
      await trx.insertInto('health_snapshots').values(part).execute();
    }
    for (const c of clients) {
      await trx
        .updateTable('clients')
        .set({ health_score: c.score, health_updated_at: nowIso, last_interaction_at: c.lastInteractionAt })
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
