/**
 * Test support: fresh databases on every dialect. Exported so the runner's tests use the same.
 *
 * PostgreSQL (127.0.0.1:5432, user postgres, trust auth, or CHS_TEST_PG_URL): each call gets a
 * fresh schema. In CI (`CI=true`) PostgreSQL is required: its absence is a failure, not a skip.
 * Elsewhere, when no server answers, PostgreSQL cases are left out with a printed message.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { openStore, type Store } from './database.js';

export const TEST_PG_URL = process.env.CHS_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDialect {
  name: 'sqlite' | 'postgres';
  /** A fresh, migrated, empty store. */
  open(): Promise<Store>;
  /** The URL (and schema) a child process can use to reach the same fresh database. */
  url(): Promise<{ url: string; schema?: string }>;
}

let pgAvailable: Promise<boolean> | undefined;

export function postgresAvailable(): Promise<boolean> {
  pgAvailable ??= (async () => {
    const client = new pg.Client({ connectionString: TEST_PG_URL, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query('select 1');
      return true;
    } catch (err) {
      if (process.env.CI === 'true') {
        throw new Error(`PostgreSQL is required in CI but ${TEST_PG_URL} did not answer: ${(err as Error).message}`, { cause: err });
      }
      console.warn(`[chs tests] PostgreSQL at ${TEST_PG_URL} did not answer; PostgreSQL cases are left out locally (they run in CI).`);
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return pgAvailable;
}

const created: string[] = [];

/**
 * The name every database this test run creates starts with: set once per run by the global setup
 * (vitest.global-setup.ts), which drops them all at the end. Outside such a run: `chs_test`.
 */
export const TEST_PG_RUN_ENV = 'CHS_TEST_PG_RUN';
function runPrefix(): string {
  const run = process.env[TEST_PG_RUN_ENV];
  return run !== undefined && /^[a-z0-9_]+$/.test(run) ? run : 'chs_test';
}

let fileDatabase: Promise<string> | undefined;

/**
 * The database this test file's schemas live in: one per test process, created on first use.
 * PostgreSQL keeps its catalog per database, and Kysely's migrator lists every table of the
 * database it migrates; with one database shared by the files that run side by side, a file
 * dropping its schemas made another file's migration fail now and then (42P01, 3F000, 42703,
 * naming the other file's schema). A database of its own per file removes that race.
 */
function testFileDatabase(): Promise<string> {
  fileDatabase ??= (async () => {
    const name = `${runPrefix()}_${randomBytes(6).toString('hex')}`;
    await withAdmin((c) => c.query(`create database ${name}`));
    return pgUrlFor(name);
  })();
  return fileDatabase;
}

function newSchema(): string {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  created.push(schema);
  return schema;
}

export const sqliteDialect: TestDialect = {
  name: 'sqlite',
  open: () => openStore({ url: ':memory:' }),
  url: async () => ({ url: `/tmp/chs-test-${randomBytes(6).toString('hex')}/chs.db` }),
};

export const postgresDialect: TestDialect = {
  name: 'postgres',
  async open() {
    return openStore({ url: await testFileDatabase(), schema: newSchema(), poolSize: 4 });
  },
  async url() {
    return { url: await testFileDatabase(), schema: newSchema() };
  },
};

/**
 * The dialect a test uses when it does not loop over every dialect (HTTP tests through
 * `startTestApp`, spawned `chs` processes): SQLite, or PostgreSQL when `CHS_TEST_DATABASE=postgres`
 * (the second pass of `.ci/run`). Default SQLite.
 */
export function defaultTestDialectName(): 'sqlite' | 'postgres' {
  const v = process.env.CHS_TEST_DATABASE;
  if (v === undefined || v === '' || v === 'sqlite') return 'sqlite';
  if (v === 'postgres') return 'postgres';
  throw new Error(`CHS_TEST_DATABASE must be sqlite or postgres, got "${v}"`);
}

/** `sqliteDialect`, or `postgresDialect` when `CHS_TEST_DATABASE=postgres`. */
export function defaultTestDialect(): TestDialect {
  return defaultTestDialectName() === 'postgres' ? postgresDialect : sqliteDialect;
}

export interface TestDatabase {
  /** What `--db` / `CHS_DATABASE_URL` takes: a SQLite file path, or a `postgres://` URL of a fresh database. */
  url: string;
  dialect: 'sqlite' | 'postgres';
  /** Removes it (PostgreSQL: drops the database, ending any session still on it). */
  drop(): Promise<void>;
}

/** Where the SQLite file of a `TestDatabase` goes: a fresh folder under the system temp dir. */
function tempSqliteFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'chs-testdb-')), 'chs.db');
}

/** `TEST_PG_URL` with another database name (and optional query parameters such as application_name). */
export function pgUrlFor(database: string, params: Record<string, string> = {}): string {
  const u = new URL(TEST_PG_URL);
  u.pathname = `/${database}`;
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

/**
 * A fresh, empty database a child process (`chs` spawned by a test) can open by URL; not migrated.
 * PostgreSQL gets a whole database (`CREATE DATABASE <run>_<random>`), since the CLI takes a
 * URL and no schema. Default dialect: `defaultTestDialectName()`.
 */
export async function createTestDatabase(dialect: 'sqlite' | 'postgres' = defaultTestDialectName()): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const url = tempSqliteFile();
    return { url, dialect, drop: async () => rmSync(dirname(url), { recursive: true, force: true }) };
  }
  if (!(await postgresAvailable())) throw new Error(`PostgreSQL at ${TEST_PG_URL} did not answer`);
  const name = `${runPrefix()}_${randomBytes(6).toString('hex')}`;
  await withAdmin((c) => c.query(`create database ${name}`));
  return {
    url: pgUrlFor(name),
    dialect,
    drop: () => withAdmin((c) => c.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}

async function withAdmin<T>(fn: (c: pg.Client) => Promise<T>, url: string = TEST_PG_URL): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * The dialects to run a suite over: SQLite always, PostgreSQL when it answers (always in CI).
 * With CHS_TEST_DATABASE=postgres (the PostgreSQL pass of `.ci/run`, after a pass that already
 * covered both), PostgreSQL only.
 */
export async function testDialects(): Promise<TestDialect[]> {
  if (defaultTestDialectName() === 'postgres') {
    if (!(await postgresAvailable())) throw new Error(`CHS_TEST_DATABASE=postgres but PostgreSQL at ${TEST_PG_URL} did not answer`);
    return [postgresDialect];
  }
  return (await postgresAvailable()) ? [sqliteDialect, postgresDialect] : [sqliteDialect];
}

/** Drops one schema made by `postgresDialect` (a test that closes its store early). */
export async function dropTestSchema(schema: string): Promise<void> {
  const i = created.indexOf(schema);
  if (i < 0) return;
  created.splice(i, 1);
  await withAdmin((c) => c.query(`drop schema if exists ${schema} cascade`), await testFileDatabase());
}

/** Drops the schemas made by `postgresDialect` in this process. */
export async function dropTestSchemas(): Promise<void> {
  if (created.length === 0) return;
  const schemas = created.splice(0);
  await withAdmin(
    async (c) => {
      for (const s of schemas) await c.query(`drop schema if exists ${s} cascade`);
    },
    await testFileDatabase(),
  );
}

/** Drops every database this test run created (the global teardown; sessions still open are ended). */
export async function dropTestRunDatabases(run: string): Promise<void> {
  if (!/^[a-z0-9_]+$/.test(run)) throw new Error(`bad test run name: ${run}`);
  await withAdmin(async (c) => {
    const { rows } = await c.query<{ datname: string }>(`select datname from pg_database where datname like $1`, [`${run}\\_%`]);
    for (const { datname } of rows) await c.query(`drop database if exists ${datname} with (force)`);
  });
}

/** A write lock on a SQLite file held by another process (see {@link holdSqliteWriteLock}). */
export interface HeldSqliteLock {
  /** Resolves when the holder has committed and exited. */
  released: Promise<void>;
  /** Ends the holder now (its transaction is rolled back). */
  kill(): void;
}

/**
 * Another process takes the write lock of the SQLite database `file` (`begin immediate` and one
 * insert into `blocklist` for `workspaceId`, which must exist), holds it `holdMs`, then commits.
 * Resolves once the lock is held.
 */
export function holdSqliteWriteLock(file: string, workspaceId: string, holdMs: number): Promise<HeldSqliteLock> {
  const script = `
    const db = new (require('better-sqlite3'))(process.argv[1]);
    db.exec('begin immediate');
    db.prepare('insert into blocklist (workspace_id, entry, created_at) values (?, ?, ?)').run(process.argv[2], 'held.example', '2025-01-01');
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('commit'); db.close(); }, Number(process.argv[3]));
  `;
  const child = spawn(process.execPath, ['-e', script, file, workspaceId, String(holdMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const released = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes('locked')) resolve({ released, kill: () => child.kill() });
    });
    child.on('exit', (code) => reject(new Error(`the lock holder exited (${code}) before taking the lock`)));
  });
}
