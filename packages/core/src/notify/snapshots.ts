/** Snapshot reads shared by alerts and digests: a few named days for a workspace's clients. */
import type { Db } from '../store/database.js';
import type { StoredComponents } from '../health/model.js';
import { explainStanding, readComponents } from '../health/model.js';
import { isRecord, readJson } from '../util/json.js';
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
      .selectFrom('health_snapshots')
      .select(['client_id', 'date', 'score', 'components_json', 'reason', 'reason_text', 'evidence_json'])
      .where('workspace_id', '=', workspaceId)
      .where('date', 'in', unique);
    if (part) q = q.where('client_id', 'in', part);
    for (const r of await q.execute()) {
      let byDay = out.get(r.client_id);
      if (!byDay) out.set(r.client_id, (byDay = new Map<string, Snap>()));
      const evidence = r.evidence_json ? readJson(r.evidence_json, isRecord, 'health_snapshots.evidence_json') : {};
      byDay.set(r.date, {
        score: Number(r.score),
        components: readComponents(r.components_json),
        reason: r.reason,
        reasonText: r.reason_text,
        evidenceIds: Array.isArray(evidence.interactionIds) ? evidence.interactionIds.filter((x): x is string => typeof x === 'string') : [],
      });
    }
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
