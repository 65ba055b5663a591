/**
 * What a user of `chs` sees when the SQLite store fails (SQLite only: PostgreSQL has neither the
 * database file nor its locks) or its files are readable by others. The lock and the file-mode
 * cases run the built binary (`npx tsc -b` first; `npm test` does), so the environment
 * variables are read as in production.
 */
import { chmodSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createEngine, createWorkspace, loadOrCreateSecretKey, openStore } from '@chs/core';
import { holdSqliteWriteLock } from '@chs/core/testing';
import { fixturePath, SCENARIO_FIXTURE } from '@chs/fixtures';
import { loadConfig } from '../../config.js';
import type { CliContext } from '../context.js';
import { main } from '../main.js';
import { chs, type Env } from '../../jobs/testing.js';

const truth = JSON.parse(readFileSync(fixturePath(SCENARIO_FIXTURE.truth), 'utf8')) as { messages: number; interactions: number; workspaceDomain: string };
const WS = truth.workspaceDomain;

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}

/** `chs` (the built binary) with this process's environment minus the settings a developer may have set. */
const run = (env: Env, ...args: string[]) => chs({ ...(process.env as Env), CHS_DATABASE_URL: '', CHS_DATA_DIR: '', CHS_SECRET_KEY: '', ...env }, ...args);

async function newDatabase(): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'chs-faults-')), 'chs.db');
  const engine = await createEngine({ database: file });
  await createWorkspace(engine.store.db, { domain: WS, name: 'Northwind', ownerEmail: `lead@${WS}` });
  await engine.close();
  return file;
}

describe('chs and a failing SQLite store (SQLite only)', () => {
  it('disk full: one line with STORAGE_FULL and exit 1, nothing of the batch stored; the next run stores every message once', async () => {
    const file = await newDatabase();
    /** `chs` with the database limited to `extraPages` more pages than it has (SQLITE_FULL past them), like a nearly full disk. */
    const context = (extraPages?: number) => {
      const stdout = new Capture();
      const stderr = new Capture();
      const ctx: CliContext = {
        env: {},
        stdout,
        stderr,
        stdin: process.stdin,
        config: (flags) => loadConfig({}, flags),
        openEngine: async (config) => {
          const store = await openStore({ url: config.databaseUrl });
          if (extraPages !== undefined) {
            const pages = (await sql<{ page_count: number }>`pragma page_count`.execute(store.db)).rows[0]!.page_count;
            await sql.raw(`pragma max_page_count = ${pages + extraPages}`).execute(store.db);
          }
          return createEngine({ database: store });
        },
      };
      return { ctx, stdout, stderr };
    };
    const args = ['node', 'chs', '--db', file, 'ingest', '--workspace', WS, '--mbox', fixturePath(SCENARIO_FIXTURE.mbox), '--json', '--workers', '0'];

    const full = context(100);
    expect(await main(args, full.ctx)).toBe(1);
    expect(full.stdout.text).toBe('');
    expect(full.stderr.text).toMatch(
      /^chs: the disk holding the SQLite database .*chs\.db is full \(SQLITE_FULL\): the batch being written was not stored; free some space and run again \(an ingestion resumes where it stopped\) \[STORAGE_FULL\]\n$/,
    );
    const store = await openStore({ url: file });
    try {
      expect(await store.db.selectFrom('interactions').select('id').execute()).toEqual([]);
      expect(await store.db.selectFrom('ingestion_runs').select(['status', 'items_processed']).execute()).toEqual([{ status: 'failed', items_processed: 0 }]);
    } finally {
      await store.close();
    }

    const roomy = context();
    expect(await main(args, roomy.ctx)).toBe(0);
    const summary = JSON.parse(roomy.stdout.text) as Record<string, number>;
    expect([summary.itemsProcessed, summary.itemsAdded, summary.itemsUpdated]).toEqual([truth.messages, truth.interactions, 0]);
  }, 60_000);

  it('a lock held by another process: waits CHS_SQLITE_BUSY_TIMEOUT_MS, then one line with DATABASE_BUSY and exit 1', async () => {
    const file = await newDatabase();
    const holder = await holdSqliteWriteLock(file, WS, 20_000);
    try {
      const t = performance.now();
      const r = await run({ CHS_SQLITE_BUSY_TIMEOUT_MS: '400' }, '--db', file, 'keys', 'create', '--workspace', WS, '--name', 'ci');
      expect(performance.now() - t).toBeGreaterThan(400);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /^chs: the SQLite database .*chs\.db is locked by another process \(SQLITE_BUSY\); gave up after waiting 400 ms \(CHS_SQLITE_BUSY_TIMEOUT_MS\); nothing was written, try again \[DATABASE_BUSY\]\n$/,
      );
    } finally {
      holder.kill();
      await holder.released;
    }
  }, 60_000);

  it('warns on start about a database or key file other users can read (created 0600, they never are unless changed)', async () => {
    const file = await newDatabase();
    const dataDir = join(file, '..');
    loadOrCreateSecretKey(dataDir);
    const quiet = await run({}, '--db', file, 'keys', 'list', '--workspace', WS);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');

    chmodSync(file, 0o644);
    chmodSync(join(dataDir, 'secret.key'), 0o640);
    const r = await run({}, '--db', file, 'keys', 'list', '--workspace', WS);
    expect(r.code).toBe(0);
    expect(r.stderr.split('\n').filter(Boolean)).toEqual([
      `chs: warning: ${file} can be read or written by other users (mode 0644); run \`chmod 600 ${file}\``,
      `chs: warning: ${join(dataDir, 'secret.key')} can be read or written by other users (mode 0640); run \`chmod 600 ${join(dataDir, 'secret.key')}\``,
    ]);
  }, 60_000);
});
