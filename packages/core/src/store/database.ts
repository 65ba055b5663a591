import { mkdirSync } from 'node:fs';
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
export function withStatementCache(native: SqliteDatabase.Database, size: number = STATEMENT_CACHE_SIZE): SqliteDialectDatabase {
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
      return stmt;
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
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(native) }) });
  return {
    db,
    dialect: 'sqlite',
    location: file,
    close: () => db.destroy(),
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
