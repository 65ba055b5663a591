/**
 * Test support: a workspace's health as its readers see it, in a form two stores can be compared
 * in (a run that was interrupted and redone against a clean run of the same mail): for each scored
 * client, by primary domain, its current score and risk state, and its whole history through the
 * history API (every day, its reason, its evidence). Ids are random per store: interaction ids
 * become their Message-IDs (dedupe keys), client ids their domains.
 */
import type { Db } from '../store/database.js';
import { getClientHealthHistory } from '../metrics/client-history.js';

export interface HealthAsRead {
  /** Scored clients with a score. */
  scored: number;
  /** Scored clients without one. */
  unscored: number;
  /** Scored clients whose history is marked out of date. */
  stale: number;
  /** Per domain: the current score, risk state and history. */
  clients: Record<string, unknown>;
}

/** `windowDays`: history read per client, ending at `now`; default 800 (two years and more). */
export async function healthAsRead(db: Db, workspaceId: string, now: Date, windowDays = 800): Promise<HealthAsRead> {
  const rows = await db
    .selectFrom('clients')
    .select(['id', 'primary_domain', 'health_score', 'risk_state', 'announced_score', 'last_interaction_at', 'health_stale_from'])
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'active')
    .orderBy('primary_domain')
    .execute();
  const names = new Map<string, string>(rows.map((r) => [r.id, r.primary_domain]));
  for (const r of await db.selectFrom('interactions').select(['id', 'dedupe_key']).where('workspace_id', '=', workspaceId).execute())
    names.set(r.id, `<${r.dedupe_key}>`);
  const stable = (v: unknown): unknown => {
    if (typeof v === 'string') return names.get(v) ?? v;
    if (Array.isArray(v)) return v.map(stable);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, stable(x)]));
    return v;
  };
  const clients: Record<string, unknown> = {};
  for (const r of rows) {
    const history = await getClientHealthHistory(db, workspaceId, r.id, { windowDays, now });
    clients[r.primary_domain] = stable({
      score: r.health_score,
      riskState: r.risk_state,
      announcedScore: r.announced_score,
      lastInteractionAt: r.last_interaction_at,
      history,
    });
  }
  return {
    scored: rows.filter((r) => r.health_score !== null).length,
    unscored: rows.filter((r) => r.health_score === null).length,
    stale: rows.filter((r) => r.health_stale_from !== null).length,
    clients,
  };
}
