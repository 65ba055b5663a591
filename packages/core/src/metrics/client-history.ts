/**
 * One client's score history for a chart: a point per day from its daily snapshots, each with
 * the reason of that day's move and the interactions that show it; the latest components; and
 * the evidence, the interactions named by the current risks and by the days the score moved.
 */
import type { Db } from '../store/database.js';
import { HEALTH_COMPONENTS, storedSignals, type HealthComponent } from '../health/model.js';
import { readSnapshotDetails, SNAPSHOT_DETAIL_COLUMNS } from '../health/snapshots.js';
import { addDays, utcDay } from '../util/time.js';
import { getClientRow, INTERACTION_VIEW_COLUMNS, toInteractionView, type InteractionView } from './clients.js';

export interface HealthHistoryDay {
  date: string;
  score: number;
  confidence: number;
  /** The score change since the day before; null on the first day of the client's history. */
  change: number | null;
  reasonCode: string | null;
  /** The sentence that explains the day's move (or, when a risk holds, that risk). */
  reason: string | null;
  /** The sentiment component's value that day (0–100), when stored. */
  sentiment: number | null;
  /** The interactions that show that day's reason. */
  interactionIds: string[];
  /** The learned health model that scored the day (health/models.ts); absent for the hand-written weights. */
  model?: number;
}

export interface HealthComponentView {
  name: HealthComponent;
  /** 0–100. */
  value: number | null;
  /** Relative weight (normalised). */
  weight: number | null;
  /** Points this component gives the score. */
  contribution: number | null;
}

export interface ClientHealthHistory {
  clientId: string;
  windowDays: number;
  days: HealthHistoryDay[];
  /** The components of the latest snapshot (empty before the first). */
  components: HealthComponentView[];
  /** The interactions behind the current risks and the moves, newest first. */
  evidence: InteractionView[];
}

/** A day whose score moved at least this much names its interactions as evidence. */
export const EVIDENCE_MIN_MOVE = 2;
/** Evidence interactions returned at most. */
export const EVIDENCE_LIMIT = 30;

export async function getClientHealthHistory(
  db: Db,
  workspaceId: string,
  clientId: string,
  options: { windowDays: number; now: Date },
): Promise<ClientHealthHistory> {
  await getClientRow(db, workspaceId, clientId);
  const today = utcDay(options.now);
  const first = utcDay(addDays(options.now, -(options.windowDays - 1)));
  // The day before the window too, so the first day's change is known.
  const before = utcDay(addDays(options.now, -options.windowDays));
  const rows = await db
    .selectFrom('health_snapshots')
    .select(['date', 'score', ...SNAPSHOT_DETAIL_COLUMNS])
    .where('client_id', '=', clientId)
    .where('date', '>=', before)
    .where('date', '<=', today)
    .orderBy('date')
    .execute();

  const inWindow = rows.filter((r) => r.date >= first);
  const details = await readSnapshotDetails(db, inWindow);
  const days: HealthHistoryDay[] = [];
  let prev: number | null = rows[0] && rows[0].date < first ? Number(rows[0].score) : null;
  inWindow.forEach((r, i) => {
    const score = Number(r.score);
    const d = details[i]!;
    days.push({
      date: r.date,
      score,
      confidence: d.confidence,
      change: prev === null ? null : Math.round((score - prev) * 100) / 100,
      reasonCode: d.reason,
      reason: d.reasonText,
      sentiment: typeof d.components.sentiment?.value === 'number' ? d.components.sentiment.value : null,
      interactionIds: d.evidenceIds,
      ...(d.components.model === undefined ? {} : { model: d.components.model }),
    });
    prev = score;
  });

  const current = details.at(-1)?.components ?? null;
  const components: HealthComponentView[] = current
    ? HEALTH_COMPONENTS.map((name) => ({
        name,
        value: current[name]?.value ?? null,
        weight: current[name]?.weight ?? null,
        contribution: current[name]?.contribution ?? null,
      }))
    : [];

  // Evidence: the current risks' interactions first, then those of the moves, newest move first.
  const wanted: string[] = [];
  const add = (ids: readonly string[]) => {
    for (const id of ids) if (!wanted.includes(id) && wanted.length < EVIDENCE_LIMIT) wanted.push(id);
  };
  for (const risk of storedSignals(current)) add(risk.interactionIds);
  for (const d of [...days].reverse()) if (d.change !== null && Math.abs(d.change) >= EVIDENCE_MIN_MOVE) add(d.interactionIds);
  const evidence =
    wanted.length === 0
      ? []
      : (await db.selectFrom('interactions').select(INTERACTION_VIEW_COLUMNS).where('client_id', '=', clientId).where('id', 'in', wanted).execute())
          .map(toInteractionView)
          .sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : a.id.localeCompare(b.id)));
  return { clientId, windowDays: options.windowDays, days, components, evidence };
}
