/** Snapshot reads shared by alerts and digests: a few named days for a workspace's clients. */
import type { Db } from '../store/database.js';
import type { StoredComponents } from '../health/model.js';
import { explainStanding } from '../health/model.js';
import { readSnapshotDetails, SNAPSHOT_DETAIL_COLUMNS } from '../health/snapshots.js';
import { chunks } from '../util/lists.js';
import type { EvidenceItem } from './types.js';

export interface Snap {
  score: number;
  components: StoredComponents;
  reason: string | null;
  reasonText: string | null;
  evidenceIds: string[];
}

/** client id → day → snapshot, for the given days (one index range per day). */
export async function snapshotsOn(
  db: Db,
  workspaceId: string,
  days: readonly string[],
  clientIds?: readonly string[],
): Promise<Map<string, Map<string, Snap>>> {
  const out = new Map<string, Map<string, Snap>>();
  const unique = [...new Set(days)];
  if (unique.length === 0) return out;
  const parts = clientIds ? chunks([...clientIds], 500) : [null];
  for (const part of parts) {
    if (part && part.length === 0) continue;
    let q = db
      .selectFrom('health_snapshots as s')
      .innerJoin('clients as k', 'k.id', 's.client_id')
      .select(['s.client_id', 's.date', 's.score', ...SNAPSHOT_DETAIL_COLUMNS.map((c) => `s.${c}` as const)])
      .where('k.workspace_id', '=', workspaceId)
      .where('s.date', 'in', unique);
    if (part) q = q.where('s.client_id', 'in', part);
    const rows = await q.execute();
    const details = await readSnapshotDetails(db, rows);
    rows.forEach((r, i) => {
      let byDay = out.get(r.client_id);
      if (!byDay) out.set(r.client_id, (byDay = new Map<string, Snap>()));
      const d = details[i]!;
      byDay.set(r.date, { score: Number(r.score), components: d.components, reason: d.reason, reasonText: d.reasonText, evidenceIds: d.evidenceIds });
    });
  }
  return out;
}

/** Why a score is where it is (health/model.ts explainStanding). */
export function reasonFor(score: number, cur: Snap | undefined, prev: Snap | undefined): { code: string; text: string } {
  return explainStanding(score, cur?.components ?? null, prev ?? null);
}

/** The interactions named as evidence, in the order given. */
export async function evidenceItems(db: Db, workspaceId: string, ids: readonly string[]): Promise<EvidenceItem[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('interactions')
    .select(['id', 'occurred_at', 'subject', 'from_email', 'sentiment_score'])
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', [...ids])
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const r = byId.get(id);
    return r ? [{ interactionId: r.id, occurredAt: r.occurred_at, subject: r.subject, from: r.from_email, sentiment: Number(r.sentiment_score) }] : [];
  });
}
