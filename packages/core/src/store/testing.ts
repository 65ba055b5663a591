/**
 * Test support: fresh databases on every dialect. Exported so the runner's tests use the same.
 *
 * PostgreSQL (127.0.0.1:5432, user postgres, trust auth, or CHS_TEST_PG_URL): each call gets a
 * fresh schema. In CI (`CI=true`) PostgreSQL is required: its absence is a failure, not a skip.
 * Elsewhere, when no server answers, PostgreSQL cases are left out with a printed message.
 */
import { randomBytes } from 'node:crypto';
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
        throw new Error(`PostgreSQL is required in CI but ${TEST_PG_URL} did not answer: ${(err as Error).message}`);
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

export const sqliteDialect: TestDialect = {
  name: 'sqlite',
  open: () => openStore({ url: ':memory:' }),
  url: async () => ({ url: `/tmp/chs-test-${randomBytes(6).toString('hex')}/chs.db` }),
};

export const postgresDialect: TestDialect = {
  name: 'postgres',
  async open() {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    created.push(schema);
    return openStore({ url: TEST_PG_URL, schema, poolSize: 4 });
  },
  async url() {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    created.push(schema);
    return { url: TEST_PG_URL, schema };
  },
};

/** The dialects to run a suite over: SQLite always, PostgreSQL when it answers (always in CI). */
export async function testDialects(): Promise<TestDialect[]> {
  return (await postgresAvailable()) ? [sqliteDialect, postgresDialect] : [sqliteDialect];
}

/** Drops the schemas made by `postgresDialect` in this process. */
export async function dropTestSchemas(): Promise<void> {
  if (created.length === 0) return;
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    for (const s of created.splice(0)) await client.query(`drop schema if exists ${s} cascade`);
  } finally {
    await client.end();
  }
}
