/**
 * GET /metrics/deltas: each non-excluded client's score change over the window (current score
 * against its snapshot `windowDays` ago), kept when |change| ≥ minDelta, grouped by the reason
 * of the change (the component that moved it most; see docs/health-model.md).
 */
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { addDays, utcDay } from '../util/time.js';
import { DEFAULT_SCORE, explainChange, type StoredComponents } from '../health/model.js';
import { readSnapshotDetails, SNAPSHOT_DETAIL_COLUMNS } from '../health/snapshots.js';
import { round1 } from '../util/numbers.js';
import { chunks } from '../util/lists.js';

export interface DeltaClient {
  id: string;
  name: string;
  delta: number;
  currentScore: number;
  previousScore: number;
}

export interface DeltaGroup {
  reason: string;
  totalDelta: number;
  count: number;
  avgDelta: number;
  clients: DeltaClient[];
}

export async function scoreDeltas(db: Db, workspaceId: string, options: { windowDays?: number; minDelta?: number; now: Date }): Promise<DeltaGroup[]> {
  const windowDays = options.windowDays ?? 7;
  const minDelta = options.minDelta ?? 10;
  const dayW = utcDay(addDays(options.now, -windowDays));
  // The past day's range of the snapshot date index (summary.ts), one client probe per row (a
  // cross join keeps that order on SQLite, as in summary.ts); components are decoded only for the
  // few rows that qualify.
  const rows = await db
    .selectFrom('health_snapshots as p')
    .crossJoin('clients as k')
    .whereRef('k.id', '=', 'p.client_id')
    .select(['k.id', 'k.name', 'k.health_score', 'k.health_updated_at', 'p.score as prev_score', ...SNAPSHOT_DETAIL_COLUMNS.map((c) => `p.${c}` as const)])
    .where('p.date', '=', dayW)
    .where('k.workspace_id', '=', workspaceId)
    .where('k.is_excluded', '=', 0)
    .where('k.status', '=', 'active')
    // Scores carry one decimal; the margin keeps borderline rows for the exact check below.
    .where(sql<boolean>`abs(coalesce(k.health_score, ${DEFAULT_SCORE}) - p.score) >= ${Math.max(0, minDelta - 0.05)}`)
    .execute();
  const currentComponents = new Map<string, StoredComponents>();
  for (const part of chunks(
    rows.filter((r) => r.health_updated_at !== null),
    200,
  )) {
    const snaps = await db
      .selectFrom('health_snapshots')
      .select(['client_id', 'date', ...SNAPSHOT_DETAIL_COLUMNS])
      .where(
        'client_id',
        'in',
        part.map((r) => r.id),
      )
      .where('date', 'in', [...new Set(part.map((r) => (r.health_updated_at ?? '').slice(0, 10)))])
      .execute();
    const details = await readSnapshotDetails(db, snaps);
    snaps.forEach((c, i) => currentComponents.set(`${c.client_id}|${c.date}`, details[i]!.components));
  }
  const qualifying = rows.filter((r) => Math.abs(round1((r.health_score ?? DEFAULT_SCORE) - r.prev_score)) >= minDelta);
  const prevDetails = await readSnapshotDetails(db, qualifying);
  const prevComponents = new Map(qualifying.map((r, i) => [r.id, prevDetails[i]!.components]));

  const groups = new Map<string, DeltaClient[]>();
  for (const r of rows) {
    const current = r.health_score ?? DEFAULT_SCORE;
    const delta = round1(current - r.prev_score);
    if (Math.abs(delta) < minDelta) continue;
    const prev = prevComponents.get(r.id)!;
    const cur = (r.health_updated_at === null ? undefined : currentComponents.get(`${r.id}|${r.health_updated_at.slice(0, 10)}`)) ?? null;
    const reason = cur ? explainChange(r.prev_score, prev, current, cur).reason : 'no_data';
    const list = groups.get(reason) ?? [];
    list.push({ id: r.id, name: r.name, delta, currentScore: current, previousScore: r.prev_score });
    groups.set(reason, list);
  }
  const out: DeltaGroup[] = [];
  for (const [reason, clients] of groups) {
    clients.sort((a, b) => Math.abs(b.delta) - Math.abs(a.delta) || a.name.localeCompare(b.name));
    const total = clients.reduce((s, c) => s + c.delta, 0);
    out.push({ reason, totalDelta: round1(total), count: clients.length, avgDelta: round1(total / clients.length), clients });
  }
  return out.sort((a, b) => Math.abs(b.totalDelta) - Math.abs(a.totalDelta) || a.reason.localeCompare(b.reason));
}
