/**
 * Reads stored health snapshots back: the rows' figures and parts (store/history-codec.ts) become
 * the components, reason, sentence and evidence the rebuild wrote. Every history read goes
 * through here.
 */
import type { Kysely } from 'kysely';
import type { Database, HealthSnapshotsTable } from '../store/schema.js';
import { decodeDetail, parsePart, unpackDetail, type ParsedPart } from '../store/history-codec.js';
import { isRecord } from '../util/json.js';
import { chunks } from '../util/lists.js';
import { ChsError } from '../errors.js';
import { readStoredComponents, type StoredComponents } from './model.js';

/**
 * The columns a snapshot is decoded from (select them, with any others, and pass the rows on). A
 * row written since migration 019 keeps its confidence in its detail, its column null.
 */
export const SNAPSHOT_DETAIL_COLUMNS = ['confidence', 'detail'] as const;

export type SnapshotDetailColumns = Pick<HealthSnapshotsTable, (typeof SNAPSHOT_DETAIL_COLUMNS)[number]>;

export interface SnapshotDetails {
  confidence: number;
  components: StoredComponents;
  reason: string | null;
  reasonText: string | null;
  /** `{from, to, changes, driver, day, interactionIds}` as written ({} when none was). */
  evidence: Record<string, unknown>;
  /** The evidence's interaction ids. */
  evidenceIds: string[];
}

/**
 * The details of each row, in the order given (rows of any workspace). Each part is read once:
 * the days of a client share most of theirs.
 */
export async function readSnapshotDetails<R extends SnapshotDetailColumns>(db: Kysely<Database>, rows: readonly R[]): Promise<SnapshotDetails[]> {
  const parts = new Map<number, ParsedPart>();
  const ids = new Set<number>();
  const unpacked = rows.map((r) => unpackDetail(r.detail, r.confidence === null));
  for (const u of unpacked) for (const id of u.partIds) ids.add(id);
  for (const part of chunks([...ids], 500)) {
    for (const p of await db.selectFrom('health_parts').select(['id', 'body']).where('id', 'in', part).execute()) parts.set(p.id, parsePart(p.body));
  }
  const get = (id: number): ParsedPart => {
    const p = parts.get(id);
    if (!p) throw new ChsError('INTERNAL', `health snapshot part ${id} is missing`);
    return p;
  };
  return unpacked.map((u, i) => {
    const d = decodeDetail(u.partIds.map(get), u.figures);
    const evidence = isRecord(d.evidence) ? d.evidence : {};
    return {
      confidence: u.confidence ?? Number(rows[i]!.confidence),
      components: readStoredComponents(d.components),
      reason: d.reason,
      reasonText: d.reasonText,
      evidence,
      evidenceIds: Array.isArray(evidence.interactionIds) ? evidence.interactionIds.filter((x): x is string => typeof x === 'string') : [],
    };
  });
}

/**
 * The stored components of the given client-days (rows of any workspace), by `clientId date`; a
 * day without a snapshot is absent. Only the days asked for are decoded.
 */
export async function readComponentsOn(db: Kysely<Database>, days: readonly { clientId: string; date: string }[]): Promise<Map<string, StoredComponents>> {
  const out = new Map<string, StoredComponents>();
  const wanted = new Set(days.map((d) => `${d.clientId} ${d.date}`));
  for (const part of chunks(days, 200)) {
    const rows = (
      await db
        .selectFrom('health_snapshots')
        .select(['client_id', 'date', ...SNAPSHOT_DETAIL_COLUMNS])
        .where('client_id', 'in', [...new Set(part.map((d) => d.clientId))])
        .where('date', 'in', [...new Set(part.map((d) => d.date))])
        .execute()
    ).filter((r) => wanted.has(`${r.client_id} ${r.date}`));
    const details = await readSnapshotDetails(db, rows);
    rows.forEach((r, i) => out.set(`${r.client_id} ${r.date}`, details[i]!.components));
  }
  return out;
}
