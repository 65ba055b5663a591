import { closeSync, mkdirSync, openSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type MigrationResultSet, type SqliteDatabase as SqliteDialectDatabase } from 'kysely';
import { migrations } from './migrations/index.js';
import type { Database } from './schema.js';
import type { DialectName } from './dialect.js';
import { ChsError, isChsError } from '../errors.js';

export type Db = Kysely<Database>;

export interface StoreOptions {
  /** A file path (SQLite; its folder is created) , `:memory:`, or a `postgres://` URL. */
  url: string;
  /** PostgreSQL pool size. Default 10. */
  poolSize?: number;
  /** PostgreSQL schema to use (created if absent); tests use one per test. Default `public`. */
  schema?: string;
  /**
   * SQLite: how long a statement waits for a lock another process holds before it fails with
   * DATABASE_BUSY. Default 5000 (DEFAULT_BUSY_TIMEOUT_MS).
   */
  busyTimeoutMs?: number;
}

/** StoreOptions.busyTimeoutMs when unset. */
const DEFAULT_BUSY_TIMEOUT_MS = 5000;

export interface Store {
  readonly db: Db;
  readonly dialect: DialectName;
  /** The resolved location, with any password removed (safe to print). */
  readonly location: string;
  /** PostgreSQL schema in use, when not the default. */
  readonly schema?: string;
  /**
   * A value that changes whenever the stored data may have changed since it was last returned,
   * by this process or by any other connection to the same database; undefined when the dialect
   * cannot tell cheaply (PostgreSQL: every read goes to the database). Read it *before* reading
   * the data an answer is computed from: an answer is current for as long as the value is the same.
   *
   * `'turn'`: other processes' commits are looked for at most once per turn of the event loop
   * (until the next `setImmediate`), for callers handling many requests that arrive in one turn;
   * writes by this process (any of its connections to the database) always show. A request whose
   * first byte was sent after another process's commit returned is read in a later turn than that
   * commit, so it still sees it.
   */
  dataVersion(freshness?: 'now' | 'turn'): string | undefined;
  close(): Promise<void>;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** Opens the store and runs every pending migration. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const store = isPostgresUrl(options.url) ? await openPostgres(options) : openSqlite(options.url, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS);
  try {
    await migrateToLatest(store.db, store.schema);
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

/** Prepared statements kept per connection (least recently used dropped first). */
const STATEMENT_CACHE_SIZE = 256;

/**
 * The better-sqlite3 connection as Kysely sees it, with its prepared statements reused by SQL
 * text. Kysely prepares every query afresh, and preparing (parsing and planning) was ~30% of the
 * SQLite time of a `GET /clients/{id}` under load. Safe: better-sqlite3 binds parameters per call,
 * SQLite re-prepares a statement whose schema changed, and nothing here streams (`iterate` on a
 * statement still being iterated would throw).
 */
export function withStatementCache(
  native: NativeSqlite,
  size: number = STATEMENT_CACHE_SIZE,
  onWrite?: () => void,
  describe: SqliteFaultContext = { file: native.name, busyTimeoutMs: DEFAULT_BUSY_TIMEOUT_MS },
): SqliteDialectDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => {
      cache.clear();
      native.close();
    },
    prepare(sql: string) {
      let stmt = cache.get(sql);
      if (stmt) {
        cache.delete(sql);
      } else {
        stmt = translatedStatement(native, sql, describe);
        if (cache.size >= size) cache.delete(cache.keys().next().value as string);
      }
      cache.set(sql, stmt);
      // Kysely prepares every statement right before running it, in the same turn.
      if (onWrite && !stmt.readonly) onWrite();
      return stmt;
    },
  };
}

/** What a SQLite fault message names: the file, and how long a lock was waited for. */
export interface SqliteFaultContext {
  file: string;
  busyTimeoutMs: number;
}

type SqliteStatement = ReturnType<SqliteDialectDatabase['prepare']> & { readonly readonly: boolean };

/**
 * The part of a better-sqlite3 connection the statement cache uses, declared here as Kysely
 * declares its `SqliteDatabase`: the engine's published types then name nothing of
 * better-sqlite3's, whose types (`@types/better-sqlite3`) an embedder does not install.
 */
interface NativeSqlite {
  readonly name: string;
  readonly inTransaction: boolean;
  close(): unknown;
  prepare(sql: string): SqliteStatement;
}

/**
 * SQLite's faults as the engine's typed errors: SQLITE_FULL (the disk, or the database's size
 * limit, is full) → STORAGE_FULL; SQLITE_BUSY / SQLITE_LOCKED (another connection holds the lock
 * past the busy timeout) → DATABASE_BUSY. Anything else is returned as it is.
 */
function translateSqliteError(err: unknown, where: SqliteFaultContext): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return err;
  if (code === 'SQLITE_FULL') {
    return new ChsError(
      'STORAGE_FULL',
      `the disk holding the SQLite database ${where.file} is full (SQLITE_FULL): the batch being written was not stored; free some space and run again (an ingestion resumes where it stopped)`,
      { cause: err },
    );
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new ChsError(
      'DATABASE_BUSY',
      `the SQLite database ${where.file} is locked by another process (${code}); gave up after waiting ${where.busyTimeoutMs} ms (CHS_SQLITE_BUSY_TIMEOUT_MS); nothing was written, try again`,
      { cause: err },
    );
  }
  return err;
}

function translatedStatement(native: NativeSqlite, sql: string, where: SqliteFaultContext): SqliteStatement {
  let stmt: SqliteStatement;
  try {
    stmt = native.prepare(sql);
  } catch (err) {
    throw translateSqliteError(err, where);
  }
  // After SQLITE_FULL or SQLITE_BUSY, SQLite may have rolled the transaction back itself; the
  // ROLLBACK Kysely then sends would fail and hide the fault the caller needs to see.
  const isRollback = /^\s*rollback\s*$/i.test(sql);
  // Plain try/catch per call (no closure): this is every query's path.
  return {
    reader: stmt.reader,
    readonly: stmt.readonly,
    all(parameters: ReadonlyArray<unknown>) {
      try {
        return stmt.all(parameters);
      } catch (err) {
        throw translateSqliteError(err, where);
      }
    },
    run(parameters: ReadonlyArray<unknown>) {
      if (isRollback && !native.inTransaction) return { changes: 0, lastInsertRowid: 0 };
      try {
        return stmt.run(parameters);
      } catch (err) {
        throw translateSqliteError(err, where);
      }
    },
    iterate(parameters: ReadonlyArray<unknown>) {
      try {
        return stmt.iterate(parameters);
      } catch (err) {
        throw translateSqliteError(err, where);
      }
    },
  };
}

/** Writing statements run on one SQLite file by every connection of this process (see below). */
interface WriteCounter {
  n: number;
}
const writeCounters = new Map<string, WriteCounter>();

/** The write counter shared by this process's connections to `file` (its real path); a new one for `:memory:`. */
function sharedWriteCounter(file: string): WriteCounter {
  if (file === ':memory:') return { n: 0 };
  let key = file;
  try {
    key = realpathSync(file);
  } catch {
    // Not created yet: its resolved path is its name.
  }
  let counter = writeCounters.get(key);
  if (!counter) {
    counter = { n: 0 };
    writeCounters.set(key, counter);
  }
  return counter;
}

/**
 * `Store.dataVersion` for SQLite: a count of the writing statements run by this process's
 * connections to the file (bumped as each one is prepared to run; shared, so a write by another
 * engine in this process shows at once) and SQLite's `PRAGMA data_version`, which changes when
 * another connection commits, other processes' included. The pragma starts a read transaction
 * (file locks: a few system calls, ~2 µs alone, several times that under load), hence the `'turn'`
 * mode, which reads it at most once per turn of the event loop: another *process* can only make a
 * request arrive here through I/O, which is handled in a later turn than its commit.
 */
function sqliteDataVersion(
  native: SqliteDatabase.Database,
  writes: WriteCounter = { n: 0 },
): { version: (freshness?: 'now' | 'turn') => string; onWrite: () => void } {
  const pragma = native.prepare('pragma data_version').pluck();
  let thisTurn: number | undefined;
  const forget = (): void => {
    thisTurn = undefined;
  };
  return {
    version: (freshness = 'now') => {
      let others: number;
      if (freshness === 'turn') {
        if (thisTurn === undefined) {
          thisTurn = pragma.get() as number;
          setImmediate(forget);
        }
        others = thisTurn;
      } else {
        others = pragma.get() as number;
      }
      return `${others}.${writes.n}`;
    },
    onWrite: () => {
      writes.n++;
    },
  };
}

function openSqlite(url: string, busyTimeoutMs: number): Store {
  const file = url === ':memory:' ? url : resolve(url.replace(/^sqlite:(\/\/)?/i, ''));
  if (file !== ':memory:') createPrivately(file);
  let native: SqliteDatabase.Database;
  try {
    native = new SqliteDatabase(file);
  } catch (err) {
    throw new ChsError('DATABASE_UNREACHABLE', `cannot open SQLite database at ${file}: ${(err as Error).message}`, { cause: err });
  }
  const where: SqliteFaultContext = { file, busyTimeoutMs };
  try {
    // First: the pragmas below may need a lock another process holds.
    native.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    native.pragma('journal_mode = WAL');
    native.pragma('synchronous = NORMAL');
    // Checkpoint the WAL into the database every ~40 MB rather than SQLite's 4 MB: a bulk write
    // (an ingest, a health rebuild's 180,000 snapshots) otherwise checkpoints on a commit every
    // few batches; 10,000 pages cut the commits' share of a rebuild's writing from 36 % to 26 %.
    native.pragma('wal_autocheckpoint = 10000');
    native.pragma('foreign_keys = ON');
  } catch (err) {
    native.close();
    throw translateSqliteError(err, where);
  }
  const version = sqliteDataVersion(native, sharedWriteCounter(file));
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(native, STATEMENT_CACHE_SIZE, version.onWrite, where) }) });
  if (file !== ':memory:') sqliteFiles.set(db, where);
  let open = true;
  return {
    db,
    dialect: 'sqlite',
    location: file,
    // After close the pragma cannot run; nothing may be cached against a closed store either.
    dataVersion: (freshness) => (open ? version.version(freshness) : undefined),
    close: () => {
      open = false;
      return db.destroy();
    },
  };
}

/** The file behind each SQLite store opened here (not `:memory:`), for readers of their own (openSqliteReader). */
const sqliteFiles = new WeakMap<Db, SqliteFaultContext>();

/** Where a PostgreSQL store is: its URL (with any password: kept in memory, never printed) and schema. */
interface PostgresLocation {
  url: string;
  schema?: string;
}

/** The database behind each PostgreSQL store opened here, for readers of their own in another thread (openPostgresReader). */
const postgresLocations = new WeakMap<Db, PostgresLocation>();

/** Where another thread may open a reader of its own on the same store: a SQLite file or a PostgreSQL database. */
export type StoreLocation = { sqlite: SqliteFaultContext } | { postgres: PostgresLocation };

/** The location of a store's `db` for a reader in another thread; undefined for SQLite `:memory:` and for a `db` not opened by openStore. */
export function storeLocationOf(db: Db): StoreLocation | undefined {
  const file = sqliteFiles.get(db);
  if (file) return { sqlite: file };
  const pgAt = postgresLocations.get(db);
  return pgAt ? { postgres: pgAt } : undefined;
}

/** A reader of its own on a store's database (openSqliteReader, openPostgresReader), closed by destroying it. */
export async function openStoreReader(at: StoreLocation): Promise<Db> {
  return 'sqlite' in at ? openSqliteReader(at.sqlite) : openPostgresReader(at.postgres);
}

/**
 * A read-only connection of its own to a SQLite store's file, no migration run (the store that
 * owns the file ran them): for a thread that reads beside the store's own (health/score-thread.ts).
 * WAL mode lets it read while the store writes; each statement reads the latest commit. It lasts
 * as long as the thread that opened it.
 */
function openSqliteReader(where: SqliteFaultContext): Db {
  let native: SqliteDatabase.Database;
  try {
    native = new SqliteDatabase(where.file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new ChsError('DATABASE_UNREACHABLE', `cannot open SQLite database at ${where.file}: ${(err as Error).message}`, { cause: err });
  }
  native.pragma(`busy_timeout = ${Math.max(0, Math.floor(where.busyTimeoutMs))}`);
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(native, STATEMENT_CACHE_SIZE, undefined, where) }) });
}

/**
 * The database file holds customer mail and API key hashes: created 0600 (its -wal and -shm take
 * the database file's mode: SQLite's unix VFS copies it), in a folder created 0700. An existing
 * file keeps its mode; the runner warns when it is wider.
 */
function createPrivately(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new ChsError('DATABASE_UNREACHABLE', `cannot create SQLite database at ${file}: ${(err as Error).message}`, { cause: err });
    }
  }
}

/** int8 (counts, sums of integers) and numeric come back from `pg` as strings; we want numbers. */
function pgTypes(driver: typeof pg): pg.CustomTypesConfig {
  const types = {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === 20 || oid === 1700) return (v: string) => (v === null ? null : Number(v));
      return driver.types.getTypeParser(oid, format) as (value: string) => unknown;
    },
  };
  return types;
}

/** A pool of connections to a PostgreSQL store (`schema` as the search path). */
async function postgresPool(url: string, schema: string | undefined, max: number): Promise<pg.Pool> {
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw new ChsError('INVALID_INPUT', `invalid PostgreSQL schema name: ${schema}`);
  }
  // Loaded only for a PostgreSQL store: SQLite users never pay for the driver's start-up.
  const { default: driver } = await import('pg');
  const pool = new driver.Pool({
    connectionString: url,
    max,
    types: pgTypes(driver),
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Queries report their own errors.
  });
  // A client checked out of the pool (a transaction between two statements, a job holding it)
  // whose connection dies emits 'error' too, and with no listener that ends the process: a
  // database restart would take every runner down. Its current or next query fails instead, the
  // caller sees that error, and the broken client is not returned to the pool for reuse.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  return pool;
}

/**
 * A connection of its own to a PostgreSQL store, no migration run (the store that owns the
 * database ran them): for a thread that reads beside the store's own (health/score-thread.ts).
 * Each statement reads the latest commit. Destroying the returned `db` closes it.
 */
async function openPostgresReader(at: PostgresLocation): Promise<Db> {
  const pool = await postgresPool(at.url, at.schema, 1);
  try {
    (await pool.connect()).release();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new ChsError('DATABASE_UNREACHABLE', `cannot connect to PostgreSQL at ${redactUrl(at.url)}: ${(err as Error).message}`, { cause: err });
  }
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

async function openPostgres(options: StoreOptions): Promise<Store> {
  const schema = options.schema;
  const pool = await postgresPool(options.url, schema, options.poolSize ?? 10);
  try {
    const client = await pool.connect();
    try {
      if (schema) await client.query(`create schema if not exists ${schema}`);
    } finally {
      client.release();
    }
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new ChsError('DATABASE_UNREACHABLE', `cannot connect to PostgreSQL at ${redactUrl(options.url)}: ${(err as Error).message}`, { cause: err });
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  postgresLocations.set(db, { url: options.url, ...(schema ? { schema } : {}) });
  return {
    db,
    dialect: 'postgres',
    location: redactUrl(options.url) + (schema ? ` (schema ${schema})` : ''),
    ...(schema ? { schema } : {}),
    dataVersion: () => undefined,
    close: () => db.destroy(),
  };
}

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

/**
 * Runs pending migrations. Kysely's Migrator takes a lock (an advisory lock on PostgreSQL), so
 * several runners starting at once migrate once.
 */
export async function migrateToLatest(db: Db, schema?: string): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const result = await migrator.migrateToLatest();
  if (result.error) {
    // A full disk or a lock held elsewhere says what to do better than "migration failed".
    if (isChsError(result.error, 'STORAGE_FULL') || isChsError(result.error, 'DATABASE_BUSY')) throw result.error;
    throw new ChsError('MIGRATION_FAILED', `database migration failed: ${String((result.error as Error).message ?? result.error)}`, { cause: result.error });
  }
  return result;
}
