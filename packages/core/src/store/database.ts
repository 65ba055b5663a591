import { mkdirSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type MigrationResultSet, type SqliteDatabase as SqliteDialectDatabase } from 'kysely';
import { migrations } from './migrations/index.js';
import type { Database } from './schema.js';
import type { DialectName } from './dialect.js';
import { ChsError } from '../errors.js';

export type Db = Kysely<Database>;

export interface StoreOptions {
  /** A file path (SQLite; its folder is created) , `:memory:`, or a `postgres://` URL. */
  url: string;
  /** PostgreSQL pool size. Default 10. */
  poolSize?: number;
  /** PostgreSQL schema to use (created if absent); tests use one per test. Default `public`. */
  schema?: string;
}

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
  const store = isPostgresUrl(options.url) ? await openPostgres(options) : openSqlite(options.url);
  try {
    await migrateToLatest(store.db, store.schema);
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

/** Prepared statements kept per connection (least recently used dropped first). */
export const STATEMENT_CACHE_SIZE = 256;

/**
 * The better-sqlite3 connection as Kysely sees it, with its prepared statements reused by SQL
 * text. Kysely prepares every query afresh, and preparing (parsing and planning) was ~30% of the
 * SQLite time of a `GET /clients/{id}` under load. Safe: better-sqlite3 binds parameters per call,
 * SQLite re-prepares a statement whose schema changed, and nothing here streams (`iterate` on a
 * statement still being iterated would throw).
 */
export function withStatementCache(
  native: SqliteDatabase.Database,
  size: number = STATEMENT_CACHE_SIZE,
  onWrite?: () => void,
): SqliteDialectDatabase {
  const cache = new Map<string, SqliteDatabase.Statement>();
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
        stmt = native.prepare(sql);
        if (cache.size >= size) cache.delete(cache.keys().next().value as string);
      }
      cache.set(sql, stmt);
      // Kysely prepares every statement right before running it, in the same turn.
      if (onWrite && !stmt.readonly) onWrite();
      return stmt;
    },
  };
}

/** Writing statements run on one SQLite file by every connection of this process (see below). */
export interface WriteCounter {
  n: number;
}
const writeCounters = new Map<string, WriteCounter>();

/** The write counter shared by this process's connections to `file` (its real path); a new one for `:memory:`. */
export function sharedWriteCounter(file: string): WriteCounter {
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
export function sqliteDataVersion(native: SqliteDatabase.Database, writes: WriteCounter = { n: 0 }): { version: (freshness?: 'now' | 'turn') => string; onWrite: () => void } {
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

function openSqlite(url: string): Store {
  const file = url === ':memory:' ? url : resolve(url.replace(/^sqlite:(\/\/)?/i, ''));
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  let native: SqliteDatabase.Database;
  try {
    native = new SqliteDatabase(file);
  } catch (err) {
    throw new ChsError('DATABASE_UNREACHABLE', `cannot open SQLite database at ${file}: ${(err as Error).message}`, { cause: err });
  }
  native.pragma('journal_mode = WAL');
  native.pragma('synchronous = NORMAL');
  native.pragma('foreign_keys = ON');
  native.pragma('busy_timeout = 5000');
  const version = sqliteDataVersion(native, sharedWriteCounter(file));
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(native, STATEMENT_CACHE_SIZE, version.onWrite) }) });
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

/** int8 (counts, sums of integers) and numeric come back from `pg` as strings; we want numbers. */
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (v: string) => (v === null ? null : Number(v));
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

async function openPostgres(options: StoreOptions): Promise<Store> {
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw new ChsError('INVALID_INPUT', `invalid PostgreSQL schema name: ${schema}`);
  }
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    types: pgTypes,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Queries report their own errors.
  });
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
    throw new ChsError('MIGRATION_FAILED', `database migration failed: ${String((result.error as Error).message ?? result.error)}`, { cause: result.error });
  }
  return result;
}
