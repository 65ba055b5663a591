/**
 * CSV import of client attributes (`chs clients import`). Columns, by header name in any order:
 * domain (required), name, mrr, renewalDate, csmOwner, isExcluded. An empty cell leaves the
 * attribute unchanged. An unknown domain creates the client. A bad row is reported with its line
 * number and skipped; the good rows are kept.
 */
import type { Db } from '../store/database.js';
import { ChsError, isChsError } from '../errors.js';
import { isFreeMailDomain, registrableDomain } from '../resolve/domains.js';
import { activateClient, applyClientAttributes, createClient, findClientByDomain, validateAttributes, type ClientAttributes } from './attributes.js';

export const CSV_COLUMNS = ['domain', 'name', 'mrr', 'renewalDate', 'csmOwner', 'isExcluded'] as const;

export interface CsvImportResult {
  /** Data rows read (blank lines are skipped). */
  rows: number;
  created: number;
  updated: number;
  errors: { line: number; message: string }[];
}

/** Parses RFC 4180 CSV (quoted fields, doubled quotes, CRLF or LF); returns rows with their line number. */
export function parseCsv(text: string): { line: number; cells: string[] }[] {
  const out: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (let i = 0; i < src.length; i++) {
    const ch = src[i];
    if (quoted) {
      if (ch === '"') {
        if (src[i + 1] === '"') {
          cell += '"';
          i++;
        } else quoted = false;
      } else {
        if (ch === '\n') line++;
        cell += ch;
      }
    } else if (ch === '"' && cell === '') quoted = true;
    else if (ch === ',') {
      cells.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && src[i + 1] === '\n') i++;
      cells.push(cell);
      out.push({ line: rowLine, cells });
      cells = [];
      cell = '';
      line++;
      rowLine = line;
    } else cell += ch;
  }
  if (cell !== '' || cells.length > 0) {
    cells.push(cell);
    out.push({ line: rowLine, cells });
  }
  return out.filter((r) => !(r.cells.length === 1 && r.cells[0]?.trim() === ''));
}

/** A CSV's data rows under its header, and each row's cell of a column by name (case-insensitive; '' when absent). */
export interface CsvTable<C extends string> {
  header: { line: number; cells: string[] };
  rows: { line: number; cells: string[] }[];
  has(column: C): boolean;
  get(row: { cells: string[] }, column: C): string;
}

/**
 * Parses CSV text with a header row whose columns must all be among `columns`; throws INVALID_INPUT
 * for an empty text or an unknown column (naming the line and the columns it takes).
 */
export function readCsvTable<C extends string>(csv: string, columns: readonly C[]): CsvTable<C> {
  const rows = parseCsv(csv);
  const header = rows.shift();
  if (!header) throw new ChsError('INVALID_INPUT', 'the CSV is empty: expected a header row');
  const index = new Map<string, number>();
  header.cells.forEach((h, i) => index.set(h.trim().toLowerCase(), i));
  const unknown = header.cells.map((h) => h.trim()).filter((h) => h && !columns.some((c) => c.toLowerCase() === h.toLowerCase()));
  if (unknown.length) throw new ChsError('INVALID_INPUT', `line ${header.line}: unknown column(s) ${unknown.join(', ')} (columns: ${columns.join(',')})`);
  return {
    header,
    rows,
    has: (c) => index.has(c.toLowerCase()),
    get: (row, c) => {
      const i = index.get(c.toLowerCase());
      return i === undefined ? '' : (row.cells[i] ?? '').trim();
    },
  };
}

const TRUE = new Set(['true', '1', 'yes', 'y']);
const FALSE = new Set(['false', '0', 'no', 'n']);

function rowAttributes(get: (c: (typeof CSV_COLUMNS)[number]) => string): ClientAttributes {
  const a: ClientAttributes = {};
  const name = get('name');
  if (name) a.name = name;
  const mrr = get('mrr');
  if (mrr) {
    const n = Number(mrr.replace(/[_\s]/g, ''));
    if (!Number.isFinite(n) || n < 0) throw new ChsError('INVALID_INPUT', `mrr must be a number ≥ 0, got "${mrr}"`);
    a.mrr = n;
  }
  const renewal = get('renewalDate');
  if (renewal) a.renewalDate = renewal;
  const owner = get('csmOwner');
  if (owner) a.csmOwner = owner;
  const excluded = get('isExcluded').toLowerCase();
  if (excluded) {
    if (TRUE.has(excluded)) a.isExcluded = true;
    else if (FALSE.has(excluded)) a.isExcluded = false;
    else throw new ChsError('INVALID_INPUT', `isExcluded must be true or false, got "${excluded}"`);
  }
  validateAttributes(a);
  return a;
}

export async function importClientsCsv(db: Db, workspaceId: string, csv: string, now: Date = new Date()): Promise<CsvImportResult> {
  const ws = await db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).executeTakeFirst();
  if (!ws) throw new ChsError('WORKSPACE_NOT_FOUND', `workspace ${workspaceId} not found`);
  const table = readCsvTable(csv, CSV_COLUMNS);
  const { header, rows } = table;
  if (!table.has('domain')) throw new ChsError('INVALID_INPUT', `line ${header.line}: the header has no "domain" column (columns: ${CSV_COLUMNS.join(',')})`);

  const own = await db.selectFrom('workspace_domains').select('domain').where('workspace_id', '=', workspaceId).execute();
  const ownDomains = new Set([workspaceId, ...own.map((d) => d.domain)]);
  const result: CsvImportResult = { rows: rows.length, created: 0, updated: 0, errors: [] };
  for (const row of rows) {
    const get = (c: (typeof CSV_COLUMNS)[number]): string => table.get(row, c);
    try {
      if (row.cells.length > header.cells.length) throw new ChsError('INVALID_INPUT', `${row.cells.length} cells for ${header.cells.length} columns`);
      const rawDomain = get('domain');
      if (!rawDomain) throw new ChsError('INVALID_INPUT', 'domain is empty');
      const domain = registrableDomain(rawDomain);
      if (domain === null) throw new ChsError('INVALID_DOMAIN', `not a registrable domain: "${rawDomain}"`);
      // Free mail and our own domains never become clients (README, "How ingestion works, and what it decides").
      if (isFreeMailDomain(domain)) throw new ChsError('INVALID_DOMAIN', `${domain} is a free-mail domain and cannot be a client`);
      if (ownDomains.has(domain)) throw new ChsError('INVALID_DOMAIN', `${domain} is the workspace's own domain`);
      const attrs = rowAttributes(get);
      const created = await db.transaction().execute(async (trx) => {
        let id = await findClientByDomain(trx, workspaceId, domain);
        // A domain our mail only suggested becomes a client when the team's own list names it.
        const isNew = id === null || (await activateClient(trx, workspaceId, id, 'manual', now));
        id ??= await createClient(trx, workspaceId, domain, attrs.name, now);
        await applyClientAttributes(trx, workspaceId, id, attrs, now);
        return isNew;
      });
      if (created) result.created++;
      else result.updated++;
    } catch (err) {
      if (!isChsError(err)) throw err;
      result.errors.push({ line: row.line, message: err.message });
    }
  }
  return result;
}
