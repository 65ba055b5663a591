/**
 * What a database takes, by the database's own accounting, and the health history's share of it
 * per client-day. SQLite: the `dbstat` virtual table (the bytes of every page of each table's and
 * each index's b-tree, free space inside the pages included) and `page_count × page_size` for the
 * whole file. PostgreSQL: `pg_table_size` (heap, TOAST, free-space and visibility maps) and
 * `pg_indexes_size` per table, `pg_database_size` for the whole database.
 */
import { statSync } from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { isPostgresUrl } from '@chs/core';
import { MB, round } from './measure.js';
import { metric, type Metric } from './results.js';

/**
 * The tables that hold health history, indexes included in their bytes. Change this list when the
 * history's storage changes; a table that does not exist counts nothing and is reported as missing.
 */
export const HISTORY_TABLES: readonly string[] = ['health_snapshots', 'health_parts'];
/** The history table with one row per client and day: its row count is the client-days held. */
export const CLIENT_DAY_TABLE = 'health_snapshots';

interface TableSize {
  table: string;
  rows: number;
  /** The table itself (SQLite: its b-tree; PostgreSQL: heap, TOAST and maps). */
  tableBytes: number;
  /** Its indexes together. */
  indexBytes: number;
  totalBytes: number;
  indexes: Array<{ name: string; bytes: number }>;
}

export interface StorageReport {
  dialect: 'sqlite' | 'postgres';
  /** SQLite: page_count × page_size (free pages included); PostgreSQL: pg_database_size. */
  totalBytes: number;
  /** SQLite only: the files on disk (database, WAL). */
  fileBytes: number | null;
  /** Every table, largest first. */
  tables: TableSize[];
  history: {
    tables: string[];
    /** Tables of HISTORY_TABLES the database does not have. */
    missing: string[];
    tableBytes: number;
    indexBytes: number;
    bytes: number;
    /** Rows of CLIENT_DAY_TABLE; null when it is missing. */
    clientDays: number | null;
    /** History bytes (tables and indexes) ÷ client-days. */
    bytesPerClientDay: number | null;
  };
}

/** Sizes of the database at `url` (a SQLite file or a PostgreSQL URL); it is only read. */
export async function measureStorage(url: string): Promise<StorageReport> {
  const { dialect, totalBytes, fileBytes, tables } = isPostgresUrl(url) ? await postgresSizes(url) : sqliteSizes(url);
  tables.sort((a, b) => b.totalBytes - a.totalBytes);
  const present = tables.filter((t) => HISTORY_TABLES.includes(t.table));
  const tableBytes = present.reduce((a, t) => a + t.tableBytes, 0);
  const indexBytes = present.reduce((a, t) => a + t.indexBytes, 0);
  const clientDays = tables.find((t) => t.table === CLIENT_DAY_TABLE)?.rows ?? null;
  return {
    dialect,
    totalBytes,
    fileBytes,
    tables,
    history: {
      tables: present.map((t) => t.table),
      missing: HISTORY_TABLES.filter((name) => !present.some((t) => t.table === name)),
      tableBytes,
      indexBytes,
      bytes: tableBytes + indexBytes,
      clientDays,
      bytesPerClientDay: clientDays ? (tableBytes + indexBytes) / clientDays : null,
    },
  };
}

type Sizes = Pick<StorageReport, 'dialect' | 'totalBytes' | 'fileBytes' | 'tables'>;

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

function sqliteSizes(file: string): Sizes {
  const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    const pages = new Map<string, number>();
    for (const r of db.prepare('select name, sum(pgsize) as bytes from dbstat group by name').all() as Array<{ name: string; bytes: number }>)
      pages.set(r.name, r.bytes);
    const objects = db
      .prepare("select type, name, tbl_name from sqlite_schema where type in ('table', 'index') and name not like 'sqlite_stat%'")
      .all() as Array<{
      type: string;
      name: string;
      tbl_name: string;
    }>;
    const tables: TableSize[] = [];
    for (const t of objects.filter((o) => o.type === 'table' && o.name !== 'sqlite_sequence')) {
      // A virtual table (none today) has no pages of its own: skip it.
      if (!pages.has(t.name)) continue;
      const indexes = objects.filter((o) => o.type === 'index' && o.tbl_name === t.name).map((o) => ({ name: o.name, bytes: pages.get(o.name) ?? 0 }));
      const tableBytes = pages.get(t.name) ?? 0;
      const indexBytes = indexes.reduce((a, i) => a + i.bytes, 0);
      const rows = (db.prepare(`select count(*) as n from ${quoteIdent(t.name)}`).get() as { n: number }).n;
      tables.push({ table: t.name, rows, tableBytes, indexBytes, totalBytes: tableBytes + indexBytes, indexes });
    }
    const pageCount = db.pragma('page_count', { simple: true }) as number;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const onDisk = (f: string): number => {
      try {
        return statSync(f).size;
      } catch {
        return 0;
      }
    };
    return { dialect: 'sqlite', totalBytes: pageCount * pageSize, fileBytes: onDisk(file) + onDisk(`${file}-wal`), tables };
  } finally {
    db.close();
  }
}

async function postgresSizes(url: string): Promise<Sizes> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const total = await c.query<{ bytes: string }>('select pg_database_size(current_database()) as bytes');
    const rels = await c.query<{ table: string; oid: number; table_bytes: string; index_bytes: string }>(
      `select c.relname as table, c.oid, pg_table_size(c.oid) as table_bytes, pg_indexes_size(c.oid) as index_bytes
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p') and n.nspname = current_schema()`,
    );
    const idx = await c.query<{ table: string; name: string; bytes: string }>(
      `select t.relname as table, i.relname as name, pg_relation_size(i.oid) as bytes
         from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid join pg_namespace n on n.oid = t.relnamespace
        where n.nspname = current_schema()`,
    );
    const tables: TableSize[] = [];
    for (const r of rels.rows) {
      const rows = Number((await c.query<{ n: string }>(`select count(*) as n from ${quoteIdent(r.table)}`)).rows[0]!.n);
      const tableBytes = Number(r.table_bytes);
      const indexBytes = Number(r.index_bytes);
      const indexes = idx.rows.filter((i) => i.table === r.table).map((i) => ({ name: i.name, bytes: Number(i.bytes) }));
      tables.push({ table: r.table, rows, tableBytes, indexBytes, totalBytes: tableBytes + indexBytes, indexes });
    }
    return { dialect: 'postgres', totalBytes: Number(total.rows[0]!.bytes), fileBytes: null, tables };
  } finally {
    await c.end();
  }
}

/** Database size and history bytes per client-day, as metrics under `p`. */
export function storageMetrics(m: Record<string, Metric>, p: string, size: StorageReport): void {
  m[`${p}.db.totalMB`] = metric(round(size.totalBytes / MB), 'MB', 'memory', size.dialect === 'sqlite' ? 'page_count × page_size' : 'pg_database_size');
  m[`${p}.history.MB`] = metric(round(size.history.bytes / MB), 'MB', 'memory', `${size.history.tables.join(' + ')}, tables and indexes`);
  m[`${p}.history.indexMB`] = metric(round(size.history.indexBytes / MB), 'MB', 'memory', 'their indexes alone');
  if (size.history.clientDays !== null) m[`${p}.history.clientDays`] = metric(size.history.clientDays, 'client-days', 'count');
  if (size.history.bytesPerClientDay !== null)
    m[`${p}.history.bytesPerClientDay`] = metric(round(size.history.bytesPerClientDay, 0), 'B', 'memory', 'history tables and indexes ÷ client-days');
}
