/**
 * How a client's renewal ended (issue 27): `renewed`, `churned` or `downgraded` (with the MRR before
 * and after), one per client and day, recorded by a CSV (`chs outcomes import`), the API
 * (`POST /clients/{id}/outcomes`) or a CRM. The only writer of `client_outcomes`; what the
 * backtest compares the score's history with.
 */
import type { Kysely } from 'kysely';
import type { Db } from '../store/database.js';
import type { ClientOutcomesTable, Database } from '../store/schema.js';
import { ChsError, isChsError } from '../errors.js';
import { newId } from '../util/ids.js';
import { registrableDomain } from '../resolve/domains.js';
import { findClientByDomain, isValidDate } from './attributes.js';
import { readCsvTable } from './import-csv.js';

export const OUTCOMES = ['renewed', 'churned', 'downgraded'] as const;
export type Outcome = (typeof OUTCOMES)[number];
export const OUTCOME_SOURCES = ['csv', 'api', 'hubspot'] as const;
export type OutcomeSource = (typeof OUTCOME_SOURCES)[number];

export interface OutcomeInput {
  /** The day the renewal was decided, YYYY-MM-DD (not after today). */
  date: string;
  outcome: Outcome;
  /** MRR before the renewal, ≥ 0: required for `downgraded`. */
  mrrBefore?: number | null;
  /** MRR after it, ≥ 0: required for `downgraded`, and below mrrBefore there. */
  mrrAfter?: number | null;
}

export interface OutcomeView {
  id: string;
  clientId: string;
  date: string;
  outcome: Outcome;
  mrrBefore: number | null;
  mrrAfter: number | null;
  source: OutcomeSource;
  createdAt: string;
  updatedAt: string;
}

const isOutcome = (s: string): s is Outcome => (OUTCOMES as readonly string[]).includes(s);
const isSource = (s: string): s is OutcomeSource => (OUTCOME_SOURCES as readonly string[]).includes(s);

/** Checks an outcome; throws INVALID_INPUT naming what is wrong. `now`: an outcome is not in the future. */
export function validateOutcome(o: OutcomeInput, now: Date): void {
  if (!isValidDate(o.date)) throw new ChsError('INVALID_INPUT', `date must be a day YYYY-MM-DD, got "${o.date}"`);
  if (o.date > now.toISOString().slice(0, 10)) throw new ChsError('INVALID_INPUT', `date ${o.date} is in the future: an outcome is recorded once it happened`);
  if (!isOutcome(o.outcome)) throw new ChsError('INVALID_INPUT', `outcome must be one of ${OUTCOMES.join(', ')}, got "${String(o.outcome)}"`);
  for (const [name, v] of [
    ['mrrBefore', o.mrrBefore],
    ['mrrAfter', o.mrrAfter],
  ] as const) {
    if (v !== undefined && v !== null && (!Number.isFinite(v) || v < 0 || v > 1e12))
      throw new ChsError('INVALID_INPUT', `${name} must be a number ≥ 0, got ${v}`);
  }
  if (o.outcome === 'downgraded') {
    if (o.mrrBefore == null || o.mrrAfter == null) throw new ChsError('INVALID_INPUT', 'a downgrade needs mrrBefore and mrrAfter');
    if (o.mrrAfter >= o.mrrBefore)
      throw new ChsError('INVALID_INPUT', `a downgrade lowers the MRR: mrrAfter ${o.mrrAfter} is not below mrrBefore ${o.mrrBefore}`);
  }
}

function toView(r: ClientOutcomesTable): OutcomeView {
  if (!isOutcome(r.outcome) || !isSource(r.source)) throw new ChsError('INTERNAL', `stored outcome ${r.id} has outcome "${r.outcome}" from "${r.source}"`);
  return {
    id: r.id,
    clientId: r.client_id,
    date: r.date,
    outcome: r.outcome,
    mrrBefore: r.mrr_before === null ? null : Number(r.mrr_before),
    mrrAfter: r.mrr_after === null ? null : Number(r.mrr_after),
    source: r.source,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

async function clientOf(db: Kysely<Database>, workspaceId: string, clientId: string): Promise<void> {
  const row = await db.selectFrom('clients').select('id').where('id', '=', clientId).where('workspace_id', '=', workspaceId).executeTakeFirst();
  if (!row) throw new ChsError('CLIENT_NOT_FOUND', `client ${clientId} not found`);
}

/**
 * Writes one outcome (the client's outcome of that day is replaced), in one statement: two writers
 * of the same client and day at once both succeed, the later one's values kept.
 */
async function upsertOutcome(
  trx: Kysely<Database>,
  workspaceId: string,
  clientId: string,
  o: OutcomeInput,
  source: OutcomeSource,
  now: Date,
): Promise<{ row: ClientOutcomesTable; created: boolean }> {
  const at = now.toISOString();
  const values = { outcome: o.outcome, mrr_before: o.mrrBefore ?? null, mrr_after: o.mrrAfter ?? null, source, updated_at: at };
  const fresh: ClientOutcomesTable = { id: newId('out'), workspace_id: workspaceId, client_id: clientId, date: o.date, created_at: at, ...values };
  const row = await trx
    .insertInto('client_outcomes')
    .values(fresh)
    .onConflict((oc) => oc.columns(['client_id', 'date']).doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, created: row.id === fresh.id };
}

/** Records a client's outcome of a day (replacing the one it had that day); returns it and whether it is new. */
export async function recordOutcome(
  db: Db,
  workspaceId: string,
  clientId: string,
  o: OutcomeInput,
  source: OutcomeSource,
  now: Date = new Date(),
): Promise<{ outcome: OutcomeView; created: boolean }> {
  validateOutcome(o, now);
  return db.transaction().execute(async (trx) => {
    await clientOf(trx, workspaceId, clientId);
    const { row, created } = await upsertOutcome(trx, workspaceId, clientId, o, source, now);
    return { outcome: toView(row), created };
  });
}

/** What recording a CRM's outcome did: `kept` when the day's outcome was recorded by hand and stays. */
export type ProviderOutcomeChange = 'added' | 'updated' | 'unchanged' | 'kept';

/** The sources a sync records outcomes from (a CRM), as opposed to a person (csv, api). */
export type ProviderOutcomeSource = Extract<OutcomeSource, 'hubspot'>;

/** Sources a person records by: a CRM never replaces what they say. */
const BY_HAND: readonly string[] = ['csv', 'api'] satisfies OutcomeSource[];

/**
 * Records what a CRM says of a client's day, in the caller's transaction (a sync's batch): the
 * day's outcome is added, or replaced when the CRM recorded it (`updated`; `unchanged`, with
 * nothing written, when it already says the same). An outcome recorded by hand (CSV, API) that
 * day is `kept`: a person's correction (a downgrade with its MRR, say) outranks the CRM's won/lost.
 * Resolves to the id of the day's outcome. The client must be the workspace's (the caller found it).
 */
export async function recordProviderOutcome(
  trx: Kysely<Database>,
  workspaceId: string,
  clientId: string,
  o: OutcomeInput,
  source: ProviderOutcomeSource,
  now: Date,
): Promise<{ id: string; change: ProviderOutcomeChange }> {
  validateOutcome(o, now);
  const current = await trx.selectFrom('client_outcomes').selectAll().where('client_id', '=', clientId).where('date', '=', o.date).executeTakeFirst();
  if (current && current.workspace_id !== workspaceId) throw new ChsError('CLIENT_NOT_FOUND', `client ${clientId} not found`);
  if (current && BY_HAND.includes(current.source)) return { id: current.id, change: 'kept' };
  const same =
    current !== undefined &&
    current.source === source &&
    current.outcome === o.outcome &&
    (current.mrr_before === null ? null : Number(current.mrr_before)) === (o.mrrBefore ?? null) &&
    (current.mrr_after === null ? null : Number(current.mrr_after)) === (o.mrrAfter ?? null);
  if (same) return { id: current.id, change: 'unchanged' };
  const { row, created } = await upsertOutcome(trx, workspaceId, clientId, o, source, now);
  return { id: row.id, change: created ? 'added' : 'updated' };
}

/**
 * Withdraws an outcome a CRM recorded, in the caller's transaction (its deal reopened, moved to
 * another day or left our clients): deleted while it is still that source's; one a person
 * recorded over it since is kept. Resolves to whether it was deleted.
 */
export async function withdrawProviderOutcome(trx: Kysely<Database>, workspaceId: string, outcomeId: string, source: ProviderOutcomeSource): Promise<boolean> {
  const r = await trx
    .deleteFrom('client_outcomes')
    .where('id', '=', outcomeId)
    .where('workspace_id', '=', workspaceId)
    .where('source', '=', source)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** A client's outcomes, oldest first. */
export async function listClientOutcomes(db: Db, workspaceId: string, clientId: string): Promise<OutcomeView[]> {
  await clientOf(db, workspaceId, clientId);
  const rows = await db.selectFrom('client_outcomes').selectAll().where('client_id', '=', clientId).orderBy('date').execute();
  return rows.map(toView);
}

/** Every outcome of a workspace, oldest first (what the backtest reads). */
export async function listWorkspaceOutcomes(db: Db, workspaceId: string): Promise<OutcomeView[]> {
  const rows = await db.selectFrom('client_outcomes').selectAll().where('workspace_id', '=', workspaceId).orderBy('date').orderBy('client_id').execute();
  return rows.map(toView);
}

export const OUTCOME_CSV_COLUMNS = ['domain', 'clientId', 'date', 'outcome', 'mrrBefore', 'mrrAfter'] as const;
type Column = (typeof OUTCOME_CSV_COLUMNS)[number];

export interface OutcomeImportResult {
  /** Data rows read (blank lines are skipped). */
  rows: number;
  /** Outcomes recorded for a client and day that had none, and replaced. Both 0 when any row is bad. */
  created: number;
  updated: number;
  /** The bad rows, by line: when there is one, nothing is imported. */
  errors: { line: number; message: string }[];
}

function money(name: string, cell: string): number | null {
  if (cell === '') return null;
  const n = Number(cell.replace(/[_\s,$€£]/g, ''));
  if (!Number.isFinite(n)) throw new ChsError('INVALID_INPUT', `${name} must be a number, got "${cell}"`);
  return n;
}

/**
 * Imports outcomes from CSV text with a header row: `domain` or `clientId` (either, or both; a row
 * gives one), `date`, `outcome`, optional `mrrBefore` and `mrrAfter`, in any order. All or nothing:
 * every bad row is reported with its line (an unknown client, a bad date or outcome, a downgrade
 * without its MRR, the same client and day twice) and then nothing is written.
 */
export async function importOutcomesCsv(db: Db, workspaceId: string, csv: string, now: Date = new Date()): Promise<OutcomeImportResult> {
  const ws = await db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).executeTakeFirst();
  if (!ws) throw new ChsError('WORKSPACE_NOT_FOUND', `workspace ${workspaceId} not found`);
  const table = readCsvTable(csv, OUTCOME_CSV_COLUMNS);
  const { header, rows } = table;
  const columns = `columns: ${OUTCOME_CSV_COLUMNS.join(',')}`;
  if (!table.has('domain') && !table.has('clientId'))
    throw new ChsError('INVALID_INPUT', `line ${header.line}: the header needs a "domain" or a "clientId" column (${columns})`);
  for (const c of ['date', 'outcome'] as const) {
    if (!table.has(c)) throw new ChsError('INVALID_INPUT', `line ${header.line}: the header has no "${c}" column (${columns})`);
  }

  const result: OutcomeImportResult = { rows: rows.length, created: 0, updated: 0, errors: [] };
  const good: Array<{ clientId: string; input: OutcomeInput }> = [];
  const seen = new Map<string, number>();
  for (const row of rows) {
    const get = (c: Column): string => table.get(row, c);
    try {
      if (row.cells.length > header.cells.length) throw new ChsError('INVALID_INPUT', `${row.cells.length} cells for ${header.cells.length} columns`);
      const clientId = await rowClient(db, workspaceId, get('clientId'), get('domain'));
      const input: OutcomeInput = {
        date: get('date'),
        outcome: get('outcome').toLowerCase() as Outcome,
        mrrBefore: money('mrrBefore', get('mrrBefore')),
        mrrAfter: money('mrrAfter', get('mrrAfter')),
      };
      validateOutcome(input, now);
      const key = `${clientId}\u0000${input.date}`;
      const first = seen.get(key);
      if (first !== undefined) throw new ChsError('INVALID_INPUT', `the same client and day as line ${first}`);
      seen.set(key, row.line);
      good.push({ clientId, input });
    } catch (err) {
      if (!isChsError(err)) throw err;
      result.errors.push({ line: row.line, message: err.message });
    }
  }
  if (result.errors.length > 0) return result;
  await db.transaction().execute(async (trx) => {
    for (const g of good) {
      const { created } = await upsertOutcome(trx, workspaceId, g.clientId, g.input, 'csv', now);
      if (created) result.created++;
      else result.updated++;
    }
  });
  return result;
}

/** The client a CSV row names, by its id or by one of its domains (the id wins when both are given and agree). */
async function rowClient(db: Db, workspaceId: string, clientId: string, rawDomain: string): Promise<string> {
  let byDomain: string | null = null;
  if (rawDomain !== '') {
    const domain = registrableDomain(rawDomain);
    if (domain === null) throw new ChsError('INVALID_DOMAIN', `not a registrable domain: "${rawDomain}"`);
    byDomain = await findClientByDomain(db, workspaceId, domain);
    if (byDomain === null) throw new ChsError('CLIENT_NOT_FOUND', `no client of the workspace has the domain ${domain}`);
  }
  if (clientId === '') {
    if (byDomain === null) throw new ChsError('INVALID_INPUT', 'the row names no client: domain and clientId are empty');
    return byDomain;
  }
  await clientOf(db, workspaceId, clientId);
  if (byDomain !== null && byDomain !== clientId) throw new ChsError('INVALID_INPUT', `clientId ${clientId} and domain ${rawDomain} name different clients`);
  return clientId;
}
